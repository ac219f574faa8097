"""The odds tables a GM reads for Tower of Hanoy (``skillcheck odds hanoy --preset NAME``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillcheck.errors import ParameterError
from skillcheck.games.hanoy.rules import Hanoy
from skillcheck.profiles import Difficulty, ShippedGrid, register_gm_odds
from skillcheck.registry import register_analysis

__all__ = ["PRESETS", "SHIPPED", "difficulty"]

#: Flat options, as :func:`skillcheck.odds.odds` takes them. ``check``: difficulty (cards) by
#: skill (spare moves), for perfect play and the fair bot.
PRESETS: dict[str, dict[str, Any]] = {
    "check": {
        "params": {},
        "axes": {
            "cards": [3, 4, 5, 6, 7, 8, 9],
            "skill": [0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128],  # every skill a GM steps through
        },
        "methods": ["perfect", "fast"],
        "deals": 200,
    },
}

register_analysis(Hanoy.name, odds_presets=PRESETS)

#: The tables shipped with the package: the ``check`` preset, played by the casual player (the
#: fast bot) and perfect play on the same deals.
SHIPPED: tuple[ShippedGrid, ...] = tuple(
    ShippedGrid(
        name,
        dict(preset["params"]),
        {k: tuple(v) for k, v in preset["axes"].items()},
        {"casual": 60, "ceiling": 60},
    )
    for name, preset in PRESETS.items()
)


def difficulty(fixed: Mapping[str, Any]) -> Difficulty:
    """A check turns its number of cards (3 to 9). Without a skill there is no allowance of
    moves and every deal is won in the end, so no number of cards makes it harder."""
    if not isinstance(fixed.get("skill"), int) and not isinstance(fixed.get("move_limit"), int):
        raise ParameterError(
            "skill",
            "choosing the number of cards needs the skill (without it, or a move limit, the "
            "tower is always built in the end, whatever the cards): set skill too",
        )
    return Difficulty("cards", tuple(range(3, 10)))


register_gm_odds(
    Hanoy.name,
    casual="fast",
    difficulty=difficulty,
    grids=SHIPPED,
    neutral=("undo",),
    tables=Path(__file__).with_name("odds_tables.json"),
)
