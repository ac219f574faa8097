"""``GET /v1/odds``: success probabilities of a quota check (skillcheck.odds), cached.

A GM about to set a quota asks: for this suit and skill, how often does a check with quota 1, 2,
… succeed, for perfect play and for a human-like bot? The answer is a pure function of its
parameters (the deals come from a fixed master seed), so it is computed once and cached in the
``odds`` store — the process's memory, or Redis when ``SKILLCHECK_REDIS_URL`` is set, shared by
every API process. Identical requests arriving together share one computation. The solver runs
in a separate worker process so the API's event loop and threads stay responsive.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any, ClassVar

import anyio.to_thread
from litestar import Controller, Request, Response, get
from litestar.params import Parameter

from api.problems import problem_responses
from skillcheck.cards import Suit
from skillcheck.errors import ParameterError
from skillcheck.games.three_towers.odds import quota_odds

__all__ = ["MAX_DEALS", "ODDS_CACHE_SECONDS", "OddsController", "OddsRunner"]

MAX_DEALS = 500
#: Results never change for the same parameters; the TTL only bounds the cache's size.
ODDS_CACHE_SECONDS = 30 * 24 * 3600
API_METHODS = ("perfect", "fast")  # the strong bot takes seconds per deal: use the CLI


class OddsRunner:
    """Computes odds tables in a worker process, one request's table at a time per key."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._inflight: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:  # two tables computed at once (in two threads) share one pool
            if self._pool is None:
                # spawn: forking a process that runs threads and an event loop is unsafe
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            return self._pool

    async def table(self, key: str, params: dict[str, Any]) -> dict[str, Any]:
        running = self._inflight.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await anyio.to_thread.run_sync(self._compute, params)
            future.set_result(result)
            return result
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            del self._inflight[key]

    def _compute(self, params: dict[str, Any]) -> dict[str, Any]:
        table = quota_odds(
            params["suit"],
            [params["skill"]],
            params["quotas"],
            level=params["level"],
            spaces=params["spaces"],
            deals=params["deals"],
            methods=params["methods"],
            seed=params["seed"],
            executor=self._executor(),
        )
        return {**params, "cells": table.rows()}

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(cancel_futures=True)


class OddsController(Controller):
    path = "/v1/odds"
    tags: ClassVar[list[str]] = ["odds"]  # type: ignore[misc]

    @get(
        "/",
        summary="Success odds of a quota check (cached)",
        responses=problem_responses(400, 422),
        security=[],
    )
    async def odds(
        self,
        request: Request[Any, Any, Any],
        suit: str = Parameter(
            description="the check's suit (moons, suns, waves, leaves, wyrms, knots)"
        ),
        skill: int = Parameter(ge=1, le=8, description="the character's skill (1..8)"),
        quota: int | None = Parameter(
            default=None, ge=1, le=8, description="one quota (<= skill); omitted: 1..skill"
        ),
        level: int = Parameter(default=9, ge=2, le=9, description="the deck's level"),
        spaces: int = Parameter(default=5, ge=3, le=9, description="tower spaces"),
        deals: int = Parameter(default=200, ge=1, le=MAX_DEALS, description="deals per cell"),
        bot: list[str] | None = Parameter(  # noqa: B008 (litestar reads it)
            default=None,
            description="methods: perfect (solver, knows the deck) and/or fast (fair bot)",
        ),
        seed: int = Parameter(default=0, ge=0, le=2**53 - 1, description="master seed of deals"),
    ) -> Response[dict[str, Any]]:
        """For each method and quota: successes, trials, rate and a Wilson 95 % interval. The
        first request for a set of parameters computes it (seconds); later ones are cached."""
        methods = tuple(dict.fromkeys(bot or API_METHODS))
        if any(m not in API_METHODS for m in methods):
            raise ParameterError(
                "bot",
                f"bot must be among {', '.join(API_METHODS)} (the strong bot is too slow for a "
                f"request: use `skillcheck odds --bot strong`), not {', '.join(methods)}",
            )
        try:
            parsed_suit = Suit.parse(suit)
        except Exception as exc:
            raise ParameterError("suit", str(exc)) from None
        if quota is not None and quota > skill:
            raise ParameterError(
                "quota", f"quota {quota} is more than skill {skill}: a quota is 1..skill"
            )
        params: dict[str, Any] = {
            "game": "three-towers",
            "suit": parsed_suit.value,
            "skill": skill,
            "quotas": [quota] if quota is not None else list(range(1, skill + 1)),
            "level": level,
            "spaces": spaces,
            "deals": deals,
            "methods": list(methods),
            "seed": seed,
        }
        key = json.dumps(params, sort_keys=True, separators=(",", ":"))
        store = request.app.stores.get("odds")
        cached = await store.get(key)
        if cached is not None:
            return Response(json.loads(cached), headers={"X-Cache": "hit", **_CACHING})
        runner: OddsRunner = request.app.state.odds_runner
        result = await runner.table(key, params)
        await store.set(key, json.dumps(result), expires_in=ODDS_CACHE_SECONDS)
        return Response(result, headers={"X-Cache": "miss", **_CACHING})


_CACHING = {"Cache-Control": "public, max-age=86400"}
