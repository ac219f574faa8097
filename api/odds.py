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
import dataclasses
import itertools
import json
import logging
import multiprocessing
import re
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypedDict, cast

import anyio
import anyio.to_thread
from litestar import Controller, Request, Response, get
from litestar.exceptions import ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Operation, Schema
from litestar.openapi.spec import Parameter as OpenAPIParameter
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import Parameter
from litestar.stores.base import Store
from sqlalchemy.engine import Engine

import skillcheck.games  # noqa: F401  (registers the built-in and plug-in games)
from api.auth import gm_key_digest
from api.bodies import OddsBody, OddsCellBody
from api.observed import ObservedBody, observed, observed_body
from api.problems import (
    ApiProblem,
    game_names,
    missing_game_handler,
    problem_responses,
    refuse_unknown_cards,
)
from skillcheck.calibrate import choices_of, choose, plan, shipped_choices
from skillcheck.engine import GAMES, Game, ParameterSpec
from skillcheck.errors import ParameterError, UnknownGameError, quoted
from skillcheck.odds import OddsCell, game_from_options, methods_of, odds
from skillcheck.profiles import PROFILE_KEYS, ProfileOdds, gm_odds_of, profile_methods, summary
from skillcheck.schema import check_params, flat_params
from skillcheck.serialization import game_params
from skillcheck.tables import ShippedCell, canonical_key, shipped_cell

__all__ = [
    "MAX_CELLS",
    "MAX_DEALS",
    "MAX_JOBS",
    "ODDS_CACHE_SECONDS",
    "OddsController",
    "OddsRequest",
    "OddsRunner",
    "QueueFull",
    "api_methods",
    "complete_answer",
    "read_request",
    "shipped_answer",
]

logger = logging.getLogger("api.odds")

MAX_DEALS = 500
#: Deals a cell for a slow method (the careful player), and its default: minutes, not hours.
SLOW_DEALS = 10
#: Combinations of the axes in one table (each is played ``deals`` times by every method).
MAX_CELLS = 8
#: Results never change for the same parameters; the TTL only bounds the cache's size.
ODDS_CACHE_SECONDS = 30 * 24 * 3600
#: Query parameters of the endpoint itself; every other one is an option of the game.
OWN_PARAMETERS = ("game", "deals", "bot", "seed")
#: Given, they ask for a computed table rather than the shipped one.
PINNING = ("deals", "bot", "seed")
#: The query parameters of /v1/calibrate itself (``target`` is the chance, never a game's).
CALIBRATING = ("game", "target", "profile")
#: Deals per value when a calibration is computed (from master seed 0).
CALIBRATION_DEALS = 200
#: Odds tables computed or waiting at once; one more is refused with 429.
MAX_JOBS = 4
#: Seconds a client waits before polling a running table again, and before retrying a full
#: queue.
POLL_SECONDS = 2
QUEUE_RETRY_SECONDS = 10
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
    """The methods a request plays by default: the harness's default pair (perfect play when
    the game has a solver, then its first bot)."""
    return methods_of(game)[:2]


def slow_methods(game: Game[Any]) -> tuple[str, ...]:
    """The methods a GM may also ask for, with at most :data:`SLOW_DEALS` deals a cell: the
    careful player's bot (it plans from what the player sees and takes seconds a deal). The
    other bots are for ``skillcheck odds``."""
    careful = profile_methods(game).get("careful")
    return () if careful is None or careful in api_methods(game) else (careful,)


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


# ---- the answer a GM reads -----------------------------------------------------------------------


class ProfileBody(TypedDict):
    """One player profile's odds: ``careful`` (the game's strong fair bot), ``casual`` (its
    fast fair bot) or ``ceiling`` (perfect play); the rate over ``deals`` deals, its Wilson 95 %
    interval (``low``, ``high``) and the plain words (docs/odds.md gives the thresholds)."""

    profile: Literal["careful", "casual", "ceiling"]
    name: str
    rate: float
    low: float
    high: float
    deals: int
    words: Literal["almost sure", "likely", "even", "hard", "very hard"]


class OddsAnswerCellBody(OddsCellBody):
    """A cell of the table (see ``OddsCellBody``) with the profiles of its parameters and
    what was observed here for them."""

    profiles: list[ProfileBody]
    observed: ObservedBody


