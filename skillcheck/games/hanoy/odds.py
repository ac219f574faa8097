"""The odds tables a GM reads for Tower of Hanoy (``skillcheck odds hanoy --preset NAME``)."""

from __future__ import annotations

from typing import Any

from skillcheck.games.hanoy.rules import Hanoy
from skillcheck.registry import register_analysis

__all__ = ["PRESETS"]

#: Flat options, as :func:`skillcheck.odds.odds` takes them. ``check``: difficulty (cards) by
#: skill (spare moves), for perfect play and the fair bot.
PRESETS: dict[str, dict[str, Any]] = {
    "check": {
        "params": {},
        "axes": {"cards": [3, 4, 5, 6, 7, 8, 9], "skill": [0, 1, 2, 4, 8, 16, 32, 64, 128]},
        "methods": ["perfect", "fast"],
        "deals": 200,
    },
}

register_analysis(Hanoy.name, odds_presets=PRESETS)
