"""Fair autoplay: bots see only the player's observation, and play checks to the end."""

from __future__ import annotations

import random
from typing import Any

import pytest

from skillcheck import Status, ThreeTowers, ThreeTowersObservation, TowerMove
from skillcheck.errors import ParameterError
from skillcheck.games.three_towers.bots import (
    FastBot,
    StrongBot,
    autoplay,
    hidden_cards,
    make_bot,
    resolve_check,
    sample_deck,
)


class SpyBot:
    """Records what it is given, then plays like the fast bot."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.inner = FastBot()

    def choose(self, game: ThreeTowers, observation: ThreeTowersObservation) -> TowerMove | None:
        self.seen.append(observation)
        return self.inner.choose(game, observation)


def test_autoplay_hands_the_bot_observations_only() -> None:
    game = ThreeTowers.quota_check("moons", 4, 3, level=6)
    spy = SpyBot()
    state = autoplay(game, spy, seed=5)
    assert state.is_terminal()
    assert spy.seen and all(type(o) is ThreeTowersObservation for o in spy.seen)
    for observation in spy.seen:
        # An observation holds no deck order: only the top card and a count.
        assert not hasattr(observation, "remaining_deck")
        assert "+" in observation.code() or observation.top_card is None


def _same_prefix_other_order(deal: tuple[Any, ...], keep: int, seed: int) -> tuple[Any, ...]:
    rest = list(deal[keep:])
    random.Random(seed).shuffle(rest)
    return deal[:keep] + tuple(rest)


@pytest.mark.parametrize("bot_name", ["fast", "strong"])
def test_bot_moves_do_not_depend_on_the_hidden_order(bot_name: str) -> None:
    """Two deals that agree on the first cards but not on the hidden rest: the bot plays the same
    moves until the first card that differs is turned up."""
    game = ThreeTowers.quota_check("suns", 6, 4, level=7)
    deal = game.deal(11)
    keep = 8
    other = _same_prefix_other_order(deal, keep, 3)
    assert other != deal
    lines = []
    for cards in (deal, other):
        state = game.state_from_deal(cards)
        bot = make_bot(bot_name)
        line = []
        # Play while the top card is one of the shared first cards.
        while not state.is_terminal() and len(state.deal or ()) - state.cards_left < keep:
            move = bot.choose(game, state.observation())
            if move is None:
                break
            state.push(move)
            line.append(move)
        lines.append(line)
    assert lines[0] == lines[1]
    assert len(lines[0]) >= keep - 1


def test_hidden_cards_and_samples_are_consistent_with_the_observation() -> None:
    game = ThreeTowers.quota_check("waves", 3, 2, level=8)
    state = game.new_state(21)
    for code in ("d1", "d2", "d3"):
        if TowerMove.parse(code) in state.legal_moves:
            state.push_code(code)
    observation = state.observation()
    hidden = hidden_cards(game, observation)
    assert hidden.count == observation.cards_left - 1
    true_hidden = set(state.remaining_deck[1:])
    assert true_hidden <= set(hidden.certain) | set(hidden.candidates)
    rng = random.Random(0)
    for _ in range(20):
        deck = sample_deck(game, observation, rng)
        assert deck[0] == observation.top_card
        assert len(deck) == observation.cards_left
        placed = [c for t in observation.towers for c in t]
        # The sample plus the cards already placed is a possible deck of this game.
        game.state_from_deal(tuple(placed) + deck)


@pytest.mark.parametrize("seed", range(6))
def test_fast_bot_finishes_checks_with_legal_moves(seed: int) -> None:
    game = ThreeTowers.quota_check("knots", 5, 3)
    state = autoplay(game, "fast", seed)
    assert state.outcome is not None
    record = state.record()
    from skillcheck.records import verify

    assert verify(record).outcome == state.outcome


def test_strong_bot_wins_at_least_as_often_as_fast_on_easy_checks() -> None:
    game = ThreeTowers.quota_check("moons", 4, 3, level=7)
    fast = sum(autoplay(game, "fast", s).status is Status.WON for s in range(8))
    strong = sum(
        autoplay(game, StrongBot(samples=6, seed=1), s).status is Status.WON for s in range(8)
    )
    assert strong >= fast
    assert strong >= 5


def test_resolve_check_is_one_call_and_reproducible() -> None:
    first = resolve_check("leaves", 6, 3, seed=99)
    again = resolve_check("leaves", 6, 3, seed=99)
    assert first == again
    assert (first.degree >= 0) == first.success


def test_unknown_bot_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match="the bots are fast, strong"):
        make_bot("genius")


# Level-6 deals (odds seed 2026) on which the bots used to play the solver's raw line (thousands
# of moves from the exhaustive search) and were stopped by autoplay's 5,000-move cap: the strong
# bot on the first, the fast bot on the other two.
CAPPED_LEVEL_6_DEALS = (1493203240974458, 4064333450300497, 3866116367396348)


@pytest.mark.parametrize(
    "bot_name", ["fast", pytest.param("strong", marks=pytest.mark.slow)]  # (10 s a deal)
)
@pytest.mark.parametrize("seed", CAPPED_LEVEL_6_DEALS)
def test_bots_play_short_lines_not_the_search_path(bot_name: str, seed: int) -> None:
    """A bot follows a shortened line: the check ends by its goal, far below the move cap."""
    state = autoplay(ThreeTowers(level=6), bot_name, seed)
    assert state.status is Status.WON
    assert len(state.moves) < 500


def test_fast_bot_endgame_is_shortened() -> None:
    """Once the deck is empty the fast bot solves exactly; the line it plays is the solver's
    line shortened (never longer, and here far shorter)."""
    from skillcheck.games.three_towers.bots import visible_state
    from skillcheck.games.three_towers.solver import solve

    game = ThreeTowers(level=6)
    state = game.new_state(CAPPED_LEVEL_6_DEALS[1])
    bot = FastBot()
    while state.top_card is not None:
        move = bot.choose(game, state.observation())
        assert move is not None
        state.push(move)
    raw = solve(game, (), start=visible_state(game, state.observation()), max_states=2_000_000)
    assert raw.result == "win"
    played = 0
    while not state.is_terminal():
        move = bot.choose(game, state.observation())
        assert move is not None
        state.push(move)
        played += 1
    assert state.status is Status.WON
    assert played < len(raw.moves)