class OddsAnswerBody(TypedDict):
    """An odds table (as ``OddsBody``) for a GM: each cell has the player profiles and the
    checks observed here; ``summary`` is one plain sentence; ``source`` says whether the
    numbers come from the tables shipped with the package or were computed."""

    game: str
    params: dict[str, Any]
    axes: dict[str, list[Any]]
    deals: int
    seed: int
    methods: list[str]
    cells: list[OddsAnswerCellBody]
    summary: str
    source: Literal["shipped", "computed"]
    #: The option ``GET /v1/calibrate`` chooses for these options (the game's difficulty:
    #: a quota check's quota, Tri Peaks' peaks...), to leave out of its query; null if none.
    difficulty: str | None


class OddsRunningBody(TypedDict):
    """A table being computed: ``done`` of ``total`` deals played so far."""

    status: Literal["running"]
    done: int
    total: int


class CalibrationChoiceBody(TypedDict):
    """One value of the difficulty parameter: the profile's rate over ``deals`` deals, its
    Wilson 95 % interval and the plain words."""

    value: Any
    rate: float
    low: float
    high: float
    deals: int
    words: Literal["almost sure", "likely", "even", "hard", "very hard"]


class CalibrationBody(TypedDict):
    """Which value of ``parameter`` gives the ``target`` chance for ``profile``: ``best`` is
    the value whose rate is closest, and ``choices`` lists every value (the neighbours too)."""

    game: str
    parameter: str
    target: float
    profile: Literal["careful", "casual", "ceiling"]
    best: Any
    choices: list[CalibrationChoiceBody]
    source: Literal["shipped", "computed"]
    summary: str


def shipped_answer(request: OddsRequest) -> dict[str, Any] | None:
    """The table from the shipped tables, if they hold every cell for every method asked."""
    combos = request.combinations()
    games = [game_from_options(request.game, c) for c in combos]
    found = [shipped_cell(g) for g in games]
    if any(f is None for f in found):
        return None
    by_method = {m: p for p, m in profile_methods(games[0]).items()}
    cells: list[dict[str, Any]] = []
    for method in request.methods:
        profile = by_method.get(method)
        for combo, cell in zip(combos, found, strict=True):
            assert cell is not None
            if profile is None or profile not in cell.profiles:
                return None
            successes, deals, undecided = cell.profiles[profile]
            cells.append(OddsCell(combo, method, successes, deals, undecided).to_dict())
    first = found[0]
    assert first is not None
    shown = dataclasses.replace(request, deals=max(c["trials"] for c in cells), seed=first.seed)
    return cast(dict[str, Any], odds_body(shown, cells))


def _profiles(
    game: Game[Any], cells: list[dict[str, Any]], shipped: ShippedCell | None
) -> list[ProfileOdds]:
    """The profiles of one combination: those its cells computed, then the shipped ones the
    cells do not have."""
    by_method = {m: p for p, m in profile_methods(game).items()}
    found: dict[str, ProfileOdds] = {}
    for cell in cells:
        profile = by_method.get(cell["method"])
        if profile is not None:
            found[profile] = ProfileOdds(profile, cell["successes"], cell["trials"])
    for profile, (successes, deals, _) in (shipped.profiles if shipped else {}).items():
        found.setdefault(profile, ProfileOdds(profile, successes, deals))
    return [found[k] for k in PROFILE_KEYS if k in found]


def complete_answer(
    request: OddsRequest, table: dict[str, Any], source: str, engine: Engine
) -> OddsAnswerBody:
    """The table with each cell's profiles and observed checks and the one-sentence summary
    (of the first combination, named when there are several)."""
    combos = request.combinations()
    games = [game_from_options(request.game, c) for c in combos]
    keys = [canonical_key(g) for g in games]
    seen = observed(engine, request.game, keys)
    profiles = []
    for combo, game in zip(combos, games, strict=True):
        mine = [c for c in table["cells"] if c["params"] == combo]
        profiles.append(_profiles(game, mine, shipped_cell(game)))
    cells = []
    for cell in table["cells"]:
        index = combos.index(cell["params"])
        cells.append({
            **cell,
            "profiles": [p.to_dict() for p in profiles[index]],
            "observed": observed_body(*seen[keys[index]]),
        })  # fmt: skip
    sentence = summary(profiles[0])
    if request.axes:
        named = ", ".join(f"{k} {combos[0][k]}" for k in request.axes)
        sentence = f"With {named}: {sentence[0].lower()}{sentence[1:]}"
    answer = {
        **table,
        "cells": cells,
        "summary": sentence,
        "source": "shipped" if source == "shipped" else "computed",
        "difficulty": _difficulty_of(request.game, combos[0]),
    }
    return cast(OddsAnswerBody, answer)


