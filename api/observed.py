""" "Observed here": how often finished checks with the same parameters succeeded on this server.

A GM reads it beside the computed odds: real players at real tables. Only checks that ended
with a result count (won or lost: a cancelled check has none, one in progress none yet), and
only checks whose deal the server drew: a check whose seed the GM chose (``seed_chosen`` true
in its stored configuration) is left out, and so is one whose configuration does not say (a
check stored before seeds were recorded as chosen), since its deal may have been picked.

"The same parameters" means the same canonical options as the shipped tables use
(:func:`skillcheck.tables.canonical_key`): defaults filled in, options that never change the
odds (undo) left out. Nothing here names a game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from api.db import CheckRow
from skillcheck.errors import SkillcheckError
from skillcheck.odds import wilson_interval
from skillcheck.serialization import game_from_params
from skillcheck.tables import canonical_key

__all__ = ["FINISHED", "ObservedBody", "observed", "observed_body"]

#: The statuses of a check that ended with a result, and the one that is a success.
FINISHED = ("won", "lost")
SUCCESS = "won"


class ObservedBody(TypedDict):
    """Finished checks here with these parameters (seed drawn by the server), how many
    succeeded, the rate and its Wilson 95 % interval (``null`` when there are none)."""

    checks: int
    successes: int
    rate: float | None
    low: float | None
    high: float | None


def observed(engine: Engine, game: str, keys: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(checks, successes) by canonical key, for each of ``keys``, over the finished checks of
    ``game`` whose seed the server drew."""
    wanted = {key: [0, 0] for key in keys}
    query = sa.select(CheckRow.config, CheckRow.status).where(
        CheckRow.game == game, CheckRow.status.in_(FINISHED)
    )
    with engine.connect() as conn:
        for config, status in conn.execute(query):
            if not isinstance(config, dict) or config.get("seed_chosen") is not False:
                continue  # chosen by the GM, or not recorded: the deal may have been picked
            try:
                key = canonical_key(game_from_params(game, dict(config.get("params") or {})))
            except (SkillcheckError, TypeError, ValueError):
                continue  # parameters an older version accepted: not comparable
            counts = wanted.get(key)
            if counts is not None:
                counts[0] += 1
                counts[1] += status == SUCCESS
    return {key: (c[0], c[1]) for key, c in wanted.items()}


def observed_body(checks: int, successes: int) -> ObservedBody:
    if checks == 0:
        return {"checks": 0, "successes": 0, "rate": None, "low": None, "high": None}
    low, high = wilson_interval(successes, checks)
    return {
        "checks": checks,
        "successes": successes,
        "rate": round(successes / checks, 6),
        "low": round(low, 6),
        "high": round(high, 6),
    }
