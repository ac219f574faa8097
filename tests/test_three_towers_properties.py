"""Property-based tests of Three Towers (hypothesis), including a stateful test of push/undo.

Games are drawn over every parameter (level 2..9, spaces 3..8, the standard, Ivory and Quota
variants with valid skill and quota, optional move limits); deals from seeds 0..2**53-1; plays
from lists of choices, each picking one of the legal moves.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from skillcheck import (
    DECK,
    MAX_SEED,
    Card,
    GameOverError,
    IllegalMoveError,
    Ivory,
    Quota,
    Standard,
    Status,
    Suit,
    ThreeTowers,
    ThreeTowersObservation,
    ThreeTowersState,
    TowerMove,
    UndoError,
    level_deck,
)
from skillcheck.records import GameRecord, verify

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(min_value=0, max_value=MAX_SEED)
choices = st.lists(st.integers(min_value=0, max_value=10_000), max_size=120)


@st.composite
def variants(draw: st.DrawFn, level: int) -> Standard | Ivory | Quota:
    kind = draw(st.sampled_from(["standard", "ivory", "quota"]))
    if kind == "standard":
        return Standard()
    suit = draw(st.sampled_from(list(Suit)))
    if kind == "ivory":
        return Ivory(suit)
    skill = draw(st.integers(min_value=1, max_value=level - 1))
    quota = draw(st.integers(min_value=1, max_value=skill))
    suited = None
    if draw(st.booleans()):
        available = [c for c in level_deck(level) if c.bears(suit)]
        suited = tuple(draw(st.permutations(available))[:skill])
    return Quota(suit, skill, quota, suited)


@st.composite
def games(draw: st.DrawFn, *, move_limit: bool = False, undo: bool | None = True) -> ThreeTowers:
    level = draw(st.integers(min_value=2, max_value=9))
    spaces = draw(st.integers(min_value=3, max_value=8))
    variant = draw(variants(level))
    limit = draw(st.none() | st.integers(min_value=1, max_value=60)) if move_limit else None
    allow_undo = draw(st.booleans()) if undo is None else undo
    return ThreeTowers(
        level=level, spaces=spaces, variant=variant, undo=allow_undo, move_limit=limit
    )


def play(state: ThreeTowersState, picks: list[int]) -> Iterator[ThreeTowersState]:
    """Push one legal move per pick (pick modulo the number of legal moves); yield after each."""
    for pick in picks:
        moves = list(state.legal_moves)
        if not moves:
            return
        state.push(moves[pick % len(moves)])
        yield state


def multiset(cards: object) -> Counter[Card]:
    return Counter(cards)  # type: ignore[call-overload]


def well_built(towers: tuple[tuple[Card, ...], ...]) -> bool:
    return all(
        above.rank < below.rank and set(above.suits) & set(below.suits)
        for tower in towers
        for below, above in itertools.pairwise(tower)
    )


def all_moves(spaces: int) -> list[TowerMove]:
    """Every move that can be written for a game with ``spaces`` towers, legal or not."""
    return [TowerMove(s, t) for s in range(0, spaces + 2) for t in range(0, spaces + 2)]


# ---- deals ---------------------------------------------------------------------------------------


@PROPERTY
@given(game=games(), seed=seeds)
def test_deal_is_a_deterministic_permutation_of_the_deck(game: ThreeTowers, seed: int) -> None:
    deal = game.deal(seed)
    assert game.deal(seed) == deal
    assert game.new_state(seed).remaining_deck == deal
    variant = game.variant
    if isinstance(variant, Quota):
        suited = [c for c in deal if c.bears(variant.suit)]
        assert len(suited) == variant.skill
        if variant.suited_cards is not None:
            assert set(suited) == set(variant.suited_cards)
        deck = game.deck(suited)
    else:
        deck = game.deck()
    assert multiset(deal) == multiset(deck)
    assert len(set(deal)) == len(deal)
    assert all(c.rank is not None and c.rank.is_numeral and c.rank <= game.level for c in deal)


# ---- plays ---------------------------------------------------------------------------------------


@PROPERTY
@given(game=games(), seed=seeds, picks=choices)
def test_cards_are_conserved_and_towers_stay_well_built(
    game: ThreeTowers, seed: int, picks: list[int]
) -> None:
    state = game.new_state(seed)
    deal = multiset(state.deal)
    for after in play(state, picks):
        on_towers = [c for t in after.towers for c in t]
        assert multiset(on_towers) + multiset(after.remaining_deck) == deal
        assert len(on_towers) + after.cards_left == sum(deal.values())
        assert well_built(after.towers)


@PROPERTY
@given(game=games(), seed=seeds, picks=choices)
def test_observation_never_shows_hidden_cards(
    game: ThreeTowers, seed: int, picks: list[int]
) -> None:
    state = game.new_state(seed)
    for after in itertools.chain([state], play(state, picks)):
        hidden = set(after.remaining_deck[1:])
        obs = after.observation()
        shown = {c for t in obs.towers for c in t} | ({obs.top_card} - {None})
        assert not shown & hidden
        assert obs.top_card == (after.remaining_deck[0] if after.remaining_deck else None)
        assert obs.cards_left == len(after.remaining_deck)
        text = obs.code()
        for c in hidden:
            assert c.code not in text
            assert c.code not in repr(obs)
        again = ThreeTowersObservation.from_code(text, game.spaces)
        assert again.code() == text
        # what the player sees is enough to know the legal moves
        assert obs.legal_moves() == list(after.legal_moves)


@PROPERTY
@given(game=games(), seed=seeds, picks=choices)
def test_position_code_round_trips(game: ThreeTowers, seed: int, picks: list[int]) -> None:
    state = game.new_state(seed)
    for after in itertools.chain([state], play(state, picks)):
        code = after.code()
        back = game.state_from_code(code)
        assert back.code() == code
        assert back.towers == after.towers
        assert back.remaining_deck == after.remaining_deck
        if not after.is_terminal():
            assert {m.code for m in back.legal_moves} == {m.code for m in after.legal_moves}


@PROPERTY
@given(game=games(), seed=seeds, picks=choices)
def test_move_codes_round_trip_for_every_legal_move(
    game: ThreeTowers, seed: int, picks: list[int]
) -> None:
    state = game.new_state(seed)
    for after in itertools.chain([state], play(state, picks)):
        for move in after.legal_moves:
            assert TowerMove.parse(move.code) == move
            assert game.parse_move(move.code.upper()) == move
            assert (move.code[0] == "d") is (move.source == DECK)


@PROPERTY
@given(game=games(move_limit=True, undo=None), seed=seeds, picks=choices, concede=st.booleans())
def test_records_round_trip_through_json_and_replay(
    game: ThreeTowers, seed: int, picks: list[int], concede: bool
) -> None:
    state = game.new_state(seed)
    for _ in play(state, picks):
        pass
    if concede and not state.is_terminal():
        state.concede()
    record = state.record(reveal=True)
    text = record.to_json()
    back = GameRecord.from_json(text)
    assert back == record
    assert back.to_json() == text
    replayed = back.replay()
    assert replayed.code() == state.code()
    assert replayed.outcome == state.outcome
    if state.is_terminal():
        assert verify(GameRecord.from_json(state.record().to_json())).code() == state.code()


# ---- stateful: push, undo, concede ---------------------------------------------------------------


class ThreeTowersMachine(RuleBasedStateMachine):
    """Random legal moves, undos, illegal moves and concessions on random games."""

    state: ThreeTowersState
    codes: list[str]

    @initialize(game=games(move_limit=True, undo=None), seed=seeds)
    def start(self, game: ThreeTowers, seed: int) -> None:
        self.game = game
        self.state = game.new_state(seed)
        self.codes = []  # the code before each move still on the stack

    @precondition(lambda self: self.state.is_terminal())
    @rule(seed=seeds)
    def new_check(self, seed: int) -> None:
        self.state = self.game.new_state(seed)
        self.codes = []

    @precondition(lambda self: not self.state.is_terminal())
    @rule(pick=st.integers(min_value=0, max_value=10_000))
    def push_legal(self, pick: int) -> None:
        moves = list(self.state.legal_moves)
        assert moves  # a check in progress always has a move
        before = self.state.code()
        count = len(self.state.moves)
        self.state.push(moves[pick % len(moves)])
        self.codes.append(before)
        assert len(self.state.moves) == count + 1

    @rule(source=st.integers(min_value=0, max_value=9), to=st.integers(0, 9))
    def push_illegal(self, source: int, to: int) -> None:
        # ("target" is a reserved argument name of @rule)
        move = TowerMove(source, to)
        if move in self.state.legal_moves:
            return
        before = (self.state.code(), self.state.moves, self.state.outcome)
        expected = GameOverError if self.state.is_terminal() else IllegalMoveError
        try:
            self.state.push(move)
        except expected:
            pass
        else:
            raise AssertionError(f"{move.code} was accepted in {before[0]}")
        assert (self.state.code(), self.state.moves, self.state.outcome) == before

    @rule()
    def undo(self) -> None:
        before = (self.state.code(), self.state.moves, self.state.outcome)
        if not self.game.undo or not self.state.moves:
            expected: type[Exception] = UndoError
        elif self.state.is_terminal():
            expected = GameOverError
        else:
            last = self.state.moves[-1]
            assert self.state.undo() == last
            assert self.state.code() == self.codes.pop()
            assert self.state.outcome is None
            return
        try:
            self.state.undo()
        except expected:
            pass
        else:
            raise AssertionError("undo was accepted")
        assert (self.state.code(), self.state.moves, self.state.outcome) == before

    @precondition(lambda self: not self.state.is_terminal() and len(self.state.moves) > 3)
    @rule()
    def concede(self) -> None:
        outcome = self.state.concede()
        assert outcome.status is Status.LOST
        assert self.state.is_terminal()

    @invariant()
    def legal_moves_agree(self) -> None:
        if not hasattr(self, "state"):
            return
        legal = self.state.legal_moves
        listed = list(legal)
        assert len(legal) == len(listed) == legal.count()
        assert bool(legal) is bool(listed)
        assert len(set(listed)) == len(listed)
        for move in all_moves(self.game.spaces):
            assert (move in legal) is (move in listed)
        if self.state.is_terminal():
            assert not listed
        else:
            assert listed  # in progress means there is something to do

    @invariant()
    def cards_are_conserved(self) -> None:
        if not hasattr(self, "state"):
            return
        on_towers = [c for t in self.state.towers for c in t]
        assert multiset(on_towers) + multiset(self.state.remaining_deck) == multiset(
            self.state.deal
        )
        assert well_built(self.state.towers)
        assert self.state.moves_made == len(self.state.moves)


ThreeTowersMachine.TestCase.settings = settings(
    max_examples=80,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestThreeTowersMachine = ThreeTowersMachine.TestCase
