"""The browser page where a player plays a check (being written)."""

from __future__ import annotations

from typing import Any

__all__ = ["PAGE_HANDLERS"]

PAGE_HANDLERS: list[Any] = []
