"""``GET /v1/odds``: success probabilities of any game's checks (:mod:`skillcheck.odds`), cached.

A GM about to set a check asks: with these parameters, how often does it succeed, for perfect
play and for a human-like bot? The query names the game and gives its parameters as flat options
(their names in ``GET /v1/games``: ``?game=...&suit=moons&skill=5&quota=4``); an option given
more than once is an axis, and every combination is a cell of the table. Each cell is played by
the game-neutral harness (:func:`skillcheck.odds.odds`) on the same deals.

The answer is a pure function of its parameters (the deals come from a fixed master seed), so it
is computed once and cached in the ``odds`` store — the process's memory, or Redis when
``SKILLCHECK_REDIS_URL`` is set, shared by every API process. Identical requests arriving
together share one computation. The games are played in a separate worker process so the API's
event loop and threads stay responsive. Nothing here names a game.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import multiprocessing
import re
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import anyio.to_thread
from litestar import Controller, Request, Response, get
from litestar.exceptions import ValidationException
from litestar.openapi.spec import Operation, Schema
from litestar.openapi.spec import Parameter as OpenAPIParameter
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import Parameter

import skillcheck.games  # noqa: F401  (registers the built-in and plug-in games)
from api.bodies import OddsBody, OddsCellBody
from api.problems import game_names, missing_game_handler, problem_responses
from skillcheck.engine import GAMES, Game, ParameterSpec
from skillcheck.errors import ParameterError, UnknownGameError
from skillcheck.odds import game_from_options, methods_of, odds
from skillcheck.schema import check_params, flat_params
from skillcheck.serialization import game_params

__all__ = [
    "MAX_CELLS",
    "MAX_DEALS",
    "ODDS_CACHE_SECONDS",
    "OddsController",
    "OddsRequest",
    "OddsRunner",
    "api_methods",
    "read_request",
]

MAX_DEALS = 500
#: Combinations of the axes in one table (each is played ``deals`` times by every method).
MAX_CELLS = 8
#: Results never change for the same parameters; the TTL only bounds the cache's size.
ODDS_CACHE_SECONDS = 30 * 24 * 3600
#: Query parameters of the endpoint itself; every other one is an option of the game.
OWN_PARAMETERS = ("game", "deals", "bot", "seed")
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class OddsRequest:
    """One table asked for: the game, fixed flat options, axes (options with several values),
    deals per cell, methods and the master seed. ``key`` is its cache key."""

    game: str
    params: dict[str, Any]
    axes: dict[str, list[Any]] = field(default_factory=dict)
    deals: int = 200
    methods: tuple[str, ...] = ()
    seed: int = 0

    @property
    def key(self) -> str:
        data = {
            "game": self.game,
            "params": self.params,
            "axes": self.axes,
            "deals": self.deals,
            "methods": list(self.methods),
            "seed": self.seed,
        }
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def combinations(self) -> list[dict[str, Any]]:
        """Every cell's flat options, in the order the harness lists them."""
        return [
            {**self.params, **dict(zip(self.axes, values, strict=True))}
            for values in itertools.product(*self.axes.values())
        ]


def api_methods(game: Game[Any]) -> tuple[str, ...]:
    """The methods a request may ask for: the harness's default pair (perfect play when the
    game has a solver, then its first bot). Slower bots are for ``skillcheck odds``."""
    return methods_of(game)[:2]


def _flat(cls: type[Game[Any]], game: Game[Any]) -> dict[str, Any]:
    return flat_params(cls, game_params(game))


def odds_body(request: OddsRequest, cells: list[dict[str, Any]]) -> OddsBody:
    """The answer: the request, the game's fixed options with their defaults at the top (as
    the quota table had them) and each cell with its own options."""
    cls = GAMES[request.game]
    fixed = _flat(cls, game_from_options(request.game, request.combinations()[0]))
    body: dict[str, Any] = {k: v for k, v in fixed.items() if k not in request.axes}
    body.update(
        game=request.game,
        params=dict(request.params),
        axes={k: list(v) for k, v in request.axes.items()},
        deals=request.deals,
        seed=request.seed,
        methods=list(request.methods),
    )
    body["cells"] = [
        cast(OddsCellBody, {**_flat(cls, game_from_options(request.game, c["params"])), **c})
        for c in cells
    ]
    return cast(OddsBody, body)


