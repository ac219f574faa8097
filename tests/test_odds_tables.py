"""The odds tables shipped with the package: what they hold, that a sample of their cells
recomputes to the same numbers, and the command that regenerates them."""

from __future__ import annotations

import json
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillcheck.cli import main
from skillcheck.engine import GAMES
from skillcheck.odds import game_from_options, odds
from skillcheck.profiles import ShippedGrid, gm_odds_of, profile_methods, register_gm_odds
from skillcheck.tables import (
    generate_grid,
    grid_cells,
    shipped_cell,
    shipped_table,
    table_file,
)

SHIPPING = [name for name in GAMES if gm_odds_of(name).grids]


def _file(name: str) -> dict[str, object]:
    path = table_file(name)
    assert path is not None
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", SHIPPING)
def test_a_games_tables_live_in_its_own_folder(name: str) -> None:
    """A new game ships its tables with no file outside its own folder (docs/adding-a-game.md)."""
    path = table_file(name)
    assert path is not None and path.is_file()
    module = sys.modules[GAMES[name].__module__].__file__
    assert module is not None and path.parent == Path(module).parent


def test_grids_without_a_file_for_their_tables_are_refused() -> None:
    grid = gm_odds_of("hanoy").grids[0]
    with pytest.raises(ValueError, match="must say where their tables live"):
        register_gm_odds("a-game-with-grids", grids=[grid])
    assert not gm_odds_of("a-game-with-grids").grids


def test_every_game_ships_tables_and_three_towers_ships_the_issues_grid() -> None:
    assert set(SHIPPING) == set(GAMES)  # every built-in game declares its grids
    names = {g.name for g in gm_odds_of("three-towers").grids}
    suits = next(s.choices for s in GAMES["three-towers"].parameters() if s.name == "suit")
    assert suits is not None
    for suit in suits:
        for level in (6, 9):
            assert f"quota-{suit}-level-{level}" in names
    for grid in gm_odds_of("three-towers").grids:
        if grid.name.startswith("quota-"):
            assert grid.params["spaces"] == 5
            assert grid.axes == {"skill": tuple(range(1, 9)), "quota": tuple(range(1, 9))}


@pytest.mark.parametrize("name", SHIPPING)
def test_the_shipped_file_holds_every_declared_grid_with_its_deals(name: str) -> None:
    data = _file(name)
    assert data["game"] == name
    grids = {g["name"]: g for g in data["grids"]}  # type: ignore[attr-defined]
    for grid in gm_odds_of(name).grids:
        shipped = grids[grid.name]
        assert shipped["seed"] == grid.seed and shipped["params"] == grid.params
        assert [c["options"] for c in shipped["cells"]] == grid_cells(name, grid)
        methods = profile_methods(game_from_options(name, grid_cells(name, grid)[0]))
        for profile, deals in grid.deals.items():
            if profile in methods and deals:
                assert shipped["deals"][profile] >= deals
        for cell in shipped["cells"]:
            for profile, (successes, trials, undecided) in cell["profiles"].items():
                assert trials == shipped["deals"][profile]
                assert 0 <= successes <= trials and 0 <= undecided <= trials - successes


def _sample() -> list[tuple[str, dict[str, object], int, str, int]]:
    """A fixed sample of shipped cells: (game, options, seed, profile, deals)."""
    rng = random.Random(11)
    picked = []
    for name in SHIPPING:
        cells = [(g, c) for g in _file(name)["grids"] for c in g["cells"]]  # type: ignore[attr-defined]
        for grid, cell in rng.sample(cells, 2):
            for profile, deals in grid["deals"].items():
                picked.append((name, cell["options"], grid["seed"], profile, deals))
    return picked


@pytest.mark.parametrize(("name", "options", "seed", "profile", "deals"), _sample())
def test_a_sample_of_shipped_cells_recomputes_to_the_same_numbers(
    name: str, options: dict[str, object], seed: int, profile: str, deals: int
) -> None:
    """The harness of `skillcheck odds`, from the grid's seed, gives the file's numbers."""
    game = game_from_options(name, options)
    method = profile_methods(game)[profile]
    shipped = shipped_cell(game)
    assert shipped is not None
    table = odds(name, options, {}, methods=[method], deals=deals, seed=seed,
                 executor=ThreadPoolExecutor(1), solver_states=shipped.solver_states)  # fmt: skip
    [cell] = table.cells
    assert (cell.successes, cell.trials, cell.undecided) == shipped.profiles[profile]


