"""The odds tables a GM reads for Tri Peaks (``skillcheck odds tripeaks --preset NAME``).

Methods are left to the harness: perfect play (the solver) and the ``fast`` bot once the solver
is registered, the ``fast`` and ``random`` bots before.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillcheck.games.tripeaks.rules import Tripeaks
from skillcheck.profiles import Difficulty, ShippedGrid, register_gm_odds
from skillcheck.registry import register_analysis

__all__ = ["PRESETS", "SHIPPED", "difficulty"]

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

#: Deals per profile of the shipped tables, by preset (perfect play needs seconds a deal on
#: TriTowers' low targets, so its ceiling is not shipped: it is computed when asked for). The
#: careful player is the ``strong`` bot once the game has one (until then it is left out).
SHIPPED_DEALS: dict[str, dict[str, int]] = {"tritowers": {"casual": 60}}
DEFAULT_DEALS: dict[str, int] = {"casual": 60, "ceiling": 60, "careful": 20}
#: The tables shipped with the package: every preset, played by the casual player (the fast
#: bot) and perfect play on the same deals.
SHIPPED: tuple[ShippedGrid, ...] = tuple(
    ShippedGrid(
        name,
        dict(preset.get("params", {})),
        {k: tuple(v) for k, v in preset["axes"].items()},
        SHIPPED_DEALS.get(name, DEFAULT_DEALS),
    )
    for name, preset in PRESETS.items()
)
#: TriTowers' target scores a GM chooses from (the ``tritowers`` preset's).
TARGETS: tuple[int, ...] = tuple(PRESETS["tritowers"]["axes"]["target"])


def difficulty(fixed: Mapping[str, Any]) -> Difficulty:
    """The basic form turns the peaks to clear (1 to 3); TriTowers its target score."""
    if fixed.get("rules") == "tritowers":
        return Difficulty("target", TARGETS)
    return Difficulty("peaks", (1, 2, 3))


register_gm_odds(
    Tripeaks.name,
    careful="strong",
    casual="fast",
    difficulty=difficulty,
    grids=SHIPPED,
    neutral=("undo",),
    tables=Path(__file__).with_name("odds_tables.json"),
)