class OddsRunner:
    """Computes odds tables in a worker process, one request's table at a time per key."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._inflight: dict[str, asyncio.Future[OddsBody]] = {}

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:  # two tables computed at once (in two threads) share one pool
            if self._pool is None:
                # spawn: forking a process that runs threads and an event loop is unsafe
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            return self._pool

    async def table(self, request: OddsRequest) -> OddsBody:
        key = request.key
        running = self._inflight.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[OddsBody] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await anyio.to_thread.run_sync(self._compute, request)
            future.set_result(result)
            return result
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            del self._inflight[key]

    def _compute(self, request: OddsRequest) -> OddsBody:
        table = odds(
            request.game,
            request.params,
            request.axes,
            methods=request.methods,
            deals=request.deals,
            seed=request.seed,
            executor=self._executor(),
        )
        return odds_body(request, [c.to_dict() for c in table.cells])

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(cancel_futures=True)


# ---- reading the query ---------------------------------------------------------------------------


def _value(spec: ParameterSpec, text: str) -> Any:
    """One query value as the option's kind (strictly: ``5`` is a number, ``five`` is not)."""
    if spec.kind == "int":
        if not _WHOLE_NUMBER.fullmatch(text.strip()):
            raise ParameterError(
                spec.name, f"{spec.name} {text!r} is not allowed: {spec.name} is a whole number"
            )
        return int(text)
    if spec.kind == "bool":
        if text.strip().lower() not in ("true", "false"):
            raise ParameterError(
                spec.name, f"{spec.name} {text!r} is not allowed: {spec.name} is true or false"
            )
        return text.strip().lower() == "true"
    if spec.kind == "cards":
        return text.replace(",", " ").split()
    return text


def read_request(
    game: str,
    query: list[tuple[str, str]],
    *,
    deals: int,
    bots: list[str] | None,
    seed: int,
) -> OddsRequest:
    """The table a query asks for, every cell checked by the game (strictly, then by its own
    rules) before anything is played; raises :class:`ParameterError` naming the option."""
    if game not in GAMES:
        raise UnknownGameError(f"unknown game {game!r}: the games are {game_names()}")
    cls = GAMES[game]
    specs = {spec.name: spec for spec in cls.parameters()}
    values: dict[str, list[Any]] = {}
    for name, text in query:
        if name in OWN_PARAMETERS:
            continue
        spec = specs.get(name)
        if spec is None:
            raise ParameterError(
                name,
                f"unknown option {name!r}: the options of {game} are {', '.join(specs)} "
                f"(and {', '.join(OWN_PARAMETERS)})",
            )
        value = _value(spec, text)
        if value not in values.setdefault(name, []):
            values[name].append(value)
    fixed = {k: v[0] for k, v in values.items() if len(v) == 1}
    axes = {k: v for k, v in values.items() if len(v) > 1}
    cells = 1
    for options in axes.values():
        cells *= len(options)
    if cells > MAX_CELLS:
        raise ParameterError(
            next(iter(axes)),
            f"{cells} combinations of {', '.join(axes)} is too many for one request: at most "
            f"{MAX_CELLS} (use `skillcheck odds {game}` for bigger tables)",
        )
    request = OddsRequest(game, fixed, axes, deals, (), seed)
    first: Game[Any] | None = None
    for combination in request.combinations():
        check_params(cls, cls.params_from_options(combination))
        built = game_from_options(game, combination)
        first = first or built
    assert first is not None
    allowed = api_methods(first)
    methods = tuple(dict.fromkeys(bots or allowed))
    if not methods or any(m not in allowed for m in methods):
        raise ParameterError(
            "bot",
            f"bot must be among {', '.join(allowed)} for {game} (other methods take too long "
            f"for a request: use `skillcheck odds {game} --bot NAME`), not {', '.join(methods)}",
        )
    return OddsRequest(game, fixed, axes, deals, methods, seed)


