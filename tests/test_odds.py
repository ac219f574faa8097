"""Odds tables: Wilson intervals, exact probabilities on tiny decks, executors, outputs."""

from __future__ import annotations

import itertools
import json
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcheck import ThreeTowers
from skillcheck.errors import ParameterError
from skillcheck.games.three_towers import level_deck
from skillcheck.games.three_towers.bots import FastBot
from skillcheck.games.three_towers.solver import solve
from skillcheck.odds import deal_seeds, odds, wilson_interval


def test_wilson_interval_known_values() -> None:
    # Reference values (Wilson 1927; e.g. 8 of 10 gives 0.490 .. 0.943 at 95 %).
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-3) and high == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


@given(st.integers(1, 100_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_rate(counts: tuple[int, int]) -> None:
    """The interval always holds the observed rate and stays within 0..1 (10 of 10 once gave a
    high end of 0.9999999999999999, below the rate, and a plot's error bar crashed on it)."""
    successes, trials = counts
    low, high = wilson_interval(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


def test_deal_seeds_are_reproducible_and_distinct() -> None:
    assert deal_seeds(7, 50) == deal_seeds(7, 50)
    assert len(set(deal_seeds(7, 50))) == 50
    assert deal_seeds(7, 5) != deal_seeds(8, 5)


def _exact_rate(game: ThreeTowers, method: str) -> float:
    """The exact success probability over every equally likely deal of a tiny deck."""
    wins = total = 0
    for deck in itertools.permutations(level_deck(game.level)):
        total += 1
        if method == "perfect":
            wins += solve(game, deck).result == "win"
        else:
            state = game.state_from_deal(deck)
            bot = FastBot()
            while not state.is_terminal():
                move = bot.choose(game, state.observation())
                if move is None:
                    state.concede()
                else:
                    state.push(move)
            wins += state.outcome is not None and state.outcome.success
    return wins / total


@pytest.mark.parametrize("method", ["perfect", "fast"])
def test_intervals_cover_the_exact_probability_on_a_tiny_deck(method: str) -> None:
    game = ThreeTowers(level=3, spaces=3)
    exact = _exact_rate(game, method)
    assert 0.0 < exact < 1.0  # a non-trivial probability, so the check means something
    with ThreadPoolExecutor(2) as pool:
        table = odds(
            "three-towers", {"level": 3, "spaces": 3}, methods=[method], deals=300, seed=4,
            executor=pool,
        )  # fmt: skip
    cell = table.cell(method, level=3)
    assert cell is not None and cell.trials == 300 and cell.undecided == 0
    low, high = cell.interval
    assert low <= exact <= high


def test_quota_table_cells_and_monotone_perfect_play() -> None:
    with ThreadPoolExecutor(2) as pool:
        table = odds(
            "three-towers", {"suit": "moons", "level": 5, "spaces": 3},
            {"skill": [2, 3], "quota": [1, 2, 3]}, methods=["perfect", "fast"], deals=40,
            seed=1, executor=pool, skip_invalid=True,
        )  # fmt: skip
    keys = {(c.method, c.params["skill"], c.params["quota"]) for c in table.cells}
    assert ("perfect", 2, 3) not in keys  # quota above skill is skipped
    assert ("fast", 3, 3) in keys
    for skill in (2, 3):
        rates = [table.cell("perfect", skill=skill, quota=q) for q in (1, 2, 3) if q <= skill]
        values = [c.rate for c in rates if c is not None]
        assert values == sorted(values, reverse=True)  # a higher quota is never easier
        for quota in (1, 2, 3):
            perfect = table.cell("perfect", skill=skill, quota=quota)
            fast = table.cell("fast", skill=skill, quota=quota)
            if perfect is not None and fast is not None:
                assert fast.successes <= perfect.successes  # no fair bot beats perfect play


def test_a_process_pool_gives_the_same_table_as_threads() -> None:
    args = dict(
        fixed={"suit": "suns", "level": 4, "spaces": 3}, axes={"skill": [2], "quota": [1, 2]},
        methods=["perfect"], deals=12, seed=3,
    )  # fmt: skip
    with ProcessPoolExecutor(2) as pool:
        processes = odds("three-towers", executor=pool, **args)  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        threads = odds("three-towers", executor=pool, **args)  # type: ignore[arg-type]
    assert processes.to_dict() == threads.to_dict()
    data = json.loads(processes.to_json())
    assert data["cells"] == [c.to_dict() for c in processes.cells]
    csv_text = processes.to_csv()
    assert csv_text.splitlines()[0].startswith("skill,quota,suit,level,spaces,method")
    assert len(csv_text.splitlines()) == 1 + len(processes.cells)


def test_progress_is_reported_for_every_task() -> None:
    calls: list[tuple[int, int]] = []
    with ThreadPoolExecutor(1) as pool:
        odds("three-towers", {"level": 3, "spaces": 4}, deals=5, methods=["fast"],
             executor=pool, progress=lambda done, total: calls.append((done, total)))  # fmt: skip
    assert calls[-1] == (5, 5) and [d for d, _ in calls] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("params", "kwargs", "message"),
    [
        ({}, {"methods": ["oracle"]}, "the methods of Three Towers are perfect, fast, strong"),
        ({}, {"deals": 0}, "deals must be at least 1"),
        ({"level": 12}, {}, "level must be from 2 to 9"),
    ],
)
def test_bad_odds_parameters_are_named(
    params: dict[str, object], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ParameterError, match=message):
        odds("three-towers", {"suit": "moons", "skill": 2, "quota": 1, **params}, **kwargs)  # type: ignore[arg-type]


def test_quota_above_skill_in_every_cell_is_refused_up_front() -> None:
    with pytest.raises(ParameterError, match="skill 9 is not allowed"):
        odds("three-towers", {"suit": "moons", "skill": 9, "quota": 1}, methods=["fast"])