def _difficulty_of(game: str, options: dict[str, Any]) -> str | None:
    """The option calibrating chooses for ``options`` (None if the game has none for them)."""
    declared = gm_odds_of(game).difficulty
    try:
        return None if declared is None else declared(options).parameter
    except ParameterError:
        return None


class OddsJob:
    """One table being computed: its request and progress (deals played of all)."""

    def __init__(self, request: OddsRequest) -> None:
        self.request = request
        self.done = 0
        self.total = len(request.combinations()) * request.deals
        self.task: asyncio.Task[None] | None = None

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def body(self) -> OddsRunningBody:
        return {"status": "running", "done": self.done, "total": self.total}


class OddsRunner:
    """Computes odds tables in the background, in a worker process, one job per table.

    Identical requests share one job (by the request's key); at most ``max_jobs`` jobs wait or
    run at once, and one more is refused (:class:`QueueFull`). A finished table goes into the
    ``odds`` store, where the next request for it finds it; the job is then forgotten."""

    def __init__(self, workers: int = 1, max_jobs: int = MAX_JOBS) -> None:
        self.workers = workers
        self.max_jobs = max_jobs
        #: Jobs ever started by this runner (a deduplicated request starts none).
        self.started = 0
        self.jobs: dict[str, OddsJob] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        #: The threads that wait on the worker process, one per job. Not the handlers' threads
        #: (``Settings.threads``): a job holds its thread for the whole table, and jobs there
        #: would keep every other request waiting until they end.
        self._limiter: anyio.CapacityLimiter | None = None

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:  # two tables computed at once (in two threads) share one pool
            if self._pool is None:
                # spawn: forking a process that runs threads and an event loop is unsafe
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            return self._pool

    def submit(self, request: OddsRequest, store: Store) -> OddsJob:
        """The job computing ``request``'s table: the running one, or a new one."""
        key = request.key
        job = self.jobs.get(key)
        if job is not None:
            return job
        if len(self.jobs) >= self.max_jobs:
            raise QueueFull(len(self.jobs))
        job = OddsJob(request)
        self.jobs[key] = job
        self.started += 1
        job.task = asyncio.get_running_loop().create_task(self._run(job, store))
        return job

    async def _run(self, job: OddsJob, store: Store) -> None:
        key = job.request.key
        try:
            if self._limiter is None:  # made in the event loop that runs the jobs
                self._limiter = anyio.CapacityLimiter(self.max_jobs)
            result = await anyio.to_thread.run_sync(self._compute, job, limiter=self._limiter)
            await store.set(key, json.dumps(result), expires_in=ODDS_CACHE_SECONDS)
        except Exception:  # the next request for it starts again
            logger.exception("odds job %s failed", key)
        finally:
            self.jobs.pop(key, None)

    def _compute(self, job: OddsJob) -> OddsBody:
        request = job.request
        table = odds(
            request.game,
            request.params,
            request.axes,
            methods=request.methods,
            deals=request.deals,
            seed=request.seed,
            executor=self._executor(),
            progress=job.progress,
        )
        return odds_body(request, [c.to_dict() for c in table.cells])

    def shutdown(self) -> None:
        for job in list(self.jobs.values()):
            if job.task is not None:
                job.task.cancel()
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(cancel_futures=True)


class QueueFull(Exception):
    """Every place in the odds queue is taken."""

    def __init__(self, jobs: int) -> None:
        super().__init__(f"{jobs} odds tables are being computed")
        self.jobs = jobs


# ---- reading the query ---------------------------------------------------------------------------


def _value(spec: ParameterSpec, text: str) -> Any:
    """One query value as the option's kind (strictly: ``5`` is a number, ``five`` is not)."""
    if spec.kind == "int":
        if not _WHOLE_NUMBER.fullmatch(text.strip()):
            raise ParameterError(
                spec.name,
                f"{spec.name} {quoted(text)} is not allowed: {spec.name} is a whole number",
            )
        return int(text)
    if spec.kind == "bool":
        if text.strip().lower() not in ("true", "false"):
            raise ParameterError(
                spec.name,
                f"{spec.name} {quoted(text)} is not allowed: {spec.name} is true or false",
            )
        return text.strip().lower() == "true"
    if spec.kind == "cards":
        return text.replace(",", " ").split()
    return text


