"""The perfect-information solver agrees with an independent brute force on small deals."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from skillcheck.cards import Card
from skillcheck.engine import Status
from skillcheck.solver import Solution, solve
from skillcheck.three_towers import ThreeTowers, ThreeTowersState


def brute_force(game: ThreeTowers, state: ThreeTowersState) -> bool:
    """Exhaustive DFS over the library's own states: push, undo, legal_moves, with a visited set
    of position codes (the move count left out). A lost check refuses undo, so a move is first
    tried on a copy and only pushed when the check goes on."""

    def key(s: ThreeTowersState) -> str:
        return s.code().rsplit(" ", 1)[0]

    if state.status is Status.WON:
        return True
    if state.is_terminal():
        return False
    seen = {key(state)}
    stack = [list(state.legal_moves)]
    while stack:
        if not stack[-1]:
            stack.pop()
            if stack:
                state.undo()
            continue
        move = stack[-1].pop()
        trial = state.copy()
        trial.push(move)
        k = key(trial)  # type: ignore[arg-type]
        if k in seen:
            continue
        seen.add(k)
        if trial.status is Status.WON:
            return True
        if trial.is_terminal():
            continue
        state.push(move)
        stack.append(list(state.legal_moves))
    return False


def replays_to_win(game: ThreeTowers, deal: Sequence[Card], sol: Solution) -> bool:
    state = game.state_from_deal(deal)
    for move in sol.moves:
        state.push(move)
    return state.status is Status.WON


def check(game: ThreeTowers, seed: int) -> str:
    deal = game.deal(seed)
    sol = solve(game, deal, max_states=None)
    expected = brute_force(game, game.state_from_deal(deal))
    assert sol.result == ("win" if expected else "loss"), (game.describe(), seed)
    if sol.result == "win":
        assert replays_to_win(game, deal, sol)
    else:
        assert sol.moves == ()
    return sol.result


CASES = [
    (ThreeTowers(level=level, spaces=spaces), seeds)
    for level, spaces, seeds in [
        (2, 3, 4), (3, 3, 10), (3, 4, 6), (4, 3, 12), (4, 4, 12), (4, 5, 6),
        (5, 3, 10), (5, 4, 4), (5, 5, 2),
    ]
] + [
    (ThreeTowers.ivory("moons", level=4, spaces=4), 10),
    (ThreeTowers.ivory("knots", level=4, spaces=5), 6),
    (ThreeTowers.ivory("wyrms", level=5, spaces=4), 3),
    (ThreeTowers.quota_check("moons", 3, 3, level=5, spaces=3), 10),
    (ThreeTowers.quota_check("suns", 4, 3, level=5, spaces=3), 10),
    (ThreeTowers.quota_check("leaves", 4, 4, level=6, spaces=3), 6),
    (ThreeTowers.quota_check("waves", 2, 2, level=4, spaces=3), 6),
]  # fmt: skip


@pytest.mark.parametrize(("game", "seeds"), CASES, ids=lambda v: getattr(v, "describe", str)())
def test_agrees_with_brute_force(game: ThreeTowers, seeds: int) -> None:
    results = {check(game, seed) for seed in range(seeds)}
    assert results <= {"win", "loss"}


def test_sample_holds_wins_and_losses() -> None:
    results = [check(ThreeTowers(level=4, spaces=4), seed) for seed in range(12)]
    assert "win" in results and "loss" in results
    quota = ThreeTowers.quota_check("suns", 4, 3, level=5, spaces=3)
    results = [check(quota, seed) for seed in range(6)]
    assert "win" in results and "loss" in results


@pytest.mark.slow
@pytest.mark.parametrize(("level", "spaces", "seeds"), [(5, 4, 10), (6, 3, 6), (5, 5, 8)])
def test_agrees_with_brute_force_larger(level: int, spaces: int, seeds: int) -> None:
    game = ThreeTowers(level=level, spaces=spaces)
    for seed in range(seeds):
        check(game, seed)


@pytest.mark.parametrize("seed", range(5))
def test_level_6_certificates_replay(seed: int) -> None:
    game = ThreeTowers(level=6)
    deal = game.deal(seed)
    sol = solve(game, deal)
    assert sol.result == "win"
    assert replays_to_win(game, deal, sol)


def test_level_8_certificate_replays() -> None:
    game = ThreeTowers(level=8)
    deal = game.deal(0)
    sol = solve(game, deal, max_seconds=20)
    assert sol.result in ("win", "unknown")
    if sol.result == "win":
        assert replays_to_win(game, deal, sol)


def test_tiny_budget_is_unknown() -> None:
    game = ThreeTowers(level=9)
    sol = solve(game, game.deal(1), max_states=50)
    assert sol.result == "unknown"
    assert sol.moves == ()
    assert sol.states <= 50
    sol = solve(game, game.deal(1), max_states=None, max_seconds=0.01)
    assert sol.result == "unknown"


def test_solves_from_a_live_position() -> None:
    game = ThreeTowers(level=5, spaces=5)
    deal = game.deal(3)
    first = solve(game, deal)
    assert first.result == "win"
    state = game.state_from_deal(deal)
    for move in first.moves[:5]:
        state.push(move)
    again = solve(game, deal, start=state)
    assert again.result == "win"
    for move in again.moves:
        state.push(move)
    assert state.status is Status.WON


def test_live_position_agrees_with_brute_force() -> None:
    game = ThreeTowers(level=5, spaces=4)
    for seed in range(6):
        deal = game.deal(seed)
        state = game.state_from_deal(deal)
        for _ in range(3):
            moves = list(state.legal_moves)
            if not moves or state.is_terminal():
                break
            state.push(moves[-1])
        if state.is_terminal():
            continue
        sol = solve(game, deal, start=state, max_states=None)
        expected = brute_force(game, state.copy())  # type: ignore[arg-type]
        assert sol.result == ("win" if expected else "loss")
        if sol.result == "win":
            for move in sol.moves:
                state.push(move)
            assert state.status is Status.WON


def test_finished_start_position() -> None:
    game = ThreeTowers.quota_check("moons", 2, 1, level=4, spaces=3)
    deal = game.deal(0)
    state = game.state_from_deal(deal)
    sol = solve(game, deal, start=state)
    assert sol.result in ("win", "loss")


def test_macro_moves_expand_to_single_legal_moves() -> None:
    from skillcheck.solver import _expand, _first_win, _Problem

    game = ThreeTowers(level=9)
    run = tuple(Card.parse(c) for c in ("9MS", "8MS", "7ML", "6MW", "5ML"))
    towers = (run, (), (), (), ())
    p = _Problem(game, towers, ())
    start = list(p.start_towers)
    for count, target in [(4, 1), (2, 3), (1, 2)]:
        moves = _expand(p, start, [(0, count, target)])
        assert len(moves) >= 2 * count - 1
        ts = list(start)
        for s, d in moves:  # every single move is legal
            bit = ts[s] & -ts[s]
            assert bit and (not ts[d] or p.onto[bit.bit_length() - 1] & ts[d] & -ts[d])
            ts[s] ^= bit
            ts[d] |= bit
        assert ts[target] == start[0] & ((1 << count) - 1)  # the top cards, in their order
        assert ts[0] == start[0] ^ ts[target]
        assert sum(1 for t in ts if t) == 2  # the scratch spaces are empty again
    with pytest.raises(AssertionError):  # the line checker refuses an illegal move
        _first_win(p, start, [(1, 0)])


@pytest.mark.parametrize("seed", range(3))
def test_level_9_certificates_replay(seed: int) -> None:
    game = ThreeTowers(level=9)
    deal = game.deal(seed)
    sol = solve(game, deal, max_seconds=20)
    assert sol.result == "win"
    assert replays_to_win(game, deal, sol)


@pytest.mark.parametrize(("skill", "quota"), [(8, 8), (8, 6), (6, 4)])
def test_quota_certificates_replay(skill: int, quota: int) -> None:
    game = ThreeTowers.quota_check("moons", skill, quota)
    for seed in (0, 3):
        deal = game.deal(seed)
        sol = solve(game, deal, max_seconds=20)
        assert sol.result == "win"
        assert replays_to_win(game, deal, sol)


def test_quota_8_uses_the_finished_arrangements() -> None:
    """Skill 8 quota 8 (a full deck): the planner also steers towards the finished arrangements
    whose pure chain holds all eight cards of the suit. Seed 36 was unknown at 2 s without them;
    with them it is won within 20,000 states, and the line replays."""
    game = ThreeTowers.quota_check("moons", 8, 8)
    deal = game.deal(36)
    sol = solve(game, deal, max_states=20_000)
    assert sol.result == "win"
    assert replays_to_win(game, deal, sol)


def test_pure_arrangements_hold_the_suit_chain() -> None:
    from skillcheck.solver import _Problem, _targets

    game = ThreeTowers.quota_check("moons", 8, 8)
    p = _Problem(game, ((),) * game.spaces, game.deal(0))
    arrangements = _targets(p, pure_only=True)
    assert 0 < len(arrangements) < len(_targets(p))
    suited = [c for c in range(p.n) if p.suit_bits >> c & 1]
    for parent in arrangements:
        # every suited card but the 9 sits on the suited card one rank higher
        for c in suited:
            if p.rank[c] < 9:
                assert parent[c] in suited and p.rank[parent[c]] == p.rank[c] + 1


def test_small_budget_end_game_from_a_live_position() -> None:
    """The bots' use: a live position with the deck empty and a small budget."""
    game = ThreeTowers(level=9)
    deal = game.deal(1)
    sol = solve(game, deal, max_seconds=20)
    assert sol.result == "win"
    state = game.state_from_deal(deal)
    last_deck = max(i for i, m in enumerate(sol.moves) if m.source == 0)
    for move in sol.moves[: last_deck + 1]:
        state.push(move)
    assert state.cards_left == 0 and not state.is_terminal()
    again = solve(game, deal, start=state, max_states=20_000)
    assert again.result == "win"
    for move in again.moves:
        state.push(move)
    assert state.status is Status.WON


