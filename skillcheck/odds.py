"""Odds of any game's checks over seeded deals, with Wilson confidence intervals.

A table fixes some parameters, varies others along axes (every combination is a cell) and plays
the same deals in every cell with every method (common random numbers, so cells compare
fairly). A method is ``perfect`` (the game's exact solver with the true cards: an upper bound no
player reaches; deals it cannot decide within its budget count as failures and are reported as
``undecided``) or the name of one of the game's fair bots.

Each cell keeps its parameters (flat options, as :meth:`Game.params_from_options` reads them),
``method``, ``successes``, ``trials``, ``undecided``, ``rate``, ``ci95_low`` and ``ci95_high``.
Work goes to any :class:`concurrent.futures.Executor` (a process pool by default).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

from attrs import frozen

from skillcheck.engine import Game, game_class
from skillcheck.errors import ParameterError, quoted
from skillcheck.rng import MAX_SEED, Pcg32

__all__ = [
    "PERFECT",
    "PERFECT_PLAY_STATES",
    "OddsCell",
    "OddsTable",
    "deal_seeds",
    "game_from_options",
    "methods_of",
    "odds",
    "wilson_interval",
]

PERFECT = "perfect"
Z95 = 1.959963984540054
#: Perfect play's budget per deal, in positions (deterministic, unlike seconds).
PERFECT_PLAY_STATES = 5_000_000

Progress = Callable[[int, int], None]
T = TypeVar("T")
K = TypeVar("K")


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95 % by default); it always holds
    the observed rate (rounding could put an end a hair past it)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or a :class:`ParameterError` saying how to
    install it (``pip install 'skillcheck[plots]'``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ParameterError(
            "png", "writing a picture needs matplotlib: pip install 'skillcheck[plots]'"
        ) from None
    return plt


def deal_seeds(seed: int, count: int) -> list[int]:
    """``count`` deal seeds derived from one master seed (PCG32, stream 55)."""
    rng = Pcg32(seed, 55)
    return [((rng.next_u32() << 21) ^ rng.next_u32()) & MAX_SEED for _ in range(count)]


def game_from_options(name: str, options: Mapping[str, Any]) -> Game[Any]:
    """A game from flat options (a CLI's, a query string's, an odds cell's). An option that is
    none of the game's parameters (``{"card": 5}`` for ``cards``) is refused with a
    :class:`ParameterError` naming it and the game's options, never dropped."""
    from skillcheck.serialization import game_from_params

    cls = game_class(name)
    cls.refuse_unknown_options(options)
    game: Game[Any] = game_from_params(name, cls.params_from_options(options))
    return game


def methods_of(game: Game[Any]) -> tuple[str, ...]:
    """The methods a table of ``game`` may use: ``perfect`` if it has a solver, then its bots."""
    perfect = (PERFECT,) if game.solver() is not None else ()
    return perfect + tuple(game.bots())


@frozen
class OddsCell:
    params: dict[str, Any]
    method: str
    successes: int
    trials: int
    undecided: int = 0

    @property
    def rate(self) -> float:
        return self.successes / self.trials if self.trials else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.trials)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "params": dict(self.params),
            "method": self.method,
            "successes": self.successes,
            "trials": self.trials,
            "undecided": self.undecided,
            "rate": round(self.rate, 6),
            "ci95_low": round(low, 6),
            "ci95_high": round(high, 6),
        }


@frozen
class OddsTable:
    """The result of :func:`odds`: the fixed parameters, the axes and one cell per combination
    and method."""

    game: str
    fixed: dict[str, Any]
    axes: dict[str, tuple[Any, ...]]
    deals: int
    seed: int
    methods: tuple[str, ...]
    cells: tuple[OddsCell, ...]

    def cell(self, method: str, **params: Any) -> OddsCell | None:
        for c in self.cells:
            if c.method == method and all(c.params.get(k) == v for k, v in params.items()):
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "fixed": dict(self.fixed),
            "axes": {k: list(v) for k, v in self.axes.items()},
            "deals": self.deals,
            "seed": self.seed,
            "methods": list(self.methods),
            "cells": [c.to_dict() for c in self.cells],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_csv(self) -> str:
        names = list(self.axes) + [k for k in self.fixed if k not in self.axes]
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(
            [*names, "method", "successes", "trials", "undecided", "rate", "ci95_low", "ci95_high"]
        )
        for c in self.cells:
            row = c.to_dict()
            writer.writerow(
                [c.params.get(n) for n in names]
                + [row[k] for k in ("method", "successes", "trials", "undecided", "rate")]
                + [row["ci95_low"], row["ci95_high"]]
            )
        return buffer.getvalue()


