"""Three Towers (seed 000, by Maginobi): a Decktet solitaire, and its Quota skill check.

The package holds everything of the game: the rules and notation (:mod:`.rules`), the exact
solver (:mod:`.solver`, with its compiled planner ``_planner.c``) and line shortening
(:mod:`.lines`), the fair bots (:mod:`.bots`), the odds presets (:mod:`.odds`) and the terminal
frontend (:mod:`.frontend`).
"""

# The analysis modules register the solver, the bots and the odds presets of the game.
from skillcheck.games.three_towers import bots as _bots
from skillcheck.games.three_towers import odds as _odds
from skillcheck.games.three_towers import solver as _solver
from skillcheck.games.three_towers.rules import (
    DECK,
    VARIANTS,
    Ivory,
    Quota,
    Standard,
    ThreeTowers,
    ThreeTowersObservation,
    ThreeTowersState,
    TowerMove,
    Variant,
    apply_tower_move,
    legal_tower_moves,
    level_deck,
    quota_deck,
)

del _bots, _odds, _solver

__all__ = [
    "DECK",
    "VARIANTS",
    "Ivory",
    "Quota",
    "Standard",
    "ThreeTowers",
    "ThreeTowersObservation",
    "ThreeTowersState",
    "TowerMove",
    "Variant",
    "apply_tower_move",
    "legal_tower_moves",
    "level_deck",
    "quota_deck",
]
