"""Fair autoplay: bots that play a check seeing only the player's observation.

A bot is given the game (its rules and parameters are public) and an observation; it never sees
the state, so it cannot know the order of the hidden cards. :func:`autoplay` runs a bot against a
real state; :func:`resolve_check` is the one call an RPG engine uses to resolve an NPC's check.

Bots:

- ``fast``: a one-move-lookahead heuristic; once the deck is empty (nothing is hidden any more) it
  searches the visible position exactly.
- ``strong``: samples deck orders consistent with what the player has seen, solves each with the
  exact solver, and plays the plan that wins in most samples.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any

from attrs import frozen

from skillcheck import solving
from skillcheck.cards.decktet import Card
from skillcheck.engine import Outcome
from skillcheck.games.three_towers.lines import position_key, shorten_line
from skillcheck.games.three_towers.rules import (
    DECK,
    Quota,
    ThreeTowers,
    ThreeTowersObservation,
    ThreeTowersState,
    TowerMove,
    apply_tower_move,
    legal_tower_moves,
    level_deck,
)
from skillcheck.registry import register_analysis
from skillcheck.solving import Bot

__all__ = [
    "BOTS",
    "Bot",
    "FastBot",
    "HiddenCards",
    "StrongBot",
    "autoplay",
    "hidden_cards",
    "make_bot",
    "resolve_check",
    "sample_deck",
]

Towers = tuple[tuple[Card, ...], ...]


# ---- what a player can infer ---------------------------------------------------------------------


@frozen
class HiddenCards:
    """What a player knows about the cards under the top card.

    ``certain`` are surely in the deck; ``count_from_candidates`` more are among ``candidates``
    (a quota deck whose suited cards the RNG chose: the player knows how many, not which).
    """

    certain: tuple[Card, ...]
    candidates: tuple[Card, ...]
    count_from_candidates: int

    @property
    def count(self) -> int:
        return len(self.certain) + self.count_from_candidates


def hidden_cards(game: ThreeTowers, observation: ThreeTowersObservation) -> HiddenCards:
    """The player's knowledge of the hidden cards, from the public rules and the observation."""
    seen = {c for t in observation.towers for c in t}
    if observation.top_card is not None:
        seen.add(observation.top_card)
    variant = game.variant
    if isinstance(variant, Quota) and variant.suited_cards is None:
        base = game.deck(suited=())
        certain = tuple(c for c in base if c not in seen)
        seen_suited = sum(1 for c in seen if c.bears(variant.suit))
        candidates = tuple(c for c in _all_suited(game) if c not in seen)
        return HiddenCards(certain, candidates, variant.skill - seen_suited)
    return HiddenCards(tuple(c for c in game.deck() if c not in seen), (), 0)


def _all_suited(game: ThreeTowers) -> tuple[Card, ...]:
    variant = game.variant
    assert isinstance(variant, Quota)
    return tuple(c for c in level_deck(game.level) if c.bears(variant.suit))


def sample_deck(
    game: ThreeTowers, observation: ThreeTowersObservation, rng: random.Random
) -> tuple[Card, ...]:
    """A deck (top card first) consistent with everything the player has seen."""
    hidden = hidden_cards(game, observation)
    cards = list(hidden.certain) + rng.sample(hidden.candidates, hidden.count_from_candidates)
    rng.shuffle(cards)
    top = () if observation.top_card is None else (observation.top_card,)
    return top + tuple(cards)


def visible_state(
    game: ThreeTowers, observation: ThreeTowersObservation, deck: Sequence[Card] = ()
) -> ThreeTowersState:
    """A state with the observed towers and the given deck (a sample, or empty when none is
    hidden). Only for searching: it carries no seed."""
    return ThreeTowersState(
        game.evolve(move_limit=None), observation.towers, tuple(deck), 0,
        moves_made=observation.moves_made,
    )  # fmt: skip


# ---- the fast heuristic ------------------------------------------------------------------------


def _rank(card: Card) -> int:
    assert card.rank is not None
    return int(card.rank)


def _top_capacity(tower: tuple[Card, ...], level: int) -> int:
    """How many more cards could still go on this tower (ranks below its top card)."""
    return (_rank(tower[-1]) - 2) if tower else level - 1


