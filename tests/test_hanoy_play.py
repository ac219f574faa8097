"""Tower of Hanoy in play: a stateful property test of moves and take-backs, and the fair bot."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from skillcheck import GameOverError, Status
from skillcheck.cards.standard import PlayingCard
from skillcheck.games.hanoy import Hanoy, HanoyMove, HanoyState
from skillcheck.games.hanoy.bots import FastBot, hanoi_method
from skillcheck.games.hanoy.rules import Columns, apply_move
from skillcheck.solving import autoplay, make_bot


def out_of_deal_part_is_decreasing(
    column: tuple[PlayingCard, ...], dealt: tuple[PlayingCard, ...]
) -> tuple[PlayingCard, ...]:
    """A column is a prefix of the column as dealt, then cards that were moved there: each lower
    than the card under it (the placement rule). Returns the moved part."""
    same = 0
    while same < min(len(column), len(dealt)) and column[same] == dealt[same]:
        same += 1
    moved = column[same:]
    below = column[same - 1].value if same else None
    for card in moved:
        assert below is None or card.value < below, (column, dealt)
        below = card.value
    return moved


class HanoyPlay(RuleBasedStateMachine):
    """Random legal moves and take-backs on random games; after every step the cards are
    conserved, every column is its dealt prefix plus a falling run, the outcome matches the
    goal, and a take-back restores the position code exactly."""

    state: HanoyState
    game: Hanoy

    @initialize(
        cards=st.integers(3, 9),
        ranks=st.sampled_from(["2-10", "A-9"]),
        skill=st.none() | st.integers(0, 12),
        seed=st.integers(0, 2**53 - 1),
    )
    def start(self, cards: int, ranks: str, skill: int | None, seed: int) -> None:
        self.game = Hanoy(cards=cards, ranks=ranks, skill=skill)
        self.state = self.game.new_state(seed)
        self.dealt = self.state.columns
        self.codes: list[str] = []
        self.boards: list[object] = []

    @precondition(lambda self: not self.state.is_terminal())
    @rule(pick=st.integers(0, 5))
    def move(self, pick: int) -> None:
        moves = list(self.state.legal_moves)
        assert moves  # there is always a legal move while the check is on
        self.codes.append(self.state.code())
        self.boards.append(self.state.board())
        before = self.state.columns
        move = moves[pick % len(moves)]
        self.state.push(move)
        assert self.state.columns == apply_move(before, move)

    @precondition(lambda self: not self.state.is_terminal() and bool(self.state.moves))
    @rule()
    def undo(self) -> None:
        self.state.undo()
        assert self.state.code() == self.codes.pop()
        assert self.state.board() == self.boards.pop()

    @precondition(lambda self: self.state.is_terminal())
    @rule(seed=st.integers(0, 2**53 - 1))
    def after_the_end(self, seed: int) -> None:
        assert not list(self.state.legal_moves)
        with pytest.raises(GameOverError):
            self.state.push(HanoyMove(1, 2))
        with pytest.raises(GameOverError):
            self.state.undo()
        self.state = self.game.new_state(seed)  # the next check
        self.dealt = self.state.columns
        self.codes, self.boards = [], []

    @invariant()
    def cards_are_conserved(self) -> None:
        cards = [c for column in self.state.columns for c in column]
        assert Counter(cards) == Counter(self.game.card_set())
        assert len(self.state.columns) == 3

    @invariant()
    def moved_parts_fall(self) -> None:
        for column, dealt in zip(self.state.columns, self.dealt, strict=True):
            out_of_deal_part_is_decreasing(column, dealt)

    @invariant()
    def outcome_matches_the_goal(self) -> None:
        columns = self.state.columns
        full = [c for c in columns if c]
        won = len(full) == 1 and [c.value for c in full[0]] == sorted(
            (c.value for c in full[0]), reverse=True
        )
        assert (self.state.status is Status.WON) == won
        allowance = self.state.allowance
        if allowance is not None:
            assert self.state.moves_made <= allowance
            if not won:
                assert (self.state.status is Status.LOST) == (self.state.moves_made == allowance)
        assert self.state.code() == self.state.observation().code()
        assert self.game.state_from_code(self.state.code()).code() == self.state.code()


TestHanoyPlay = HanoyPlay.TestCase
TestHanoyPlay.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)


# ---- the fast bot ------------------------------------------------------------------------------


@pytest.mark.parametrize("cards", [3, 4, 5, 6, 7, 8, 9])
def test_fast_bot_builds_the_tower_on_every_sampled_deal(cards: int) -> None:
    game = Hanoy(cards=cards)
    for seed in range(12):
        state = autoplay(game, "fast", seed)
        assert state.status is Status.WON, (cards, seed)
        minimum = game.minimum_moves(game.new_state(seed).columns)
        assert minimum is not None and state.moves_made >= minimum


def test_fast_bot_is_optimal_on_positions_whose_columns_are_in_order() -> None:
    """On such positions the Tower of Hanoi method is the shortest way (it is for the classic
    puzzle, and the bot takes the best of the three columns)."""
    rng = random.Random(6)
    for _ in range(300):
        game = Hanoy(cards=rng.randint(3, 9))
        columns: list[tuple[PlayingCard, ...]] = [(), (), ()]
        for card in sorted(game.card_set(), key=lambda c: -c.value):
            where = rng.randrange(3)
            columns[where] = (*columns[where], card)
        position: Columns = tuple(columns)
        assert len(hanoi_method(position)) == game.minimum_moves(position)


def test_fast_bot_plays_legal_moves_from_any_position() -> None:
    rng = random.Random(8)
    for trial in range(60):
        game = Hanoy(cards=rng.randint(3, 9), ranks=rng.choice(["2-10", "A-9"]))
        cards = list(game.card_set())
        rng.shuffle(cards)
        cut = sorted(rng.randint(0, len(cards)) for _ in range(2))
        columns = (tuple(cards[: cut[0]]), tuple(cards[cut[0] : cut[1]]), tuple(cards[cut[1] :]))
        code = "/".join("".join(_char(c) for c in col) or "-" for col in columns)
        state = game.state_from_code(f"{code} 0")
        bot = FastBot()
        for _ in range(2000):
            if state.is_terminal():
                break
            move = bot.choose(game, state.observation())
            assert move in state.legal_moves
            state.push(move)
        assert state.status is Status.WON, (trial, code)


def _char(card: PlayingCard) -> str:
    return {1: "A", 10: "T"}.get(card.value, str(card.value))


def test_fast_bot_replans_when_the_position_is_not_the_one_it_expected() -> None:
    game = Hanoy(cards=6)
    state = game.new_state(3)
    bot = FastBot()
    first = bot.choose(game, state.observation())
    other = next(m for m in state.legal_moves if m != first)
    state.push(other)  # not the bot's move: it must plan again from here
    while not state.is_terminal():
        move = bot.choose(game, state.observation())
        assert move in state.legal_moves
        state.push(move)
    assert state.status is Status.WON
    assert bot.choose(game, state.observation()) is None


def test_bots_are_registered_and_deterministic() -> None:
    game = Hanoy(cards=7, skill=8)
    assert set(game.bots()) == {"fast", "random"}
    assert make_bot(game, "fast").name == "fast"
    one, two = autoplay(game, "fast", 11), autoplay(game, "fast", 11)
    assert one.history == two.history and one.outcome == two.outcome
    with pytest.raises(TypeError):
        FastBot().choose(object(), object())
