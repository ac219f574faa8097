"""Tri Peaks (seeds 001 and 003): the basic form with its variants, TriTowers and its score.

The package holds the tableau's geometry (:mod:`.layout`), the rules and notation (:mod:`.rules`),
the fair bots (:mod:`.bots`: ``fast`` and ``strong``, docs/games/tripeaks-bots.md) and the odds
presets (:mod:`.odds`); the exact solver (:mod:`.solver`), when present, registers itself too.
docs/games/tripeaks.md has the rules as implemented, every interpretation of the seeds, and the
skill check.
"""

import importlib
import importlib.util

# The analysis modules register the bots, the odds presets and (if present) the solver.
from skillcheck.games.tripeaks import bots as _bots
from skillcheck.games.tripeaks import odds as _odds
from skillcheck.games.tripeaks.layout import (
    CONES,
    COVERED_BY,
    COVERS,
    POSITIONS,
    ROWS,
    SLOTS,
    TIPS,
    cards_needed,
)
from skillcheck.games.tripeaks.rules import (
    DEAL_COST,
    PEAK_BONUS,
    RULES,
    STOCK_BONUS,
    WILD_ORDER,
    Tripeaks,
    TripeaksMove,
    TripeaksObservation,
    TripeaksState,
    fits,
    is_free,
    legal_moves_of,
    wild_cards,
)

if importlib.util.find_spec(f"{__name__}.solver") is not None:
    importlib.import_module(f"{__name__}.solver")

del _bots, _odds

__all__ = [
    "CONES",
    "COVERED_BY",
    "COVERS",
    "DEAL_COST",
    "PEAK_BONUS",
    "POSITIONS",
    "ROWS",
    "RULES",
    "SLOTS",
    "STOCK_BONUS",
    "TIPS",
    "WILD_ORDER",
    "Tripeaks",
    "TripeaksMove",
    "TripeaksObservation",
    "TripeaksState",
    "cards_needed",
    "fits",
    "is_free",
    "legal_moves_of",
    "wild_cards",
]