def play_once(
    game: Game[Any], method: str, deal_seed: int, solver_states: int
) -> tuple[bool, bool]:
    """(success, undecided) of one deal played by one method."""
    if method == PERFECT:
        solver = game.solver()
        if solver is None:
            raise ParameterError("method", f"{game.title} has no solver: perfect play is unknown")
        solution = solver.solve(game.new_state(deal_seed), max_states=solver_states)
        limit = game.move_limit
        if solution.result == "win" and limit is not None and len(solution.moves) > limit:
            # a solver may ignore the move limit: its line proves nothing about this check
            return False, True
        return solution.result == "win", solution.result == "unknown"
    from skillcheck.solving import autoplay

    outcome = autoplay(game, method, deal_seed).outcome
    assert outcome is not None
    return outcome.success, False


def run_jobs(
    task: Callable[..., T],
    jobs: Sequence[tuple[Any, ...]],
    executor: Executor | None,
    progress: Progress | None,
) -> Iterator[tuple[int, T]]:
    """Run ``task(*job)`` for every job on ``executor`` (a process pool with one worker per core
    when None, shut down afterwards); yields (job index, result) as they finish and reports
    progress after each."""
    own = executor is None
    pool = executor or ProcessPoolExecutor(max_workers=os.cpu_count() or 1)
    try:
        futures = {pool.submit(task, *job): i for i, job in enumerate(jobs)}
        for done, future in enumerate(as_completed(futures), 1):
            yield futures[future], future.result()
            if progress is not None:
                progress(done, len(futures))
    finally:
        if own:
            pool.shutdown(cancel_futures=True)


def add_result(tally: dict[K, list[int]], key: K, success: bool, undecided: bool) -> None:
    """Count one game in ``tally[key]`` = [successes, trials, undecided]."""
    counts = tally.setdefault(key, [0, 0, 0])
    counts[0] += success
    counts[1] += 1
    counts[2] += undecided


def _task(
    name: str, options: dict[str, Any], deal_seed: int, methods: tuple[str, ...], states: int
) -> list[tuple[str, bool, bool]]:
    game = game_from_options(name, options)
    return [(m, *play_once(game, m, deal_seed, states)) for m in methods]


def odds(
    name: str,
    fixed: Mapping[str, Any] | None = None,
    axes: Mapping[str, Sequence[Any]] | None = None,
    *,
    methods: Sequence[str] | None = None,
    deals: int = 200,
    seed: int = 0,
    executor: Executor | None = None,
    progress: Progress | None = None,
    solver_states: int = PERFECT_PLAY_STATES,
    skip_invalid: bool = False,
) -> OddsTable:
    """Success rates of game ``name`` for every combination of ``axes`` over ``deals`` deals.

    Parameters are flat options (``{"suit": "moons", "skill": 5}``). Every cell is validated
    before any deal is played, so a bad parameter fails at once with the game's own message;
    with ``skip_invalid`` a grid leaves out the combinations the game refuses (a quota above the
    skill) and fails only if none is left.
    ``executor=None`` uses a process pool with one worker per core; pass
    ``concurrent.futures.ThreadPoolExecutor(1)``-like executors to run elsewhere.
    """
    fixed = dict(fixed or {})
    grid: dict[str, tuple[Any, ...]] = {k: tuple(dict.fromkeys(v)) for k, v in (axes or {}).items()}
    for key, values in grid.items():
        if not values:
            raise ParameterError(key, f"the axis {key} has no values: give at least one")
    if deals < 1:
        raise ParameterError("deals", f"deals {deals} is not allowed: deals must be at least 1")
    combos = [
        {**fixed, **dict(zip(grid, values, strict=True))}
        for values in itertools.product(*grid.values())
    ]
    games, valid = [], []
    first_error: ParameterError | None = None
    for combo in combos:  # validates every cell up front
        try:
            games.append(game_from_options(name, combo))
            valid.append(combo)
        except ParameterError as exc:
            if not skip_invalid:
                raise
            first_error = first_error or exc
    if not games:
        assert first_error is not None
        raise first_error
    combos = valid
    allowed = methods_of(games[0])
    chosen = tuple(dict.fromkeys(methods if methods is not None else allowed[:2]))
    unknown = [m for m in chosen if m not in allowed]
    if unknown or not chosen:
        detail = f"unknown method {quoted(unknown[0])}" if unknown else "give at least one method"
        raise ParameterError(
            "method", f"{detail}: the methods of {games[0].title} are {', '.join(allowed)}"
        )
    seeds = deal_seeds(seed, deals)
    jobs = [(name, c, s, chosen, solver_states) for c in combos for s in seeds]
    tally: dict[tuple[int, str], list[int]] = {}
    for job, results in run_jobs(_task, jobs, executor, progress):
        for method, success, undecided in results:
            add_result(tally, (job // deals, method), success, undecided)
    cells = [
        OddsCell(combos[index], method, *tally[(index, method)])
        for method in chosen
        for index in range(len(combos))
    ]
    return OddsTable(name, fixed, grid, deals, seed, chosen, tuple(cells))