# ---- the endpoint --------------------------------------------------------------------------------


def _option_schema(specs: list[ParameterSpec]) -> Schema:
    """The schema of a query option that one or more games take (ranges and choices merged)."""
    kinds = {spec.kind for spec in specs}
    if len(kinds) > 1:
        return Schema()
    kind = kinds.pop()
    if kind == "int":
        lows = [s.minimum for s in specs]
        highs = [s.maximum for s in specs]
        return Schema(
            type=OpenAPIType.INTEGER,
            minimum=None if None in lows else min(x for x in lows if x is not None),
            maximum=None if None in highs else max(x for x in highs if x is not None),
        )
    if kind == "bool":
        return Schema(type=OpenAPIType.BOOLEAN)
    if kind == "choice":
        choices = dict.fromkeys(c for s in specs for c in s.choices or ())
        return Schema(type=OpenAPIType.STRING, enum=list(choices))
    decks = ", ".join(dict.fromkeys(str(s.deck) for s in specs))
    return Schema(type=OpenAPIType.STRING, description=f"card codes of the {decks} deck")


def game_options() -> list[OpenAPIParameter]:
    """Every registered game's flat options as optional query parameters (for the docs)."""
    seen: dict[str, list[tuple[str, ParameterSpec]]] = {}
    for name, cls in GAMES.items():
        for spec in cls.parameters():
            if spec.name not in OWN_PARAMETERS:
                seen.setdefault(spec.name, []).append((name, spec))
    return [
        OpenAPIParameter(
            name=option,
            param_in="query",
            required=False,
            schema=_option_schema([spec for _, spec in uses]),
            description="; ".join(f"{game}: {spec.help}" for game, spec in uses)
            + " (given more than once: an axis of the table)",
        )
        for option, uses in seen.items()
    ]


@dataclass
class OddsOperation(Operation):
    """The operation with the games' options as documented query parameters."""

    def __post_init__(self) -> None:
        self.parameters = [*(self.parameters or []), *game_options()]


class OddsController(Controller):
    path = "/v1/odds"
    tags: ClassVar[list[str]] = ["odds"]  # type: ignore[misc]

    @get(
        "/",
        summary="Success odds of a check (cached)",
        responses=problem_responses(400, 422),
        security=[],
        operation_class=OddsOperation,
        exception_handlers={ValidationException: missing_game_handler},
    )
    async def odds(
        self,
        request: Request[Any, Any, Any],
        game: str = Parameter(description="the game (a name from GET /v1/games)"),
        deals: int = Parameter(default=200, ge=1, le=MAX_DEALS, description="deals per cell"),
        bot: list[str] | None = Parameter(  # noqa: B008 (litestar reads it)
            default=None,
            description="methods: perfect (the solver, which knows the deck) and/or the game's "
            "first bot (GET /v1/games/{name} lists them); default both",
        ),
        seed: int = Parameter(default=0, ge=0, le=2**53 - 1, description="master seed of deals"),
    ) -> Response[OddsBody]:
        """The game's parameters are flat options in the query (their names in ``GET
        /v1/games``; an option given more than once is an axis, at most 8 combinations). For
        each combination and method: successes, trials, rate and a Wilson 95 % interval. The
        first request for a set of parameters computes it (seconds); later ones are cached."""
        ask = read_request(
            game, list(request.query_params.multi_items()), deals=deals, bots=bot, seed=seed
        )
        key = ask.key
        store = request.app.stores.get("odds")
        cached = await store.get(key)
        if cached is not None:
            return Response(json.loads(cached), headers={"X-Cache": "hit", **_CACHING})
        runner: OddsRunner = request.app.state.odds_runner
        result = await runner.table(ask)
        await store.set(key, json.dumps(result), expires_in=ODDS_CACHE_SECONDS)
        return Response(result, headers={"X-Cache": "miss", **_CACHING})


_CACHING = {"Cache-Control": "public, max-age=86400"}
