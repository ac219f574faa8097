"""Shortened winning lines still win and are never longer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skillcheck import Card, Status, Suit, ThreeTowers, ThreeTowersState, TowerMove
from skillcheck.games.three_towers.lines import Towers, position_key, shorten_line
from skillcheck.games.three_towers.rules import (
    DECK,
    Quota,
    apply_tower_move,
    legal_tower_moves,
)
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
    padded = (first, TowerMove(first.target, empty), TowerMove(empty, first.target), *rest)
    short = shorten_line(game, game.state_from_deal(deal), padded)
    assert len(short) <= len(solution.moves)


# ---- properties: same outcome, same positions, never longer ------------------------------------


@st.composite
def games(draw: st.DrawFn) -> ThreeTowers:
    """Small games of every variant (their solver lines take milliseconds to shorten)."""
    level = draw(st.integers(4, 7))
    spaces = draw(st.integers(3, 5))
    kind = draw(st.sampled_from(["standard", "ivory", "quota"]))
    if kind == "standard":
        return ThreeTowers(level=level, spaces=spaces)
    suit = draw(st.sampled_from(list(Suit)))
    if kind == "ivory":
        return ThreeTowers.ivory(suit, level=level, spaces=spaces)
    skill = draw(st.integers(1, level - 1))
    quota = draw(st.integers(1, skill))
    return ThreeTowers.quota_check(suit, skill, quota, level=level, spaces=spaces)


def winning_line(game: ThreeTowers, seed: int) -> tuple[tuple[Card, ...], tuple[TowerMove, ...]]:
    deal = game.deal(seed)
    solution = solve(game, deal, max_states=50_000)
    assume(solution.result == "win")
    return deal, solution.moves


def replay(state: ThreeTowersState, moves: Sequence[TowerMove]) -> ThreeTowersState:
    after = state.copy()
    assert isinstance(after, ThreeTowersState)
    for move in moves:
        after.push(move)  # raises on an illegal move
    return after


def is_quota(game: ThreeTowers) -> bool:
    return isinstance(game.variant, Quota)


PROPERTY_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@PROPERTY_SETTINGS
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_a_shortened_line_wins_like_the_raw_line(game: ThreeTowers, seed: int) -> None:
    deal, raw = winning_line(game, seed)
    start = game.state_from_deal(deal)
    short = shorten_line(game, start, raw)
    assert len(short) <= len(raw)
    assert start.moves == ()  # the start state is not touched
    end = replay(start, short)
    assert end.status is Status.WON
    assert replay(start, raw).status is Status.WON
    # only tower moves are replaced: the deck moves stay, up to a quota check won sooner
    decks, raw_decks = (sum(m.source == DECK for m in line) for line in (short, raw))
    if is_quota(game):
        assert decks <= raw_decks
    else:
        assert decks == raw_decks and end.cards_left == 0
    assert shorten_line(game, start, raw) == short  # deterministic


@PROPERTY_SETTINGS
@given(game=games(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_a_shortened_stretch_reaches_the_same_position(
    game: ThreeTowers, seed: int, data: st.DataObject
) -> None:
    """Any stretch of a line, from any position on it (as the bots shorten their plans): the
    shortened stretch ends in the same position up to the order of the towers (or wins on the
    way), and is never longer."""
    deal, raw = winning_line(game, seed)
    begin = data.draw(st.integers(0, len(raw)), label="begin")
    end = data.draw(st.integers(begin, len(raw)), label="end")
    start = replay(game.state_from_deal(deal), raw[:begin])
    stretch = raw[begin:end]
    made = start.moves
    short = shorten_line(game, start, stretch)
    assert start.moves == made
    assert len(short) <= len(stretch)
    expected, got = replay(start, stretch), replay(start, short)
    if got.status is Status.WON:
        return  # the same win, or a win found on the way (the line stops there)
    assert got.status is Status.IN_PROGRESS
    assert position_key(got.towers) == position_key(expected.towers)
    assert got.remaining_deck == expected.remaining_deck


def shortest_distance(start: Towers, goal: Callable[[Towers], bool]) -> int:
    """Tower moves from ``start`` to towers that meet ``goal``: a plain breadth-first search on
    the rules' own move generator, positions compared up to the order of the towers (small
    games only)."""
    seen = {position_key(start)}
    frontier = [start]
    distance = 0
    while frontier:
        if any(goal(towers) for towers in frontier):
            return distance
        grown = []
        for towers in frontier:
            for move in legal_tower_moves(towers, None):
                after = apply_tower_move(towers, move, None)
                key = position_key(after)
                if key not in seen:
                    seen.add(key)
                    grown.append(after)
        frontier = grown
        distance += 1
    raise AssertionError("the goal is not reachable")


def stretches(
    start: ThreeTowersState, moves: Sequence[TowerMove]
) -> list[tuple[Towers, Towers, int]]:
    """The stretches of tower moves between deck moves: first and last towers, and length."""
    state = start.copy()
    assert isinstance(state, ThreeTowersState)
    found = [(state.towers, state.towers, 0)]
    for move in moves:
        state.push(move)
        if move.source == DECK:
            found.append((state.towers, state.towers, 0))
        else:
            found[-1] = (found[-1][0], state.towers, found[-1][2] + 1)
    return found


@pytest.mark.parametrize(
    "game", [ThreeTowers(level=5), ThreeTowers(level=5, spaces=4)], ids=lambda g: g.describe()
)
def test_every_stretch_between_deck_moves_is_a_shortest_one(game: ThreeTowers) -> None:
    """Small games: the searches finish, so each stretch of tower moves between two deck moves
    is as short as an independent breadth-first search says it can be, between the same
    positions as the raw line's; the last one goes to the nearest winning position."""
    checked = 0
    for seed in range(40):
        deal = game.deal(seed)
        solution = solve(game, deal, max_states=300_000)
        if solution.result != "win":
            continue
        start = game.state_from_deal(deal)
        short = stretches(start, shorten_line(game, start, solution.moves))
        raw = stretches(start, solution.moves)
        assert len(short) == len(raw)
        pairs = zip(short[:-1], raw[:-1], strict=True)
        for (first, last, length), (raw_first, raw_last, _) in pairs:
            assert position_key(first) == position_key(raw_first)
            assert position_key(last) == position_key(raw_last)
            assert length == shortest_distance(first, same_as(last))
        first, last, length = short[-1]
        assert position_key(first) == position_key(raw[-1][0])
        assert length == shortest_distance(first, lambda towers: won(game, towers))
        assert won(game, last)
        assert length <= shortest_distance(first, same_as(raw[-1][1]))
        checked += 1
        if checked == 8:
            break
    assert checked == 8, "expected eight winnable deals among the first 40 seeds"


