"""Odds of Three Towers checks: the game's presets and its two specialised tables.

The generic harness (:mod:`skillcheck.odds`) plays any cell of any game. The two tables here are
Three Towers' own, kept because they are faster than the harness for their grids: a quota
table plays each deal once per skill and searches quotas downwards (perfect play that reaches
quota q has passed quota q - 1), and both keep the shape docs/odds.md and the API report.

Two tables: quota checks for every (skill, quota) of one suit, and the standard game's win rate
per level. Within a table the same deals are used for every cell and every method (common random
numbers), so cells are comparable. ``perfect`` is the exact solver with the true deck order (an
upper bound no player reaches; deals it cannot decide within its budget are counted as failures
and reported as ``undecided``); ``fast`` and ``strong`` are the fair bots.

Work is split into one task per deal (and skill) and sent to any
:class:`concurrent.futures.Executor`: a process pool with one worker per core by default, or a
Dask/Ray executor for a cluster.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from attrs import frozen

from skillcheck.cards import Suit
from skillcheck.errors import ParameterError
from skillcheck.games.three_towers.rules import ThreeTowers
from skillcheck.odds import (
    PERFECT_PLAY_STATES,
    add_result,
    deal_seeds,
    pyplot,
    run_jobs,
    wilson_interval,
)
from skillcheck.registry import register_analysis

__all__ = [
    "METHODS",
    "PRESETS",
    "OddsCell",
    "OddsTable",
    "deal_seeds",
    "quota_odds",
    "standard_odds",
    "wilson_interval",
]

#: ``perfect`` (the solver with the true deck) and the fair bots.
METHODS = ("perfect", "fast", "strong")
Z95 = 1.959963984540054

Progress = Callable[[int, int], None]

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
#: One finished game of a task: (method, level, skill, quota, success, undecided).
Result = tuple[str, int, int | None, int | None, bool, bool]


@frozen
class OddsCell:
    method: str
    level: int
    skill: int | None  # None in the standard game's table
    quota: int | None
    successes: int
    trials: int
    undecided: int  # perfect play only: deals the solver could not decide within its budget

    @property
    def rate(self) -> float:
        return self.successes / self.trials if self.trials else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.trials)


@frozen
class OddsTable:
    """The result of :func:`quota_odds` (``suit`` set) or :func:`standard_odds` (``suit`` None)."""

    suit: Suit | None
    spaces: int
    deals: int
    seed: int
    methods: tuple[str, ...]
    cells: tuple[OddsCell, ...]

    def cell(
        self, method: str, *, level: int | None = None, skill: int | None = None,
        quota: int | None = None,
    ) -> OddsCell | None:  # fmt: skip
        for c in self.cells:
            if c.method == method and all(
                want is None or got == want
                for want, got in ((level, c.level), (skill, c.skill), (quota, c.quota))
            ):
                return c
        return None

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for c in self.cells:
            low, high = c.interval
            out.append({
                "method": c.method, "suit": self.suit.value if self.suit else None,
                "level": c.level, "spaces": self.spaces, "skill": c.skill, "quota": c.quota,
                "successes": c.successes, "trials": c.trials, "undecided": c.undecided,
                "rate": round(c.rate, 6), "ci95_low": round(low, 6), "ci95_high": round(high, 6),
            })  # fmt: skip
        return out

    def to_csv(self) -> str:
        buffer = io.StringIO()
        rows = self.rows()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["method"])
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue()

    def to_json(self) -> str:
        return json.dumps(
            {
                "suit": self.suit.value if self.suit else None, "spaces": self.spaces,
                "deals": self.deals, "seed": self.seed, "methods": list(self.methods),
                "cells": self.rows(),
            },
            indent=2,
        )  # fmt: skip

    def heatmap(self, path: str | Path) -> None:
        """A PNG: one skill × quota heatmap per method (quota tables), or success rate by level
        (standard tables). Needs matplotlib (``pip install 'skillcheck[plots]'``)."""
        plt = pyplot()
        if self.suit is None:
            fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
            for method in self.methods:
                cells = sorted((c for c in self.cells if c.method == method), key=lambda c: c.level)
                levels = [c.level for c in cells]
                rates = [c.rate for c in cells]
                low = [c.rate - c.interval[0] for c in cells]
                high = [c.interval[1] - c.rate for c in cells]
                ax.errorbar(levels, rates, yerr=[low, high], marker="o", capsize=4, label=method)
            ax.set_xticks(sorted({c.level for c in self.cells}))  # levels are whole numbers
            ax.set_xlabel("level")
            ax.set_ylabel("success rate (95 % CI)")
            ax.set_ylim(0, 1)
            ax.legend()
            ax.set_title(f"Three Towers, {self.spaces} spaces, {self.deals} deals per level")
            fig.savefig(path, dpi=110)
            plt.close(fig)
            return
        skills = sorted({c.skill for c in self.cells if c.skill is not None})
        quotas = sorted({c.quota for c in self.cells if c.quota is not None})
        fig, axes = plt.subplots(
            1, len(self.methods), figsize=(4.2 * len(self.methods), 4.0), squeeze=False,
            layout="constrained",
        )  # fmt: skip
        image = None
        for ax, method in zip(axes[0], self.methods, strict=True):
            grid = [[math.nan] * len(quotas) for _ in skills]
            for c in self.cells:
                if c.method == method and c.skill is not None and c.quota is not None:
                    grid[skills.index(c.skill)][quotas.index(c.quota)] = c.rate
            image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", origin="lower", aspect="auto")
            ax.set_xticks(range(len(quotas)), [str(q) for q in quotas])
            ax.set_yticks(range(len(skills)), [str(s) for s in skills])
            ax.set_xlabel("quota")
            ax.set_ylabel("skill")
            ax.set_title(method)
            for i, row in enumerate(grid):
                for j, value in enumerate(row):
                    if not math.isnan(value):
                        ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center",
                                color="black" if value > 0.6 else "white", fontsize=8)  # fmt: skip
        if image is not None:
            fig.colorbar(image, ax=axes[0].tolist(), label="success rate")
        level = self.cells[0].level if self.cells else 0
        fig.suptitle(
            f"Quota checks: {self.suit.value}, level {level}, {self.spaces} spaces, "
            f"{self.deals} deals per cell"
        )
        fig.savefig(path, dpi=110)
        plt.close(fig)


# ---- tasks (top-level functions so a process pool can pickle them) ------------------------------


def _play(game: ThreeTowers, method: str, deal_seed: int, solver_states: int) -> tuple[bool, bool]:
    """(success, undecided) of one game by one method."""
    if method == "perfect":
        from skillcheck.games.three_towers.solver import solve

        solution = solve(game, game.deal(deal_seed), max_states=solver_states)
        return solution.result == "win", solution.result == "unknown"
    from skillcheck.games.three_towers.bots import autoplay, make_bot

    outcome = autoplay(game, make_bot(method), deal_seed).outcome
    assert outcome is not None
    return outcome.success, False


def _quota_task(
    suit: str, level: int, spaces: int, skill: int, quotas: tuple[int, ...], deal_seed: int,
    methods: tuple[str, ...], solver_states: int,
) -> list[Result]:  # fmt: skip
    results: list[Result] = []
    usable = sorted((q for q in quotas if q <= skill), reverse=True)
    for method in methods:
        reached = False  # perfect play: reaching quota q passes through q - 1, so search downwards
        for quota in usable:
            if reached:
                results.append((method, level, skill, quota, True, False))
                continue
            game = ThreeTowers.quota_check(suit, skill, quota, level=level, spaces=spaces)
            success, undecided = _play(game, method, deal_seed, solver_states)
            reached = success and method == "perfect"
            results.append((method, level, skill, quota, success, undecided))
    return results


def _standard_task(
    level: int, spaces: int, deal_seed: int, methods: tuple[str, ...], solver_states: int
) -> list[Result]:
    game = ThreeTowers(level=level, spaces=spaces)
    return [
        (method, level, None, None, *_play(game, method, deal_seed, solver_states))
        for method in methods
    ]


def _run(
    task: Callable[..., list[Result]], jobs: list[tuple[Any, ...]], executor: Executor | None,
    progress: Progress | None,
) -> list[OddsCell]:  # fmt: skip
    tally: dict[tuple[str, int, int | None, int | None], list[int]] = {}
    for _, results in run_jobs(task, jobs, executor, progress):
        for method, level, skill, quota, success, undecided in results:
            add_result(tally, (method, level, skill, quota), success, undecided)
    return [OddsCell(*key, *counts) for key, counts in tally.items()]


def _check_methods(methods: Sequence[str], deals: int) -> tuple[str, ...]:
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ParameterError(
            "bot", f"unknown method {unknown[0]!r}: the methods are {', '.join(METHODS)}"
        )
    if not methods:
        raise ParameterError("bot", f"give at least one method: {', '.join(METHODS)}")
    if deals < 1:
        raise ParameterError("deals", f"deals {deals} is not allowed: deals must be at least 1")
    return tuple(dict.fromkeys(methods))


def quota_odds(
    suit: Suit | str,
    skills: Iterable[int],
    quotas: Iterable[int],
    *,
    level: int = 9,
    spaces: int = 5,
    deals: int = 200,
    methods: Sequence[str] = ("perfect", "fast"),
    seed: int = 0,
    executor: Executor | None = None,
    progress: Progress | None = None,
    solver_states: int = PERFECT_PLAY_STATES,
) -> OddsTable:
    """Success rates of quota checks for every (skill, quota) with quota <= skill."""
    suit = Suit.parse(suit)
    methods = _check_methods(methods, deals)
    skills, quotas = sorted(set(skills)), sorted(set(quotas))
    if not skills or not quotas:
        raise ParameterError("skill", "give at least one skill and one quota")
    for skill in skills:  # validate every parameter up front, with the library's messages
        ThreeTowers.quota_check(suit, skill, min(*quotas, skill), level=level, spaces=spaces)
    jobs = [
        (suit.value, level, spaces, skill, tuple(quotas), s, methods, solver_states)
        for skill in skills
        for s in deal_seeds(seed, deals)
    ]
    cells = _run(_quota_task, jobs, executor, progress)
    order = {m: i for i, m in enumerate(methods)}
    cells.sort(key=lambda c: (order[c.method], c.skill or 0, c.quota or 0))
    return OddsTable(suit, spaces, deals, seed, methods, tuple(cells))


def standard_odds(
    levels: Iterable[int],
    *,
    spaces: int = 5,
    deals: int = 200,
    methods: Sequence[str] = ("perfect", "fast"),
    seed: int = 0,
    executor: Executor | None = None,
    progress: Progress | None = None,
    solver_states: int = PERFECT_PLAY_STATES,
) -> OddsTable:
    """Win rates of the standard game (three full towers) per level."""
    methods = _check_methods(methods, deals)
    levels = sorted(set(levels))
    for level in levels:
        ThreeTowers(level=level, spaces=spaces)
    jobs = [
        (level, spaces, s, methods, solver_states)
        for level in levels
        for s in deal_seeds(seed, deals)
    ]
    cells = _run(_standard_task, jobs, executor, progress)
    order = {m: i for i, m in enumerate(methods)}
    cells.sort(key=lambda c: (order[c.method], c.level))
    return OddsTable(None, spaces, deals, seed, methods, tuple(cells))
