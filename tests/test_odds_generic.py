"""The generic odds harness: any registered game, cells keyed by a parameter dict."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from skillcheck.engine import GAMES
from skillcheck.errors import ParameterError
from skillcheck.odds import deal_seeds, game_from_options, methods_of, odds, play_once

CELL_KEYS = {
    "params",
    "method",
    "successes",
    "trials",
    "undecided",
    "rate",
    "ci95_low",
    "ci95_high",
}


def _one_worker() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_gets_a_table_of_its_first_example(name: str) -> None:
    game = GAMES[name]()
    methods = methods_of(game)
    assert "random" in methods
    table = odds(name, {}, {}, methods=["random"], deals=3, executor=_one_worker())
    data = json.loads(table.to_json())
    assert data["game"] == name and data["deals"] == 3
    (cell,) = data["cells"]
    assert set(cell) == CELL_KEYS
    assert cell["trials"] == 3 and 0 <= cell["successes"] <= 3
    assert cell["ci95_low"] <= cell["rate"] <= cell["ci95_high"]


def test_cells_are_keyed_by_their_parameters_and_count_every_deal() -> None:
    table = odds(
        "three-towers",
        {"suit": "moons", "level": 5},
        {"skill": [2, 3], "quota": [1, 2]},
        methods=["perfect", "fast"],
        deals=4,
        executor=_one_worker(),
    )
    assert len(table.cells) == 2 * 2 * 2
    for cell in table.cells:
        assert cell.params["suit"] == "moons" and cell.params["level"] == 5
        assert cell.trials == 4
    cell = table.cell("perfect", skill=3, quota=2)
    assert cell is not None and cell.params == {"suit": "moons", "level": 5, "skill": 3, "quota": 2}
    # every cell plays the same deals: a cell's result equals playing those deals one by one
    game = game_from_options("three-towers", cell.params)
    wins = sum(play_once(game, "perfect", s, 1_000_000)[0] for s in deal_seeds(0, 4))
    assert cell.successes == wins


def test_a_grid_may_leave_out_what_the_game_refuses() -> None:
    axes = {"skill": [1, 2], "quota": [1, 2]}
    with pytest.raises(ParameterError, match="quota"):
        odds("three-towers", {"suit": "suns", "level": 5}, axes, methods=["fast"], deals=1)
    table = odds(
        "three-towers",
        {"suit": "suns", "level": 5},
        axes,
        methods=["fast"],
        deals=1,
        executor=_one_worker(),
        skip_invalid=True,
    )
    assert sorted((c.params["skill"], c.params["quota"]) for c in table.cells) == [
        (1, 1),
        (2, 1),
        (2, 2),
    ]


def test_unknown_methods_and_no_deals_are_refused_naming_what_is_allowed() -> None:
    with pytest.raises(ParameterError, match="the methods of Three Towers are perfect, fast"):
        odds("three-towers", methods=["clairvoyant"], deals=1)
    with pytest.raises(ParameterError, match="deals must be at least 1"):
        odds("three-towers", methods=["fast"], deals=0)
    with pytest.raises(ParameterError, match="level"):
        odds("three-towers", {"level": 42}, methods=["fast"], deals=1)


def test_csv_has_a_row_per_cell_with_its_parameters() -> None:
    table = odds(
        "three-towers", {"level": 4}, {"spaces": [4, 5]}, methods=["fast"], deals=2,
        executor=_one_worker(),
    )  # fmt: skip
    lines = table.to_csv().strip().splitlines()
    assert lines[0].startswith("spaces,level,method,successes,trials")
    assert len(lines) == 1 + 2


def test_perfect_play_counts_a_line_longer_than_the_move_limit_as_undecided_not_won() -> None:
    game = game_from_options("three-towers", {"level": 5, "move_limit": 3})
    # a level-5 deal needs at least its 12 cards placed: no line of 3 moves wins
    for seed in deal_seeds(0, 3):
        assert play_once(game, "perfect", seed, 1_000_000) == (False, True)
