"""Tri Peaks in play: random lines and take-backs checked against invariants, the face-down rule
as a property, TriTowers' score recomputed from the history, and the fair bot."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from skillcheck import Status
from skillcheck.cards.standard import STANDARD
from skillcheck.games.tripeaks import (
    COVERED_BY,
    DEAL_COST,
    PEAK_BONUS,
    STOCK_BONUS,
    TIPS,
    Tripeaks,
    TripeaksState,
)
from skillcheck.games.tripeaks.bots import FastBot
from skillcheck.serialization import game_from_params
from skillcheck.solving import autoplay

VARIANTS: list[dict[str, Any]] = [dict(p) for p in Tripeaks.examples()]


def replayed_score(game: Tripeaks, state: TripeaksState) -> tuple[int, int]:
    """TriTowers' score and run recomputed from the start and the moves made (an independent
    reading of seed 003's scoring)."""
    probe = game.state_from_deal(state.deal or (), seed=state.seed)
    score = run = 0
    for move in state.moves:
        if move.position is not None:
            run += 1
            score += run
            if move.position in TIPS:
                gone = sum(probe.tableau[t] is None for t in TIPS) + 1
                score += PEAK_BONUS[gone - 1]
            left = sum(c is not None for c in probe.tableau) - 1
            won = left == 0 if game.target is not None else (
                sum(probe.tableau[t] is None for t in TIPS)
                + (move.position in TIPS) >= game.peaks
            )  # fmt: skip
            if won:
                score += STOCK_BONUS * len(probe.stock)
        elif move.code == "s":
            score -= DEAL_COST
            run = 0
        else:
            run = 0
        probe.push(move)
    return (score, run) if game.tritowers else (0, 0)


def check_invariants(state: TripeaksState) -> None:
    game = state.game
    cards = [c for c in state.tableau if c is not None] + list(state.waste) + list(state.stock)
    # 52 cards conserved, each in exactly one place; the cards set aside never move
    cards += state.aside
    assert len(cards) == 52 and set(cards) == set(STANDARD)
    assert len(state.aside) == game.set_aside == state.observation().set_aside
    assert {c.code for c in state.aside} <= state.hidden_codes()
    present = state.present
    observation = state.observation()
    for i in range(28):
        covered = any(present[j] for j in COVERED_BY[i])
        if not present[i]:
            assert observation.peaks[i] is None
            continue
        face_down = covered and not game.all_face_up
        # face-down cards are exactly those with a covering card still there (basic form)
        assert (observation.peaks[i] is None) == face_down
        assert (state.tableau[i].code in state.hidden_codes()) == face_down  # type: ignore[union-attr]
    assert observation.stock == len(state.stock)
    assert {c.code for c in state.stock} <= state.hidden_codes()
    assert [m.code for m in observation.legal_moves()] == [m.code for m in state.legal_moves]
    assert (state.score, state.run) == replayed_score(game, state)
    assert 0 <= state.redeals_left <= game.passes
    if state.outcome is not None and state.outcome.status is Status.WON and game.target is None:
        assert sum(state.tableau[t] is None for t in TIPS) >= game.peaks


class TripeaksMachine(RuleBasedStateMachine):
    """Random legal moves and take-backs on random variants and deals."""

    state: TripeaksState
    trail: list[str]

    @initialize(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**40))
    def start(self, variant: dict[str, Any], seed: int) -> None:
        game = game_from_params("tripeaks", variant)
        assert isinstance(game, Tripeaks)
        if "undo" not in variant:  # take back any move (the safe policy: tests/test_undo_policy.py)
            game = game.evolve(undo="full")
        self.state = game.new_state(seed)
        self.trail = [self.state.code()]

    @precondition(lambda self: hasattr(self, "state") and not self.state.is_terminal())
    @rule(pick=st.integers(0, 1000))
    def move(self, pick: int) -> None:
        moves = list(self.state.legal_moves)
        self.state.push(moves[pick % len(moves)])
        self.trail.append(self.state.code())

    @precondition(
        lambda self: (
            hasattr(self, "state")
            and not self.state.is_terminal()
            and self.state.can_undo
        )
    )
    @rule()
    def undo(self) -> None:
        self.state.undo()
        self.trail.pop()
        assert self.state.code() == self.trail[-1]

    @rule()
    def copy(self) -> None:
        """A copy is the same position, and replaying the history from the deal reaches it."""
        other = self.state.copy()
        assert other.code() == self.state.code() and other.outcome == self.state.outcome
        replay = self.state.game.state_from_deal(self.state.deal or ())
        for move in self.state.moves:
            replay.push(move)
        assert replay.code() == self.state.code() and replay.outcome == self.state.outcome

    @invariant()
    def holds(self) -> None:
        if hasattr(self, "state"):
            check_invariants(self.state)


TestTripeaksMachine = TripeaksMachine.TestCase
TestTripeaksMachine.settings = settings(
    max_examples=60, stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**40), picks=st.lists(st.integers(0, 1000), max_size=80))
def test_face_down_cards_flip_exactly_when_both_covering_cards_are_gone(
    seed: int, picks: list[int]
) -> None:
    """Seed 001: "Et kort med baksiden opp snus når begge kortene som grenser til det er borte."
    Over random plays: a card turns face up at exactly the move that takes away the last of its
    two covering cards, and never turns back down (except by a take-back)."""
    state = Tripeaks().new_state(seed)
    for pick in picks:
        if state.is_terminal():
            break
        before = state.observation()
        moves = list(state.legal_moves)
        move = moves[pick % len(moves)]
        state.push(move)
        after = state.observation()
        for i in range(18):
            if not after.present[i]:
                continue
            was_down = before.peaks[i] is None
            now_down = after.peaks[i] is None
            covers_left = [j for j in COVERED_BY[i] if after.present[j]]
            if was_down and not now_down:
                assert not covers_left and move.position in COVERED_BY[i]
            if not was_down:
                assert not now_down
            assert now_down == bool(covers_left)


def test_the_fast_bot_sees_only_the_observation() -> None:
    """Two deals that differ only in the face-down cards and the stock give the bot the same
    observation, so it makes the same first move."""
    game = Tripeaks()
    rng = random.Random(3)
    for seed in range(20):
        state = game.new_state(seed)
        deal = list(state.deal or ())
        hidden = [i for i, c in enumerate(deal) if c.code in state.hidden_codes()]
        shuffled = [deal[i] for i in hidden]
        rng.shuffle(shuffled)
        for i, card in zip(hidden, shuffled, strict=True):
            deal[i] = card
        other = game.state_from_deal(deal)
        assert other.observation() == state.observation()
        assert FastBot().choose(game, other.observation()) == FastBot().choose(
            game, state.observation()
        )


def test_the_fast_bot_plays_legal_moves_and_beats_random() -> None:
    game = Tripeaks(wrap=True)
    fast = sum(autoplay(game, "fast", s).status is Status.WON for s in range(60))
    rand = sum(autoplay(game, "random", s).status is Status.WON for s in range(60))
    assert fast > rand
    assert fast >= 15  # about 45% of the deals with wrap


def test_the_fast_bot_favours_the_nearest_peak_in_a_one_peak_check() -> None:
    game = Tripeaks(peaks=1)
    wins = sum(autoplay(game, "fast", s).status is Status.WON for s in range(40))
    assert wins >= 28  # about 90%
