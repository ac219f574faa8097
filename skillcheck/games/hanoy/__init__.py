"""Tower of Hanoy (seed 004): a nine-card solitaire after the Tower of Hanoi, and its skill check.

The package holds the rules and notation (:mod:`.rules`), the breadth-first searches over packed
positions (:mod:`.search`), the exact solver (:mod:`.solver`), the fair bot (:mod:`.bots`), the
odds presets (:mod:`.odds`) and the ``skillcheck hanoy stats`` command (:mod:`.commands`).
docs/games/hanoy.md has the rules as implemented and the skill check's odds.
"""

# The analysis modules register the solver, the bot, the odds presets and the commands.
from skillcheck.games.hanoy import bots as _bots
from skillcheck.games.hanoy import commands as _commands
from skillcheck.games.hanoy import odds as _odds
from skillcheck.games.hanoy import solver as _solver
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

del _bots, _commands, _odds, _solver

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