def test_planner_resumes_where_it_stopped() -> None:
    """A planner search run to 5,000 positions and then resumed to 40,000 does exactly what one
    run to 40,000 does (its heap and seen table are kept, nothing is generated twice)."""
    from skillcheck.solver import _Budget, _Planner, _Problem, _Target, _targets

    game = ThreeTowers(level=9)
    p = _Problem(game, ((),) * game.spaces, game.deal(108))
    parent = _targets(p)[0]
    start = list(p.start_towers)
    once = _Planner(p, _Target(p, parent), start, (4, 3))
    line_once, short_once = once.run(_Budget(None, None), 40_000)
    twice = _Planner(p, _Target(p, parent), start, (4, 3))
    budget = _Budget(None, None)
    line, short = twice.run(budget, 5_000)
    assert line is None and short and twice.counter >= 5_000
    line, short = twice.run(budget, 40_000)
    assert (line, short) == (line_once, short_once)
    assert twice.counter == once.counter == budget.states
    assert line is not None


def test_small_budget_wins_easy_level_9_deals() -> None:
    """20,000 states are enough for the easy level-9 deals (the first goal gets the lead)."""
    game = ThreeTowers(level=9)
    wins = 0
    for seed in (1, 109, 110, 121, 132):
        deal = game.deal(seed)
        sol = solve(game, deal, max_states=20_000)
        if sol.result == "win":
            assert replays_to_win(game, deal, sol)
            wins += 1
    assert wins == 5
