"""The odds tables a GM reads for Tri Peaks (``skillcheck odds tripeaks --preset NAME``).

Methods are left to the harness: perfect play (the solver) and the ``fast`` bot once the solver
is registered, the ``fast`` and ``random`` bots before.
"""

from __future__ import annotations

from typing import Any

from skillcheck.games.tripeaks.rules import Tripeaks
from skillcheck.registry import register_analysis

__all__ = ["PRESETS"]

#: Flat options, as :func:`skillcheck.odds.odds` takes them.
#:
#: - ``check``: the basic form, difficulty (peaks to clear) by skill (0-5: a short stock, 6: the
#:   whole stock, 7: a second pass);
#: - ``check-wrap``: the same with King-Ace wrap (an easier table for the same numbers);
#: - ``tritowers``: TriTowers' target score by skill.
PRESETS: dict[str, dict[str, Any]] = {
    "check": {
        "params": {},
        "axes": {"peaks": [1, 2, 3], "skill": [0, 1, 2, 3, 4, 5, 6, 7]},
        "deals": 200,
    },
    "check-wrap": {
        "params": {"wrap": True},
        "axes": {"peaks": [1, 2, 3], "skill": [0, 1, 2, 3, 4, 5, 6, 7]},
        "deals": 200,
    },
    "tritowers": {
        "params": {"rules": "tritowers"},
        "axes": {"target": [20, 40, 60, 90, 120], "skill": [2, 4, 6, 7]},
        "deals": 200,
    },
}

register_analysis(Tripeaks.name, odds_presets=PRESETS)