def read_options(
    game: str, query: list[tuple[str, str]]
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The game's options in a query, read strictly by their kinds: those given once (fixed)
    and those given more than once (axes); raises :class:`ParameterError` naming the option."""
    if game not in GAMES:
        raise UnknownGameError(f"unknown game {quoted(game)}: the games are {game_names()}")
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
                f"unknown option {quoted(name)}: the options of {game} are {', '.join(specs)} "
                f"(and {', '.join(OWN_PARAMETERS)})",
            )
        value = _value(spec, text)
        if value not in values.setdefault(name, []):
            values[name].append(value)
    for name, given in values.items():  # an unknown card is refused naming its option
        for value in given:
            refuse_unknown_cards(cls, {name: value})
    fixed = {k: v[0] for k, v in values.items() if len(v) == 1}
    axes = {k: v for k, v in values.items() if len(v) > 1}
    return fixed, axes


def read_request(
    game: str,
    query: list[tuple[str, str]],
    *,
    deals: int,
    bots: list[str] | None,
    seed: int,
    deals_given: bool = True,
) -> OddsRequest:
    """The table a query asks for, every cell checked by the game (strictly, then by its own
    rules) before anything is played; raises :class:`ParameterError` naming the option."""
    fixed, axes = read_options(game, query)
    cls = GAMES[game]
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
    quick, slow = api_methods(first), slow_methods(first)
    allowed = quick + slow
    methods = tuple(dict.fromkeys(bots or quick))
    if not methods or any(m not in allowed for m in methods):
        raise ParameterError(
            "bot",
            f"bot must be among {', '.join(allowed)} for {game} (other methods take too long "
            f"for a request: use `skillcheck odds {game} --bot NAME`), not {', '.join(methods)}",
        )
    if any(m in slow for m in methods):
        if not deals_given:
            deals = SLOW_DEALS
        elif deals > SLOW_DEALS:
            raise ParameterError(
                "deals",
                f"the careful player ({', '.join(m for m in methods if m in slow)}) takes "
                f"seconds a deal: at most {SLOW_DEALS} deals a cell here, not {deals} (use "
                f"`skillcheck odds {game} --bot NAME` for more)",
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


@dataclass
class CalibrateOperation(Operation):
    """The operation with the games' options (but those calibrating names itself) as
    documented query parameters."""

    def __post_init__(self) -> None:
        options = [p for p in game_options() if p.name not in CALIBRATING]
        self.parameters = [*(self.parameters or []), *options]


#: What both computed answers declare: a 202 while a job runs, anonymous or GM security (a
#: key only to compute), the problems, and the missing-game answer.
_COMPUTED_ROUTE: dict[str, Any] = {
    "responses": {
        202: ResponseSpec(
            data_container=OddsRunningBody,
            description="Being computed (GM key only): poll the same URL after the "
            "Retry-After header's seconds until it answers 200",
            generate_examples=False,
        ),
        **problem_responses(400, 401, 403, 422),
    },
    "security": [{}, {"bearer": []}],
    "exception_handlers": {ValidationException: missing_game_handler},
}


class OddsController(Controller):
    path = "/v1"
    tags: ClassVar[list[str]] = ["odds"]  # type: ignore[misc]

    @get(
        "/odds",
        summary="Success odds of a check, for a GM",
        **_COMPUTED_ROUTE,
        operation_class=OddsOperation,
    )
    async def odds(
        self,
        request: Request[Any, Any, Any],
        game: str = Parameter(description="the game (a name from GET /v1/games)"),
        deals: int = Parameter(default=200, ge=1, le=MAX_DEALS, description="deals per cell"),
        bot: list[str] | None = Parameter(  # noqa: B008 (litestar reads it)
            default=None,
            description="methods: perfect (the solver, which knows the deck) and/or the game's "
            "first bot, default both; or the careful player's bot (GET /v1/games/{name}: "
            f"profiles.careful), at most {SLOW_DEALS} deals a cell, {SLOW_DEALS} by default",
        ),
        seed: int = Parameter(default=0, ge=0, le=2**53 - 1, description="master seed of deals"),
    ) -> Response[OddsAnswerBody]:
        """The game's parameters are flat options in the query (their names in ``GET
        /v1/games``; an option given more than once is an axis, at most 8 combinations). Each
        cell carries the player profiles (careful, casual, ceiling) in plain words, and what
        was observed on this server; ``summary`` is one sentence for the GM.

        Parameters in the tables shipped with the package (when ``deals``, ``seed`` and
        ``bot`` are not given) and tables computed before answer 200 at once, to anyone.
        Anything else is computed in the background for a GM key only (401 without): 202 with
        the progress and ``Retry-After``; poll the same URL until 200. When the queue is full:
        429 with ``Retry-After``."""
        query = list(request.query_params.multi_items())
        given = {name for name, _ in query}
        ask = read_request(game, query, deals=deals, bots=bot, seed=seed,
                           deals_given="deals" in given)  # fmt: skip
        pinned = any(name in PINNING for name, _ in query)
        store = request.app.stores.get("odds")
        table: dict[str, Any] | None = None if pinned else shipped_answer(ask)
        cache = "shipped"
        if table is None:
            cache = "hit"
            cached = await store.get(ask.key)
            table = json.loads(cached) if cached is not None else None
        if table is None:
            return await _running(request, ask, store)
        runtime = request.app.state.runtime
        answer = await anyio.to_thread.run_sync(
            complete_answer, ask, table, cache, runtime.store.config.get_engine()
        )
        return Response(answer, headers={"X-Cache": cache, **_CACHING})

    @get(
        "/calibrate",
        summary="Which difficulty gives the wanted chance",
        **_COMPUTED_ROUTE,
        operation_class=CalibrateOperation,
    )
    async def calibrate(
        self,
        request: Request[Any, Any, Any],
        game: str = Parameter(description="the game (a name from GET /v1/games)"),
        target: float = Parameter(
            ge=0, le=1, description="the wanted chance of success, from 0 to 1 (0.6 is 60 %)"
        ),
        profile: Literal["careful", "casual", "ceiling"] = Parameter(
            default="casual", description="who plays: careful, casual or the ceiling"
        ),
    ) -> Response[CalibrationBody]:
        """Which value of the game's difficulty parameter (a quota check's quota, the standard
        game's level, Tri Peaks' peaks...: ``parameter`` in the answer) gives the ``target``
        chance for the profile, the other options fixed in the query; with every value's
        odds, so the neighbouring choices show. The shipped tables answer at once; anything
        else is computed like ``GET /v1/odds`` (GM key, 202 and polling, 429 when full)."""
        query = [(n, v) for n, v in request.query_params.multi_items() if n not in CALIBRATING]
        for name, _ in query:
            if name in OWN_PARAMETERS and name != "game":
                raise ParameterError(
                    name, f"{name} is not an option of /v1/calibrate: it uses the shipped "
                    "tables or 200 deals from seed 0",
                )  # fmt: skip
        fixed, axes = read_options(game, query)
        if axes:
            axis = next(iter(axes))
            raise ParameterError(axis, f"{axis} is given more than once: give each option once")
        chosen = plan(game, target, profile, fixed)
        cls = GAMES[game]
        for options in chosen.cells:  # strict types, as /v1/odds checks them
            check_params(cls, cls.params_from_options(options))
        found = shipped_choices(chosen)
        cache = "shipped"
        if found is None:
            first = game_from_options(game, chosen.cells[0])
            if chosen.method not in api_methods(first):
                raise ParameterError(
                    "profile", f"the {profile} player of {first.title} is known here only for "
                    "the shipped tables (it takes seconds a deal): use `skillcheck calibrate "
                    f"{game} --profile {profile}` for these options",
                )  # fmt: skip
            parameter = chosen.difficulty.parameter
            ask = OddsRequest(
                game, chosen.fixed, {parameter: list(chosen.values)}, CALIBRATION_DEALS,
                (chosen.method,), 0,
            )  # fmt: skip
            store = request.app.stores.get("odds")
            cached = await store.get(ask.key)
            if cached is None:
                return await _running(request, ask, store)
            found = choices_of(json.loads(cached)["cells"], parameter)
            cache = "hit"
        answer = choose(chosen, target, found, "shipped" if cache == "shipped" else "computed")
        return Response(
            cast(CalibrationBody, answer.to_dict()), headers={"X-Cache": cache, **_CACHING}
        )


async def _running(
    request: Request[Any, Any, Any], ask: OddsRequest, store: Store
) -> Response[Any]:
    """Start (or join) the background job of ``ask`` for a GM: 202 with its progress."""
    runtime = request.app.state.runtime
    # 401 without a token or with one that is nobody's, 403 with a check's (a database read)
    await anyio.to_thread.run_sync(gm_key_digest, request, runtime.settings, runtime.store)
    runner: OddsRunner = request.app.state.odds_runner
    try:
        job = runner.submit(ask, store)
    except QueueFull as exc:
        raise ApiProblem(
            429,
            "odds-queue-full",
            f"{exc.jobs} odds tables are being computed, the most this server queues: retry "
            f"in {QUEUE_RETRY_SECONDS} s",
            headers={"Retry-After": str(QUEUE_RETRY_SECONDS)},
        ) from None
    return Response(
        job.body(),
        status_code=202,
        headers={"Retry-After": str(POLL_SECONDS), "Cache-Control": "no-store"},
    )


_CACHING = {"Cache-Control": "public, max-age=60"}
