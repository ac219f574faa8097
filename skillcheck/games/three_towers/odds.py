"""Three Towers' odds presets: the tables a GM reads, run by the generic harness
(:mod:`skillcheck.odds`, ``skillcheck odds three-towers --preset NAME``)."""

from __future__ import annotations

from typing import Any

from skillcheck.games.three_towers.rules import ThreeTowers
from skillcheck.registry import register_analysis

__all__ = ["PRESETS"]

#: The tables a GM reads (``skillcheck odds three-towers --preset NAME``), in flat options.
PRESETS: dict[str, dict[str, Any]] = {
    "quota": {
        "params": {"suit": "moons", "level": 9},
        "axes": {"skill": [1, 2, 3, 4, 5, 6, 7, 8], "quota": [1, 2, 3, 4, 5, 6, 7, 8]},
        "methods": ["perfect", "fast"],
        "deals": 100,
    },
    "standard": {
        "params": {},
        "axes": {"level": [6, 7, 8, 9]},
        "methods": ["perfect", "fast"],
        "deals": 100,
    },
}
register_analysis(ThreeTowers.name, odds_presets=PRESETS)