def same_as(goal: Towers) -> Callable[[Towers], bool]:
    key = position_key(goal)
    return lambda towers: position_key(towers) == key


def won(game: ThreeTowers, towers: Towers) -> bool:
    """The standard goal with the deck empty: three full towers."""
    return sum(len(t) == game.level - 1 for t in towers) == 3


def test_a_lone_card_moved_to_an_empty_space_is_no_move() -> None:
    """Towers are alike: moving a lone card to an empty space changes nothing, and the moves
    after it are renumbered to find their cards."""
    game = ThreeTowers(level=4)
    deal = game.deal(1)
    solution = solve(game, deal)
    assert solution.result == "win"
    first, rest = solution.moves[0], solution.moves[1:]
    assert first.source == DECK
    empty = next(t for t in range(1, 6) if t != first.target)
    swap = {first.target: empty, empty: first.target}
    relabelled = tuple(
        TowerMove(swap.get(m.source, m.source) if m.source != DECK else DECK,
                  swap.get(m.target, m.target))
        for m in rest
    )  # fmt: skip
    padded = (first, TowerMove(first.target, empty), *relabelled)
    start = game.state_from_deal(deal)
    short = shorten_line(game, start, padded)
    assert len(short) <= len(solution.moves)
    assert replay(start, short).status is Status.WON


def test_position_key_ignores_the_order_of_the_towers() -> None:
    state = ThreeTowers(level=5).state_from_code("5ML4MS/-/3MW2MK/-/- 2SY 4")
    towers = state.towers
    assert position_key(towers) == position_key(towers[::-1])
    assert position_key(towers) != position_key(((), *towers[1:]))
