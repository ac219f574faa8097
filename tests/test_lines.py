"""Shortened winning lines still win and are never longer."""

from __future__ import annotations

import pytest

from skillcheck import ThreeTowers
from skillcheck.games.three_towers.lines import shorten_line
from skillcheck.games.three_towers.solver import solve

GAMES = [
    ThreeTowers(level=5),
    ThreeTowers(level=6),
    ThreeTowers(level=5, spaces=4),
    ThreeTowers.ivory("leaves", level=5),
    ThreeTowers.quota_check("moons", 6, 5),
    ThreeTowers.quota_check("knots", 4, 4, level=7),
]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.describe())
def test_shortened_lines_win_and_are_not_longer(game: ThreeTowers) -> None:
    shortened = 0
    for seed in range(30):
        deal = game.deal(seed)
        solution = solve(game, deal, max_states=300_000)
        if solution.result != "win":
            continue
        start = game.state_from_deal(deal)
        short = shorten_line(game, start, solution.moves)
        assert len(short) <= len(solution.moves)
        state = game.state_from_deal(deal)
        for move in short:
            state.push(move)
        assert state.outcome is not None and state.outcome.success
        assert start.moves == ()  # the start state is not touched
        shortened += 1
        if shortened == 3:
            break
    assert shortened == 3, "expected three winnable deals among the first 30 seeds"


def test_a_detour_is_removed() -> None:
    game = ThreeTowers(level=4)
    deal = game.deal(1)
    solution = solve(game, deal)
    assert solution.result == "win"
    # Add a pointless excursion after the first move: out to an empty tower and back.
    first, rest = solution.moves[0], solution.moves[1:]
    empty = next(t for t in range(1, 6) if t != first.target)
    from skillcheck import TowerMove

    padded = (first, TowerMove(first.target, empty), TowerMove(empty, first.target), *rest)
    short = shorten_line(game, game.state_from_deal(deal), padded)
    assert len(short) <= len(solution.moves)
