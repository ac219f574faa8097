"""The fair bots of Tri Peaks: they see only the observation (never a face-down card or the stock).

The ``fast`` bot plays as a careful person does: when a free card fits, it looks at every chain of
plays it can see from here (free cards only, and the cards a removal frees when they are already
face up) and starts the one that plays the most cards, turning up the most face-down cards as a
tie-breaker, and favouring a peak the check needs that is closest to cleared. When no card
fits it deals from the stock, and when the stock is empty it takes a redeal if one is left.

The ``strong`` bot (:class:`StrongBot`) searches: it deals the cards it has not seen into the
face-down positions and the stock many times over (*determinization*), solves each of these
sample deals exactly with the perfect-information search (:mod:`.search`), and plays the move
that wins in the most samples. docs/games/tripeaks-bots.md has both bots and their odds.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from typing import Any

from attrs import evolve, frozen

from skillcheck.cards.standard import STANDARD, PlayingCard
from skillcheck.games.tripeaks import search
from skillcheck.games.tripeaks.layout import CONES, COVERS, POSITIONS
from skillcheck.games.tripeaks.rules import (
    DEAL_MOVE,
    REDEAL_MOVE,
    STOCK_BONUS,
    Tripeaks,
    TripeaksMove,
    TripeaksObservation,
    fits,
    is_free,
    wild_cards,
)
from skillcheck.registry import register_analysis
from skillcheck.solving import Bot

__all__ = [
    "BOTS",
    "FastBot",
    "Sample",
    "StrongBot",
    "Votes",
    "best_chain",
    "sample_hidden",
    "unseen_cards",
]

#: Positions a chain search looks at before it settles for the best chain found.
MAX_NODES = 4000


def best_chain(
    observation: TripeaksObservation, favour: frozenset[int] = frozenset()
) -> tuple[float, list[int]]:
    """The best chain of plays visible from ``observation``: its value (cards played, plus
    half a point for each face-down card it turns up and a tenth for each card of ``favour``)
    and its positions in order."""
    present = list(observation.present)
    known: list[PlayingCard | None] = list(observation.peaks)
    best: tuple[float, list[int]] = (0.0, [])
    nodes = 0

    def search(top: PlayingCard | None, line: list[int], value: float) -> None:
        nonlocal best, nodes
        nodes += 1
        if value > best[0]:
            best = (value, list(line))
        if nodes > MAX_NODES:
            return
        for position in range(POSITIONS):
            card = known[position]
            if card is None or not is_free(present, position):
                continue
            if not fits(card, top, observation.wrap, observation.wild):
                continue
            present[position] = False
            flips = sum(
                1 for above in COVERS[position]
                if present[above] and known[above] is None and is_free(present, above)
            )  # fmt: skip
            gain = 1 + 0.5 * flips + (0.1 if position in favour else 0.0)
            line.append(position)
            search(card, line, value + gain)
            line.pop()
            present[position] = True

    search(observation.top, [], 0.0)
    return best


def _favoured(game: Tripeaks, observation: TripeaksObservation) -> frozenset[int]:
    """The cards of the uncleared peak with the fewest cards left, when the check needs fewer
    than three peaks."""
    if game.peaks == 3 or game.target is not None:
        return frozenset()
    open_cones = [cone for tip, cone in enumerate(CONES) if observation.present[tip]]
    if not open_cones:
        return frozenset()
    here = {i for i in range(POSITIONS) if observation.present[i]}
    return min(open_cones, key=lambda cone: len(cone & here))


class FastBot:
    """Plays the longest visible chain; deals when no card fits (see the module's docstring)."""

    name = "fast"

    def choose(self, game: Any, observation: Any) -> TripeaksMove | None:
        if not isinstance(game, Tripeaks) or not isinstance(observation, TripeaksObservation):
            raise TypeError("the fast bot plays Tri Peaks")
        moves = observation.legal_moves()
        if not moves:
            return None
        if any(m.position is not None for m in moves):
            _, line = best_chain(observation, _favoured(game, observation))
            if line:
                return TripeaksMove.card(line[0])
        others = [m for m in moves if m.position is None]
        return others[0] if others else moves[0]


# ---- the strong bot: determinization --------------------------------------------------------


def unseen_cards(observation: TripeaksObservation) -> list[PlayingCard]:
    """The cards of the deck the player has not seen, in the deck's canonical order: the 52
    cards less the face-up cards of the peaks and every card of the waste. They are the
    face-down cards, the stock and any cards set aside (out of play, never dealt)."""
    seen = {card for card in observation.peaks if card is not None} | set(observation.waste)
    return [card for card in STANDARD if card not in seen]


@frozen
class Sample:
    """One way the hidden cards could lie, consistent with an observation: the card at each
    face-down position, and the stock from its top. The unseen cards left over are set aside."""

    face_down: dict[int, PlayingCard]
    stock: tuple[PlayingCard, ...]


def sample_hidden(observation: TripeaksObservation, rng: random.Random) -> Sample:
    """A uniformly random placement of the unseen cards (:func:`unseen_cards`): shuffled, they
    fill the face-down positions in order, then the stock (``observation.stock`` cards, top
    first); the rest are set aside. Raises ValueError when the observation shows too few unseen
    cards for its face-down positions and stock."""
    cards = unseen_cards(observation)
    down = observation.face_down()
    needed = len(down) + observation.stock
    if needed > len(cards):
        raise ValueError(
            f"the observation hides {needed} cards ({len(down)} face down, {observation.stock} "
            f"in the stock) but only {len(cards)} cards are unseen"
        )
    rng.shuffle(cards)
    return Sample(dict(zip(down, cards, strict=False)), tuple(cards[len(down) : needed]))


@frozen
class Votes:
    """What the samples said of one move: in how many it wins (a target score reached), in how
    many the search could decide it, and (TriTowers with a target) the sum of the best final
    scores over the decided samples."""

    wins: int = 0
    decided: int = 0
    score: int = 0


class StrongBot:
    """Determinized search (see the module's docstring): ``samples`` sample deals of the hidden
    cards, each solved exactly after each legal move, and the move that wins in the most.

    - Ties, and positions no sample can win, go to the fast bot's move (the start of the longest
      visible chain) when it is among the best, else to the first best move in the legal order.
      (With a target, a position no sample reaches it from still goes by the mean score.)
    - A TriTowers check with a ``target`` scores each move by the samples whose best final score
      (:func:`~.search.best_score`) reaches it, then by the mean best final score. The exact
      best score costs too much while the stock is long, so with more than ``horizon`` stock
      cards left a sample is scored over its next ``horizon`` stock cards only (the best score
      a line can show within them); a sample that does not reach the target there is undecided.
    - With redeals left, a sample counts as a win only when the current pass wins it (the redeal
      move itself is solved with the waste as the next stock, which the player has seen); when no
      sample wins that way the fast bot decides.
    - The samples come from a random generator seeded by ``seed`` and the observation's code, so
      the bot is a function of what it sees: the same observation gets the same move.

    ``solver_states`` and ``score_states`` bound each search (positions); a sample a search
    leaves undecided counts as half a win for every move it leaves undecided.
    """

    name = "strong"

    def __init__(
        self,
        *,
        samples: int = 10,
        seed: int = 0,
        solver_states: int = 200_000,
        score_states: int = 400_000,
        horizon: int = 6,
    ) -> None:
        if samples < 1:
            raise ValueError(f"samples is at least 1, got {samples}")
        self.samples = samples
        self.seed = seed
        self.solver_states = solver_states
        self.score_states = score_states
        self.horizon = horizon
        self._fast = FastBot()

    def rng(self, observation: TripeaksObservation) -> random.Random:
        """The sampler's generator for ``observation``: seeded by the bot's seed and the
        observation's code (nothing else)."""
        digest = hashlib.sha256(f"{self.seed} {observation.code()}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def choose(self, game: Any, observation: Any) -> TripeaksMove | None:
        if not isinstance(game, Tripeaks) or not isinstance(observation, TripeaksObservation):
            raise TypeError("the strong bot plays Tri Peaks")
        moves = observation.legal_moves()
        if not moves:
            return None
        if len(moves) == 1:
            return moves[0]
        votes = self.votes(game, observation)
        fast = self._fast.choose(game, observation)
        if max(v.wins for v in votes.values()) == 0 and game.target is None:
            return fast  # no sample wins: nothing to choose by (a target still has the scores)
        count = max(v.decided for v in votes.values())
        merit = {m: _merit(v, count) for m, v in votes.items()}
        best = max(merit.values())
        tied = [m for m in moves if merit[m] == best]
        return fast if fast in tied else tied[0]

    def votes(self, game: Tripeaks, observation: TripeaksObservation) -> dict[TripeaksMove, Votes]:
        """Each legal move's :class:`Votes` over the bot's samples for ``observation``."""
        moves = observation.legal_moves()
        rng = self.rng(observation)
        hidden = len(observation.face_down()) + observation.stock
        # nothing hidden: one sample is the position itself
        count = self.samples if hidden else 1
        tally = {m: [0, 0, 0] for m in moves}
        for _ in range(count):
            root = _Root(game, observation, sample_hidden(observation, rng))
            for move, (won, score) in self._judge(root, moves).items():
                counts = tally[move]
                if won is not None:
                    counts[0] += won
                    counts[1] += 1
                    counts[2] += score
        return {m: Votes(*counts) for m, counts in tally.items()}

    def _judge(
        self, root: _Root, moves: Sequence[TripeaksMove]
    ) -> dict[TripeaksMove, tuple[bool | None, int]]:
        """For one sample, each move's (won, best final score): won None when undecided."""
        judged: dict[TripeaksMove, tuple[bool | None, int]] = {}
        # the whole position first: a loss there is a loss after every card or deal, and a win
        # names one winning move (with a move limit a line must also fit, so only losses count)
        first = root.solve(self, first=True)
        if first is not None:
            won, score, move = first
            for m in moves:
                if m != REDEAL_MOVE and not won:
                    judged[m] = (False, score)
            if won and move is not None and root.moves_left is None:
                judged[move] = (True, score)
        for m in moves:
            if m not in judged:
                judged[m] = root.child(m).solve_outcome(self)
        return judged


def _merit(votes: Votes, count: int) -> tuple[float, float]:
    """How good a move's votes are: its wins, with each sample the searches left undecided
    counted as half a win (``count`` samples were drawn); then the mean best final score."""
    undecided = count - votes.decided
    return votes.wins + 0.5 * undecided, votes.score / votes.decided if votes.decided else 0.0


class _Root:
    """One sample deal as the searches see it: ranks by position, the stock's ranks, the waste
    top's rank, the removed mask, TriTowers' score and run, and the moves left."""

    def __init__(
        self,
        game: Tripeaks,
        observation: TripeaksObservation,
        sample: Sample | None = None,
        *,
        problem: search.Problem | None = None,
        score: int = 0,
        run: int = 0,
        moves_left: int | None = None,
    ) -> None:
        self.game = game
        self.observation = observation
        self.wild = wild_cards(observation.wild)
        if problem is None:
            assert sample is not None
            ranks = [
                0 if card is None else self.rank(card)
                for card in (sample.face_down.get(p, c) for p, c in enumerate(observation.peaks))
            ]
            removed = sum(1 << p for p in range(POSITIONS) if not observation.present[p])
            top = observation.top
            problem = search.Problem(
                ranks,
                [self.rank(c) for c in sample.stock],
                search.EMPTY if top is None else self.rank(top),
                removed,
                observation.wrap,
                game.peaks,
            )
            score, run = observation.score, observation.run
            limit = game.move_limit
            moves_left = None if limit is None else limit - observation.moves_made
        self.problem = problem
        self.score = score
        self.run = run
        self.moves_left = moves_left

    def rank(self, card: PlayingCard) -> int:
        return search.WILD if card in self.wild else int(card.value)

    def child(self, move: TripeaksMove) -> _Root:
        """The sample after ``move`` (a card, a deal, or a redeal: the waste under its top card,
        which the player has seen, becomes the stock)."""
        p = self.problem
        left = None if self.moves_left is None else self.moves_left - 1
        if move.position is not None:
            position = move.position
            gain = search.move_score(self.run, p.removed, position) if self.game.tritowers else 0
            after = evolve(p, waste=p.tableau[position], removed=p.removed | 1 << position)
            if self.game.tritowers and self._over(after):
                gain += STOCK_BONUS * len(p.stock)
            return self._next(after, self.score + gain, self.run + 1, left)
        if move == DEAL_MOVE:
            after = evolve(p, stock=p.stock[1:], waste=p.stock[0])
            cost = search.DEAL_COST if self.game.tritowers else 0
            return self._next(after, self.score - cost, 0, left)
        waste = tuple(self.rank(c) for c in self.observation.waste)
        return self._next(evolve(p, stock=waste[:-1]), self.score, 0, left)

    def _next(self, problem: search.Problem, score: int, run: int, left: int | None) -> _Root:
        return _Root(
            self.game, self.observation, problem=problem, score=score, run=run, moves_left=left
        )

    def _over(self, problem: search.Problem) -> bool:
        """Whether the goal is reached: the peaks cleared (with a target: every card)."""
        return problem.won(problem.removed) if self.game.target is None else (
            problem.removed == search.ALL
        )  # fmt: skip

    def solve(
        self, bot: StrongBot, *, first: bool = False
    ) -> tuple[bool, int, TripeaksMove | None] | None:
        """(won, best final score, a first move of a winning line) of this position in the
        current pass, or None when the search ran out of budget (or, ``first``, when a loss is
        not proved: a horizon's loss holds for this position, not for every move)."""
        p = self.problem
        target = self.game.target
        if self._over(p):
            return (target is None or self.score >= target), self.score, None
        if target is None:
            searched = p
            if self.moves_left is not None and p.peaks == 3:
                # every card goes: a line fits the limit exactly when it deals at most this many
                deals = self.moves_left - (search.TABLEAU - p.removed.bit_count())
                searched = evolve(p, stock=p.stock[: max(0, deals)])
            found = search.solve(searched, max_states=bot.solver_states)
            if found.result == "unknown":
                return None
            moves = found.moves
            won = found.result == "win" and (
                self.moves_left is None or len(moves) <= self.moves_left
            )
            return won, self.score, _move(moves[0]) if won and moves else None
        # the best score to come: exact when the stock is short, else within the horizon's
        # next stock cards (a line may stop anywhere: what the horizon can add at best)
        exact = len(p.stock) <= bot.horizon
        scored = search.best_score(
            p if exact else evolve(p, stock=p.stock[: bot.horizon]),
            run=self.run,
            win_bonus_per_card=STOCK_BONUS,
            until_end=exact,
            max_states=bot.score_states,
        )
        if scored.score is None:
            return None
        final = self.score + scored.score
        won = final >= target and (self.moves_left is None or len(scored.moves) <= self.moves_left)
        if not exact and not won:
            return None if first else (False, final, None)
        return won, final, _move(scored.moves[0]) if won and scored.moves else None

    def solve_outcome(self, bot: StrongBot) -> tuple[bool | None, int]:
        found = self.solve(bot)
        return (None, 0) if found is None else (found[0], found[1])


def _move(move: search.Move) -> TripeaksMove:
    return DEAL_MOVE if move == search.STOCK else TripeaksMove.card(int(move))


BOTS: dict[str, Callable[[], Bot]] = {"fast": FastBot, "strong": StrongBot}

register_analysis(Tripeaks.name, bots=BOTS)
