"""Tower of Hanoy (seed 004): a nine-card solitaire after the Tower of Hanoi, and its skill check.

The package holds the rules and notation (:mod:`.rules`), the breadth-first searches over packed
positions (:mod:`.search`), the exact solver (:mod:`.solver`), the fair bot (:mod:`.bots`), the
odds presets (:mod:`.odds`) and the ``skillcheck hanoy stats`` command (:mod:`.commands`).
docs/games/hanoy.md has the rules as implemented and the skill check's odds.
"""

from skillcheck.games.hanoy.rules import (
    COLUMNS,
    MAX_CARDS,
    MAX_SKILL,
    MIN_CARDS,
    RANKS,
    SUIT,
    Hanoy,
    HanoyMove,
    HanoyObservation,
    HanoyState,
    legal_moves_of,
    tower_height,
)

__all__ = [
    "COLUMNS",
    "MAX_CARDS",
    "MAX_SKILL",
    "MIN_CARDS",
    "RANKS",
    "SUIT",
    "Hanoy",
    "HanoyMove",
    "HanoyObservation",
    "HanoyState",
    "legal_moves_of",
    "tower_height",
]
