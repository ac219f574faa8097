"""skillcheck: card mini-games as skill checks for tabletop role-playing games.

A flat, importable core::

    from skillcheck import ThreeTowers
    game = ThreeTowers.quota_check("moons", skill=4, quota=3)
    state = game.new_state(seed=42)
    state.push_code("d1")
    state.observation()
"""

import skillcheck.games  # noqa: F401  (registers the built-in games)
from skillcheck.cards import DECKTET, NUMERALS, Card, Rank, Suit, card, parse_cards
from skillcheck.engine import (
    GAMES,
    EndReason,
    Game,
    LegalMoves,
    Move,
    Outcome,
    ParameterSpec,
    State,
    Status,
    game_class,
    make_game,
    register_game,
)
from skillcheck.errors import (
    CannotFinishError,
    CheckEndedError,
    CheckNotFoundError,
    CommitmentError,
    GameOverError,
    HintsNotAllowedError,
    IdempotencyConflictError,
    IllegalMoveError,
    NoHintError,
    NotAMoveError,
    ParameterError,
    ParseError,
    RecordError,
    RecordNotAvailableError,
    RuleError,
    SkillcheckError,
    UndoError,
    UnknownCardError,
    UnknownGameError,
    UnknownSuitError,
    VersionConflictError,
)
from skillcheck.games.hanoy import Hanoy, HanoyMove, HanoyObservation, HanoyState
from skillcheck.games.three_towers import (
    DECK,
    Ivory,
    Quota,
    Standard,
    ThreeTowers,
    ThreeTowersObservation,
    ThreeTowersState,
    TowerMove,
    level_deck,
    quota_deck,
)
from skillcheck.games.tripeaks import Tripeaks, TripeaksMove, TripeaksObservation, TripeaksState
from skillcheck.rng import MAX_SEED, Pcg32, draw_seed

__version__ = "0.1.0"

__all__ = [
    "DECK",
    "DECKTET",
    "GAMES",
    "MAX_SEED",
    "NUMERALS",
    "CannotFinishError",
    "Card",
    "CheckEndedError",
    "CheckNotFoundError",
    "CommitmentError",
    "EndReason",
    "Game",
    "GameOverError",
    "Hanoy",
    "HanoyMove",
    "HanoyObservation",
    "HanoyState",
    "HintsNotAllowedError",
    "IdempotencyConflictError",
    "IllegalMoveError",
    "Ivory",
    "LegalMoves",
    "Move",
    "NoHintError",
    "NotAMoveError",
    "Outcome",
    "ParameterError",
    "ParameterSpec",
    "ParseError",
    "Pcg32",
    "Quota",
    "Rank",
    "RecordError",
    "RecordNotAvailableError",
    "RuleError",
    "SkillcheckError",
    "Standard",
    "State",
    "Status",
    "Suit",
    "ThreeTowers",
    "ThreeTowersObservation",
    "ThreeTowersState",
    "TowerMove",
    "Tripeaks",
    "TripeaksMove",
    "TripeaksObservation",
    "TripeaksState",
    "UndoError",
    "UnknownCardError",
    "UnknownGameError",
    "UnknownSuitError",
    "VersionConflictError",
    "card",
    "draw_seed",
    "game_class",
    "level_deck",
    "make_game",
    "parse_cards",
    "quota_deck",
    "register_game",
]
