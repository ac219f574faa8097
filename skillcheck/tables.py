"""Odds tables shipped with the package, so common checks answer without computing.

Each game declares its shipped grids in its own ``odds.py`` (:func:`skillcheck.profiles.
register_gm_odds`); :func:`generate` plays them through the odds harness's own per-deal task
(:func:`skillcheck.odds.play_once`, the deals of :func:`skillcheck.odds.deal_seeds`), so a cell
recomputed with :func:`skillcheck.odds.odds` from the same seed and deals gives the same
numbers. A game's tables live in its own folder, in the file its ``register_gm_odds`` names
(``skillcheck/games/<game>/odds_tables.json``, package data); ``skillcheck odds-tables
--regenerate`` rewrites them.

Within a grid every profile plays the first ``deals[profile]`` deals of the same seeded list
(common random numbers: profiles and cells compare fairly). Cells are looked up by their
*canonical* options: the game built from them, written back as flat options with every default
filled in, less the options the game declared ``neutral`` (they never change the odds), so
``suit=moons&skill=5&quota=4`` finds the cell stored as level 9, 5 spaces.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from functools import cache
from pathlib import Path
from typing import Any

from attrs import frozen

from skillcheck.engine import GAMES, Game
from skillcheck.errors import ParameterError, quoted
from skillcheck.odds import (
    PERFECT_PLAY_STATES,
    add_result,
    deal_seeds,
    game_from_options,
    play_once,
    run_jobs,
)
from skillcheck.profiles import ShippedGrid, gm_odds_of, profile_methods
from skillcheck.schema import flat_params
from skillcheck.serialization import game_params

__all__ = [
    "FORMAT",
    "ShippedCell",
    "canonical_key",
    "canonical_options",
    "generate",
    "grid_cells",
    "shipped_cell",
    "shipped_table",
    "table_file",
    "write_table",
]

FORMAT = 1
Progress = Callable[[str, int, int], None]


def table_file(name: str, directory: Path | None = None) -> Path | None:
    """Where game ``name``'s shipped tables are: ``<directory>/<name>.json`` if a directory is
    given, else the file the game declared (None for a game that ships none)."""
    if directory is not None:
        return directory / f"{name}.json"
    return gm_odds_of(name).tables


def canonical_options(game: Game[Any]) -> dict[str, Any]:
    """The game's flat options, every default filled in, less the game's neutral options."""
    neutral = gm_odds_of(game.name).neutral
    flat = flat_params(type(game), game_params(game))
    return {k: v for k, v in flat.items() if k not in neutral}


def canonical_key(game: Game[Any]) -> str:
    """A cell's lookup key (canonical options as compact, sorted JSON)."""
    return json.dumps(
        {"game": game.name, **canonical_options(game)}, sort_keys=True, separators=(",", ":")
    )


def grid_cells(name: str, grid: ShippedGrid) -> list[dict[str, Any]]:
    """Every combination of the grid's axes that the game accepts, as flat options, in the
    harness's order."""
    cells = []
    for values in itertools.product(*grid.axes.values()):
        options = {**grid.params, **dict(zip(grid.axes, values, strict=True))}
        try:
            game_from_options(name, options)
        except ParameterError:
            continue
        cells.append(options)
    return cells


def _grid_data(grid: ShippedGrid, deals: Mapping[str, int]) -> dict[str, Any]:
    return {
        "name": grid.name,
        "params": dict(grid.params),
        "axes": {k: list(v) for k, v in grid.axes.items()},
        "seed": grid.seed,
        "deals": dict(deals),
    }


def _play(
    name: str, options: dict[str, Any], seed: int, methods: tuple[str, ...], states: int
) -> list[tuple[str, bool, bool]]:
    game = game_from_options(name, options)
    return [(m, *play_once(game, m, seed, states)) for m in methods]