def heuristic(game: ThreeTowers, towers: Towers) -> float:
    """How promising a visible arrangement of towers is (higher is better)."""
    level = game.level
    empty = sum(1 for t in towers if not t)
    variant = game.variant
    if isinstance(variant, Quota):
        suit = variant.suit
        score = 10.0 * empty
        best = 0
        for tower in towers:
            if not tower:
                continue
            if all(c.bears(suit) for c in tower):
                best = max(best, len(tower))
                score += 12.0 * len(tower) + 1.0 * _top_capacity(tower, level)
                continue
            score += 1.5 * _top_capacity(tower, level) - 6.0
            for depth, card in enumerate(tower):
                if card.bears(suit) and any(not c.bears(suit) for c in tower[depth + 1 :]):
                    score -= 15.0  # a suited card buried under cards without the suit
        return score + 100.0 * best
    score = 6.0 * empty
    for tower in towers:
        if not tower:
            continue
        score -= 4.0
        if _rank(tower[0]) == level:
            score += 10.0
        for below, above in itertools.pairwise(tower):
            gap = _rank(below) - _rank(above)
            score += 5.0 if gap == 1 else -4.0 * (gap - 1)
    return score


def _quota_met(game: ThreeTowers, towers: Towers) -> bool:
    variant = game.variant
    if not isinstance(variant, Quota):
        return False
    return any(len(t) >= variant.quota and all(c.bears(variant.suit) for c in t) for t in towers)


def _tower_plans(towers: Towers, depth: int) -> list[tuple[Towers, tuple[TowerMove, ...]]]:
    """Arrangements reachable with up to ``depth`` tower moves (one path each, shortest first)."""
    seen = {position_key(towers)}
    frontier: list[tuple[Towers, tuple[TowerMove, ...]]] = [(towers, ())]
    plans = list(frontier)
    for _ in range(depth):
        nxt: list[tuple[Towers, tuple[TowerMove, ...]]] = []
        for current, moves in frontier:
            for move in legal_tower_moves(current, None):
                after = apply_tower_move(current, move, None)
                key = position_key(after)
                if key not in seen:
                    seen.add(key)
                    nxt.append((after, (*moves, move)))
        plans += nxt
        frontier = nxt
    return plans


class _PlanFollower:
    """A bot that decides a plan (tower moves and a deck placement) at once, then plays it out
    move by move as long as the observations follow it."""

    def __init__(self) -> None:
        self._plan: list[TowerMove] = []
        self._plan_at = -1

    def _planned(self, observation: ThreeTowersObservation) -> TowerMove | None:
        if self._plan and self._plan_at == observation.moves_made:
            self._plan_at += 1
            return self._plan.pop(0)
        self._plan = []
        return None

    def _follow(
        self, plan: Sequence[TowerMove], observation: ThreeTowersObservation
    ) -> TowerMove | None:
        if not plan:
            return None
        self._plan, self._plan_at = list(plan[1:]), observation.moves_made + 1
        return plan[0]


class FastBot(_PlanFollower):
    """Looks a few tower moves ahead of each deck placement and scores the result with a
    heuristic; once the deck is empty (nothing is hidden any more) it searches exactly."""

    name = "fast"

    def __init__(self, *, depth: int = 4, endgame_states: int = 200_000) -> None:
        super().__init__()
        self.depth = depth
        self.endgame_states = endgame_states

    def choose(self, game: ThreeTowers, observation: ThreeTowersObservation) -> TowerMove | None:
        planned = self._planned(observation)
        if planned is not None:
            return planned
        top = observation.top_card
        if top is None:
            plan = self._endgame(game, observation)
        else:
            plan = self._deck_plan(game, observation.towers, top)
        return self._follow(plan, observation)

    def _deck_plan(self, game: ThreeTowers, towers: Towers, top: Card) -> list[TowerMove]:
        best: float | None = None
        choice: list[TowerMove] = []
        for arrangement, moves in _tower_plans(towers, self.depth):
            if _quota_met(game, arrangement):
                return list(moves)
            for move in legal_tower_moves(arrangement, top):
                if move.source != DECK:
                    continue
                score = heuristic(game, apply_tower_move(arrangement, move, top)) - 0.1 * len(moves)
                if best is None or score > best:
                    best, choice = score, [*moves, move]
        return choice

    def _endgame(self, game: ThreeTowers, observation: ThreeTowersObservation) -> list[TowerMove]:
        from skillcheck.games.three_towers.solver import solve

        start = visible_state(game, observation)
        solution = solve(game, (), start=start, max_states=self.endgame_states)
        if solution.result != "win":
            return []
        # a search's line wanders (thousands of moves from a small game's exhaustive search):
        # played as found it could run into the move limit of a table or of autoplay
        return list(shorten_line(game, start, solution.moves))


def _after(observation: ThreeTowersObservation, plan: Sequence[TowerMove]) -> Towers:
    """The towers after ``plan`` (tower moves, then at most one deck move: the visible card)."""
    towers, top = observation.towers, observation.top_card
    for move in plan:
        towers = apply_tower_move(towers, move, top if move.source == DECK else None)
    return towers


