"""Three Towers (seed 000, by Maginobi): a Decktet solitaire, and its Quota skill check.

The package holds everything of the game: the rules and notation (:mod:`.rules`), the exact
solver (:mod:`.solver`, with its compiled planner ``_planner.c``) and line shortening
(:mod:`.lines`), the fair bots (:mod:`.bots`), the odds presets (:mod:`.odds`) and the terminal
frontend (:mod:`.frontend`).
"""

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