def generate_grid(
    name: str,
    grid: ShippedGrid,
    *,
    deals: Mapping[str, int] | None = None,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    solver_states: int = PERFECT_PLAY_STATES,
    previous: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One grid's table: for each cell, each profile's [successes, deals, undecided].

    ``deals`` replaces the grid's declared deals per profile (0 leaves a profile out).
    ``previous`` is this grid as an earlier run wrote it (same options, seed and solver
    budget): its deals are kept and only the deals beyond them are played, so a table grows
    finer without replaying what it has (the deals of a seed are a fixed list, so the result
    is the same as playing them all at once). A profile it has more deals of keeps them."""
    chosen = {**grid.deals, **(deals or {})}
    cells = grid_cells(name, grid)
    if not cells:
        raise ParameterError("grid", f"the grid {grid.name!r} of {name} has no valid cell")
    methods = profile_methods(game_from_options(name, cells[0]))
    tally: dict[tuple[int, str], list[int]] = {}
    start: dict[str, int] = {}
    if previous is not None and [c["options"] for c in previous["cells"]] == cells:
        start = {p: n for p, n in previous["deals"].items() if p in methods}
        for index, cell in enumerate(previous["cells"]):
            for profile in start:
                tally[(index, profile)] = list(cell["profiles"][profile])
    counts = {p: max(n, start.get(p, 0)) for p, n in chosen.items() if n > 0 and p in methods}
    counts.update({p: n for p, n in start.items() if p not in counts})
    seeds = deal_seeds(grid.seed, max(counts.values(), default=0))
    jobs: list[tuple[Any, ...]] = []
    where: list[tuple[int, tuple[str, ...]]] = []
    for index, options in enumerate(cells):
        for i, seed in enumerate(seeds):
            playing = tuple(p for p, n in counts.items() if start.get(p, 0) <= i < n)
            if playing:
                played = tuple(methods[p] for p in playing)
                jobs.append((name, options, seed, played, solver_states))
                where.append((index, playing))
    for job, results in run_jobs(_play, jobs, executor, progress):
        index, playing = where[job]
        for profile, (_method, success, undecided) in zip(playing, results, strict=True):
            add_result(tally, (index, profile), success, undecided)
    return {
        **_grid_data(grid, counts),
        "cells": [
            {
                "options": options,
                "profiles": {p: tally.get((i, p), [0, 0, 0]) for p in counts},
            }
            for i, options in enumerate(cells)
        ],
    }


def write_table(path: Path, table: Mapping[str, Any]) -> None:
    """Write a table file atomically (a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def generate(
    name: str,
    *,
    deals: Mapping[str, int] | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
    out: Path | None = None,
    extend: bool = False,
    solver_states: int = PERFECT_PLAY_STATES,
) -> dict[str, Any]:
    """Compute every shipped grid of game ``name`` and write its table (the game's own file,
    or ``<out>/<name>.json``) after each grid (so a long run keeps what it finished).
    ``extend`` keeps what the file already holds for a grid of the same options, seed and
    solver budget and plays only the deals it lacks (:func:`generate_grid`).
    ``progress(grid, done, total)`` follows each grid."""
    if name not in GAMES:
        raise ParameterError(
            "game", f"unknown game {quoted(name)}: the games are {', '.join(GAMES)}"
        )
    grids = gm_odds_of(name).grids
    if not grids:
        raise ParameterError("game", f"{name} declares no shipped odds tables")
    path = table_file(name, out)
    assert path is not None  # a game with grids names its file (register_gm_odds)
    old: dict[str, Any] = {}
    if extend and path.exists():
        kept = json.loads(path.read_text(encoding="utf-8"))
        if kept.get("format") == FORMAT and kept.get("solver_states") == solver_states:
            old = {g["name"]: g for g in kept["grids"]}
    table: dict[str, Any] = {
        "game": name,
        "format": FORMAT,
        "solver_states": solver_states,
        "grids": [],
    }
    for grid in grids:
        previous = old.get(grid.name)
        if previous is not None and not _same_grid(previous, grid):
            previous = None

        def report(done: int, total: int, grid_name: str = grid.name) -> None:
            if progress is not None:
                progress(grid_name, done, total)

        computed = generate_grid(
            name, grid, deals=deals, executor=executor, progress=report,
            solver_states=solver_states, previous=previous,
        )  # fmt: skip
        table["grids"].append(computed)
        write_table(path, table)
    write_table(path, table)
    shipped_table.cache_clear()
    return table


def _same_grid(data: Mapping[str, Any], grid: ShippedGrid) -> bool:
    """True if a grid already in a file has the options and seed of ``grid``."""
    declared = _grid_data(grid, {})
    return all(data.get(k) == declared[k] for k in ("params", "axes", "seed"))


@frozen
class ShippedCell:
    """One shipped cell: its options, the grid it belongs to and each profile's
    (successes, deals, undecided)."""

    options: dict[str, Any]
    grid: str
    seed: int
    solver_states: int
    profiles: dict[str, tuple[int, int, int]]


@cache
def shipped_table(name: str, directory: Path | None = None) -> dict[str, ShippedCell]:
    """Game ``name``'s shipped cells by :func:`canonical_key` (empty if it ships none); from
    ``<directory>/<name>.json`` if a directory is given."""
    path = table_file(name, directory) if name in GAMES else None
    if path is None or not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, ShippedCell] = {}
    for grid in data["grids"]:
        for cell in grid["cells"]:
            game = game_from_options(name, cell["options"])
            found.setdefault(
                canonical_key(game),
                ShippedCell(
                    cell["options"],
                    grid["name"],
                    grid["seed"],
                    data["solver_states"],
                    {p: (c[0], c[1], c[2]) for p, c in cell["profiles"].items()},
                ),
            )
    return found


def shipped_cell(game: Game[Any]) -> ShippedCell | None:
    """The shipped cell of ``game``'s parameters, if one was shipped."""
    return shipped_table(game.name).get(canonical_key(game))


def iter_grids(names: Sequence[str] | None = None) -> Iterator[tuple[str, ShippedGrid]]:
    """Every declared grid of the named games (all games when None)."""
    for name in names or list(GAMES):
        for grid in gm_odds_of(name).grids:
            yield name, grid
