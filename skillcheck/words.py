"""Plain-words helpers every game and the CLI share, so a count reads the same everywhere."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, word: str, ending: str = "s") -> str:
    """``1 move``, ``2 moves``, ``0 moves`` (``ending`` for words like ``match``/``matches``)."""
    return f"{count} {word}{'' if count == 1 else ending}"
