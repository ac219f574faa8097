"""Three Towers' odds presets: the tables a GM reads, run by the generic harness
(:mod:`skillcheck.odds`, ``skillcheck odds three-towers --preset NAME``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillcheck.errors import ParameterError
from skillcheck.games.three_towers.rules import ThreeTowers
from skillcheck.profiles import Difficulty, ShippedGrid, register_gm_odds
from skillcheck.registry import register_analysis

__all__ = ["PRESETS", "SHIPPED", "SUITS", "difficulty"]

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

#: The suits of a quota check, as the game's parameter spec lists them.
SUITS: tuple[str, ...] = next(
    tuple(spec.choices or ()) for spec in ThreeTowers.parameters() if spec.name == "suit"
)
_LEVELS = next(spec for spec in ThreeTowers.parameters() if spec.name == "level")

#: The tables shipped with the package (docs/odds.md gives the deals and the intervals they
#: give): every suit × skill 1..8 × quota 1..skill at levels 6 and 9 with 5 spaces, and the
#: standard game by level. The careful player (the strong bot, seconds per deal at level 9)
#: is shipped at level 6 only.
SHIPPED: tuple[ShippedGrid, ...] = (
    *(
        ShippedGrid(
            f"quota-{suit}-level-{level}",
            {"suit": suit, "level": level, "spaces": 5},
            {"skill": tuple(range(1, 9)), "quota": tuple(range(1, 9))},
            {"casual": 100, "ceiling": 20, "careful": 3}
            if level == 6
            else {"casual": 100, "ceiling": 20},
        )
        for level in (9, 6)
        for suit in SUITS
    ),
    ShippedGrid(
        "standard",
        {"spaces": 5},
        {"level": tuple(range(_LEVELS.minimum or 2, (_LEVELS.maximum or 9) + 1))},
        {"casual": 100, "ceiling": 20},
    ),
)


def difficulty(fixed: Mapping[str, Any]) -> Difficulty:
    """A quota check turns its quota (1 to the skill); the standard and ivory games their level."""
    variant = fixed.get("variant")
    if variant is None:  # as the flat options read it: a suit with skill or quota is a quota check
        given = {k for k in ("skill", "quota", "suited_cards") if fixed.get(k) is not None}
        variant = "quota" if given else None
    if variant == "quota":
        skill = fixed.get("skill")
        if not isinstance(skill, int):
            raise ParameterError("skill", "choosing the quota needs the skill: set skill too")
        return Difficulty("quota", tuple(range(1, skill + 1)))
    return Difficulty("level", tuple(range(_LEVELS.minimum or 2, (_LEVELS.maximum or 9) + 1)))


register_gm_odds(
    ThreeTowers.name,
    careful="strong",
    casual="fast",
    difficulty=difficulty,
    grids=SHIPPED,
    neutral=("undo",),
    tables=Path(__file__).with_name("odds_tables.json"),
)