def test_a_cell_is_found_by_its_canonical_options() -> None:
    found = shipped_cell(game_from_options("three-towers", {"suit": "moons", "skill": 5,
                                                            "quota": 4}))  # fmt: skip
    spelled = shipped_cell(game_from_options("three-towers", {
        "suit": "moons", "skill": 5, "quota": 4, "level": 9, "spaces": 5, "undo": False,
    }))  # fmt: skip
    assert found is not None and found == spelled
    assert found.options["level"] == 9
    assert (
        shipped_cell(
            game_from_options("three-towers", {"suit": "moons", "skill": 5, "quota": 4, "level": 7})
        )
        is None
    )
    assert shipped_table("no-such-game") == {}


def test_extending_a_grid_plays_only_the_missing_deals_and_equals_playing_them_all() -> None:
    grid = ShippedGrid("small", {"skill": 2}, {"cards": (3, 4)}, {"casual": 2, "ceiling": 1})
    pool = ThreadPoolExecutor(1)
    coarse = generate_grid("hanoy", grid, executor=pool)
    played: list[int] = []
    finer = generate_grid(
        "hanoy", grid, deals={"casual": 5, "ceiling": 3}, executor=pool, previous=coarse,
        progress=lambda done, total: played.append(total),
    )  # fmt: skip
    whole = generate_grid("hanoy", grid, deals={"casual": 5, "ceiling": 3}, executor=pool)
    assert finer == whole
    assert finer["deals"] == {"casual": 5, "ceiling": 3}
    assert played[-1] == 2 * 4  # two cells × deals 2..5 (ceiling 2..3, casual 3..5), not 5


def test_the_listing_shows_every_grid_name_whole_at_80_columns() -> None:
    """Grid names are what a reader tells apart (quota-moons-level-9 from -level-6); the listing
    cut them to "quota-moons-lev…" at 80 columns."""
    result = CliRunner().invoke(main, ["odds-tables"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    for name in GAMES:
        for grid in gm_odds_of(name).grids:
            assert grid.name in result.output, grid.name
        assert f"{name}'s tables: {table_file(name)}" in result.output  # where each one is


def test_the_listing_prints_each_file_path_whole_however_long(tmp_path: Path) -> None:
    """A reader copies the path; inside the table's caption a long checkout's path wrapped."""
    deep = tmp_path / ("a-folder-with-a-long-name-" * 4) / "odds"
    result = CliRunner().invoke(main, ["odds-tables", "--out", str(deep)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    for name in GAMES:
        if gm_odds_of(name).grids:
            assert f"{name}'s tables: {deep / (name + '.json')}" in result.output


def test_the_command_regenerates_a_game_with_progress(tmp_path: Path) -> None:
    log = tmp_path / "progress.log"
    result = CliRunner().invoke(main, [
        "odds-tables", "--regenerate", "--game", "hanoy", "--deals", "casual=1",
        "--deals", "ceiling=1", "--workers", "1", "--out", str(tmp_path), "--log", str(log),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "hanoy.json").read_text(encoding="utf-8"))
    assert data["grids"][0]["deals"] == {"casual": 1, "ceiling": 1}
    shipped = _file("hanoy")["grids"][0]["cells"]  # type: ignore[index]
    # the first deal of the seed is the first deal of the shipped table
    for mine, theirs in zip(data["grids"][0]["cells"], shipped, strict=True):
        assert mine["options"] == theirs["options"]
        assert mine["profiles"]["casual"][0] <= 1
    lines = log.read_text(encoding="utf-8").splitlines()
    assert any("hanoy: start" in line for line in lines)
    assert any("check 91/91" in line for line in lines)  # 7 numbers of cards by 13 skills
    listing = CliRunner().invoke(main, ["odds-tables", "--game", "hanoy", "--out", str(tmp_path)])
    assert listing.exit_code == 0 and "check" in listing.output
    assert "(not generated)" not in listing.output
    nowhere = tmp_path / "empty"
    nowhere.mkdir()
    empty = CliRunner().invoke(main, ["odds-tables", "--game", "hanoy", "--out", str(nowhere)])
    assert "(not generated)" in empty.output
    bad = CliRunner().invoke(main, ["odds-tables", "--regenerate", "--deals", "lucky=3"])
    assert bad.exit_code == 2 and "careful, casual, ceiling" in bad.output
