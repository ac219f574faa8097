"""Plain-words helpers every game and the CLI share, so a count reads the same everywhere."""

from __future__ import annotations

__all__ = ["counted", "possessive"]


def counted(count: int, word: str, ending: str = "s") -> str:
    """``1 move``, ``2 moves``, ``0 moves`` (``ending`` for words like ``match``/``matches``)."""
    return f"{count} {word}{'' if count == 1 else ending}"


def possessive(name: str) -> str:
    """``Tower of Hanoy's``, ``Three Towers'`` (a name ending in a plural s takes the bare
    apostrophe)."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"
