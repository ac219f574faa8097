"""Perft: count the legal move sequences to a depth, library against a reference implementation.

The reference below is written from the seed's rules alone and does not use
skillcheck.games.three_towers: cards are plain ``(rank, suits)`` tuples, a position is the remaining
deck (top card first) and the towers (bottom card first), and its move generator is a loop over
sources (the deck's top card, each tower's top card) and targets (every other tower space).
Only the deal, as cards, comes from the library (card data is checked in test_cards.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from skillcheck import Card, Quota, Standard, ThreeTowers, ThreeTowersState, TowerMove

# ---- the reference implementation ----------------------------------------------------------------

RefCard = tuple[int, frozenset[str]]
RefTowers = tuple[tuple[RefCard, ...], ...]
RefMove = tuple[int, int]  # (source, target): source 0 is the deck, towers are 1..spaces


def ref_card(c: Card) -> RefCard:
    assert c.rank is not None
    return int(c.rank), frozenset(s.value for s in c.suits)


class RefRules:
    """Three Towers by the seed: moves, and the goal of each variant."""

    def __init__(
        self, level: int, *, quota_suit: str | None = None, quota: int | None = None
    ) -> None:
        self.level = level
        self.quota_suit = quota_suit
        self.quota = quota

    @staticmethod
    def fits(moving: RefCard, tower: tuple[RefCard, ...]) -> bool:
        """Empty spaces accept any card; otherwise lower, and sharing a suit."""
        if not tower:
            return True
        rank, suits = tower[-1]
        return moving[0] < rank and bool(moving[1] & suits)

    def moves(self, deck: tuple[RefCard, ...], towers: RefTowers) -> list[RefMove]:
        if self.won(deck, towers):
            return []
        found = []
        sources: list[tuple[int, RefCard]] = [(0, deck[0])] if deck else []
        sources += [(i + 1, t[-1]) for i, t in enumerate(towers) if t]
        for source, moving in sources:
            for j, tower in enumerate(towers):
                if j + 1 != source and self.fits(moving, tower):
                    found.append((source, j + 1))
        return found

    @staticmethod
    def apply(
        deck: tuple[RefCard, ...], towers: RefTowers, move: RefMove
    ) -> tuple[tuple[RefCard, ...], RefTowers]:
        source, target = move
        new = [list(t) for t in towers]
        if source == 0:
            moving, deck = deck[0], deck[1:]
        else:
            moving = new[source - 1].pop()
        new[target - 1].append(moving)
        return deck, tuple(tuple(t) for t in new)

    def won(self, deck: tuple[RefCard, ...], towers: RefTowers) -> bool:
        if self.quota_suit is not None:
            assert self.quota is not None
            return any(
                len(t) >= self.quota and all(self.quota_suit in s for _, s in t) for t in towers
            )
        built = [t for t in towers if t]
        return not deck and len(built) == 3 and all(len(t) == self.level - 1 for t in built)

    def perft(self, deck: tuple[RefCard, ...], towers: RefTowers, depth: int) -> int:
        moves = self.moves(deck, towers)
        if depth == 1:
            return len(moves)
        return sum(self.perft(*self.apply(deck, towers, m), depth - 1) for m in moves)


# ---- the library's perft -------------------------------------------------------------------------


def library_perft(state: ThreeTowersState, depth: int) -> int:
    """Count with ``legal_moves``, ``push`` and ``undo``.

    A move that ends the check has no continuation; since a finished check cannot be undone,
    such a move is tried on a copy first.
    """
    moves = list(state.legal_moves)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        probe = state.copy()
        probe.push(move)
        if probe.is_terminal():
            continue
        before = state.code()
        state.push(move)
        total += library_perft(state, depth - 1)
        state.undo()
        assert state.code() == before
    return total


def reference_position(
    state: ThreeTowersState,
) -> tuple[tuple[RefCard, ...], RefTowers]:
    deck = tuple(ref_card(c) for c in state.remaining_deck)
    towers = tuple(tuple(ref_card(c) for c in t) for t in state.towers)
    return deck, towers


def reference_rules(game: ThreeTowers) -> RefRules:
    variant = game.variant
    if isinstance(variant, Quota):
        return RefRules(game.level, quota_suit=variant.suit.value, quota=variant.quota)
    assert isinstance(variant, Standard)
    return RefRules(game.level)


def walk(game: ThreeTowers, seed: int, steps: int) -> tuple[ThreeTowersState, list[RefMove]]:
    """A mid-game position: ``steps`` moves chosen with the reference's own move list, replayed
    in the library as move codes."""
    rules = reference_rules(game)
    state = game.new_state(seed)
    deck, towers = reference_position(state)
    rng = random.Random(seed * 1000 + steps)
    made: list[RefMove] = []
    for _ in range(steps):
        moves = rules.moves(deck, towers)
        if not moves:
            break
        # prefer moves that keep the check going, so the position stays interesting
        alive = [m for m in moves if rules.moves(*rules.apply(deck, towers, m))]
        move = rng.choice(alive or moves)
        deck, towers = rules.apply(deck, towers, move)
        made.append(move)
        state.push_code(("d" if move[0] == 0 else str(move[0])) + str(move[1]))
    assert reference_position(state) == (deck, towers)
    return state, made


def codes(moves: Sequence[TowerMove]) -> set[str]:
    return {m.code for m in moves}


# ---- the comparisons -----------------------------------------------------------------------------

DEALS = [  # (level, spaces, seed)
    (4, 3, 1),
    (5, 4, 2),
    (6, 5, 3),
    (7, 3, 4),
    (8, 4, 5),
    (9, 5, 6),
    (9, 3, 7),
]


@pytest.mark.parametrize(("level", "spaces", "seed"), DEALS)
def test_perft_from_the_deal_matches_the_reference(level: int, spaces: int, seed: int) -> None:
    game = ThreeTowers(level=level, spaces=spaces, undo="full")
    state = game.new_state(seed)
    rules = reference_rules(game)
    deck, towers = reference_position(state)
    for depth in range(1, 6 if spaces < 5 else 5):
        assert library_perft(state, depth) == rules.perft(deck, towers, depth), depth


@pytest.mark.parametrize(("level", "spaces", "seed"), DEALS)
@pytest.mark.parametrize("steps", [6, 15])
def test_perft_from_mid_game_matches_the_reference(
    level: int, spaces: int, seed: int, steps: int
) -> None:
    game = ThreeTowers(level=level, spaces=spaces, undo="full")
    state, _ = walk(game, seed, steps)
    rules = reference_rules(game)
    deck, towers = reference_position(state)
    assert codes(list(state.legal_moves)) == {
        ("d" if s == 0 else str(s)) + str(t) for s, t in rules.moves(deck, towers)
    }
    for depth in range(1, 5):
        assert library_perft(state, depth) == rules.perft(deck, towers, depth), depth


@pytest.mark.parametrize(
    ("suit", "skill", "quota", "seed"), [("moons", 4, 2, 4), ("knots", 6, 3, 0), ("waves", 5, 2, 5)]
)
def test_perft_of_a_quota_check_matches_the_reference(
    suit: str, skill: int, quota: int, seed: int
) -> None:
    """A quota check ends as soon as a tower of the suit is tall enough: such lines stop there."""
    game = ThreeTowers.quota_check(suit, skill=skill, quota=quota, level=7, spaces=4, undo="full")
    rules = reference_rules(game)
    without_quota = RefRules(7)
    cut_short = 0
    for steps in (0, 4, 8):
        state, _ = walk(game, seed, steps)
        deck, towers = reference_position(state)
        for depth in range(1, 5):
            expected = rules.perft(deck, towers, depth)
            assert library_perft(state, depth) == expected, (steps, depth)
        # not vacuous: some of these lines end in a quota win, so there are fewer of them
        cut_short += expected < without_quota.perft(deck, towers, 4)
    assert cut_short > 0


# Regression constants. Obtained by running library_perft on these deals (depths 1..5) and
# checking each number against RefRules.perft above, which agreed on all of them; the first
# two numbers also follow by hand: from the deal the only moves are the top card to one of the
# `spaces` empty spaces, and then the next card or that placed card to any other empty space,
# plus the next card onto the placed one when it is lower and shares a suit.
PINNED = {
    (9, 5, 7): [5, 40, 360, 3460, 34340],
    (6, 4, 3): [4, 24, 156, 1056, 7164],
}


@pytest.mark.parametrize(("level", "spaces", "seed"), sorted(PINNED))
def test_perft_regression_constants(level: int, spaces: int, seed: int) -> None:
    game = ThreeTowers(level=level, spaces=spaces, undo="full")
    state = game.new_state(seed)
    rules = reference_rules(game)
    deck, towers = reference_position(state)
    expected = PINNED[(level, spaces, seed)]
    for depth, count in enumerate(expected, 1):
        assert rules.perft(deck, towers, depth) == count, depth
        assert library_perft(state, depth) == count, depth