def _plan_prefix(moves: Sequence[TowerMove]) -> tuple[TowerMove, ...]:
    """The moves up to and including the first deck move (the next irreversible choice)."""
    for index, move in enumerate(moves):
        if move.source == DECK:
            return tuple(moves[: index + 1])
    return tuple(moves)


class StrongBot(_PlanFollower):
    """Determinized search: sample deck orders consistent with the observation, solve each with
    the exact solver, and play the plan (tower moves, then the next deck placement) that wins in
    the most samples. Its random choices come from its own seed, never from the hidden deck."""

    name = "strong"

    def __init__(
        self, *, samples: int = 12, candidates: int = 4, solver_states: int = 20_000,
        seed: int = 0,
    ) -> None:  # fmt: skip
        super().__init__()
        self.samples = samples
        self.candidates = candidates
        self.solver_states = solver_states
        self._rng = random.Random(seed)
        self._fallback = FastBot(endgame_states=solver_states * 10)

    def choose(self, game: ThreeTowers, observation: ThreeTowersObservation) -> TowerMove | None:
        planned = self._planned(observation)
        if planned is not None:
            return planned
        if observation.top_card is None:
            return self._fallback.choose(game, observation)  # nothing hidden: exact search
        plan = self._best_plan(game, observation)
        if plan is None:
            return self._fallback.choose(game, observation)
        return self._follow(plan, observation)

    def _wins(self, game: ThreeTowers, start: ThreeTowersState) -> bool:
        from skillcheck.games.three_towers.solver import solve

        return solve(game, (), start=start, max_states=self.solver_states).result == "win"

    def _best_plan(
        self, game: ThreeTowers, observation: ThreeTowersObservation
    ) -> tuple[TowerMove, ...] | None:
        from skillcheck.games.three_towers.solver import solve

        decks = [sample_deck(game, observation, self._rng) for _ in range(self.samples)]
        # plans are grouped by the position they lead to (the placed card is the visible top
        # card, so every sample reaches the same one): two solutions that shuffle the towers
        # differently on the way to the same placement are one proposal, with the shorter plan
        proposals: dict[tuple[tuple[int, ...], ...], tuple[tuple[TowerMove, ...], set[int]]] = {}
        for index, deck in enumerate(decks):
            solution = solve(
                game, (), start=visible_state(game, observation, deck),
                max_states=self.solver_states,
            )  # fmt: skip
            if solution.result == "win" and solution.moves:
                plan = _plan_prefix(solution.moves)
                key = position_key(_after(observation, plan))
                known, voters = proposals.get(key, (plan, set()))
                proposals[key] = (min(known, plan, key=len), voters | {index})
        if not proposals:
            return None
        ranked = sorted(proposals.values(), key=lambda p: (-len(p[1]), len(p[0])))
        best: tuple[int, tuple[TowerMove, ...], int] | None = None
        for plan, voters in ranked[: self.candidates]:
            wins = len(voters)
            for index, deck in enumerate(decks):
                if index in voters:
                    continue
                state = visible_state(game, observation, deck)
                for move in plan:
                    state.push(move)
                wins += (state.outcome is not None and state.outcome.success) or (
                    state.outcome is None and self._wins(game, state)
                )
            if best is None or wins > best[0]:
                best = (wins, plan, min(voters))
        assert best is not None
        _, plan, voter = best
        # the solver's path to that placement wanders: take a short way to the same position
        return shorten_line(game, visible_state(game, observation, decks[voter]), plan)


BOTS: dict[str, Callable[[], Bot]] = {"fast": FastBot, "strong": StrongBot}
register_analysis(ThreeTowers.name, bots=BOTS)


def make_bot(name: str) -> Bot:
    """A Three Towers bot by name (``fast``, ``strong`` or ``random``)."""
    return solving.make_bot(ThreeTowers(), name)


def autoplay(
    game: ThreeTowers, bot: Bot | str = "fast", seed: int | None = None, *, max_moves: int = 5000
) -> ThreeTowersState:
    """Play one check to the end with ``bot`` (which sees only observations)."""
    state = solving.autoplay(game, bot, seed, max_moves=max_moves)
    assert isinstance(state, ThreeTowersState)
    return state


def resolve_check(
    suit: str,
    skill: int,
    quota: int,
    *,
    bot: Bot | str = "fast",
    seed: int | None = None,
    **params: Any,
) -> Outcome:
    """Resolve an NPC's quota check in one call; returns the outcome with its degree."""
    game = ThreeTowers.quota_check(suit, skill, quota, **params)
    outcome: Outcome = solving.resolve(game, bot=bot, seed=seed)
    return outcome
