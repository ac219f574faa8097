"""Tri Peaks' exact perfect-information solver (the game's :class:`~skillcheck.solving.Solver`).

The searches themselves are in :mod:`skillcheck.games.tripeaks.search` (bit masks over ranks, in
C when built); this module reads a live state into a :class:`~.search.Problem`, picks the search
the check needs and turns lines into the game's moves. docs/games/tripeaks-solver.md has the
method, the proofs of the reductions and the measurements.

What it reads from a state (the only coupling to the rules module):

- ``state.outcome`` (None while the game runs), ``state.tableau`` (28 cards or None by
  position), ``state.waste`` (bottom first; the top is the last), ``state.stock`` (top first),
  ``state.redeals_left``, ``state.score`` and ``state.run`` (TriTowers);
- ``state.game.wraps``, ``state.game.wild_set`` (the wild cards), ``state.game.peaks`` (peaks to
  clear), ``state.game.target`` (a TriTowers score to reach, or None), ``state.game.tritowers``;
- the rules' ``STOCK_BONUS`` (a win's bonus per card left in the stock) and its move type.

What it answers (with a ``move_limit``: within the moves left; when every card must go this is
exact, the stock cut to the deals the limit leaves room for; otherwise a line too long for the
limit is "unknown"):

- the peaks goal (``target`` None), no redeal left: exact (:func:`~.search.solve`);
- a ``target`` score, no redeal left: exact: the best final score of a game played to its end
  (:func:`~.search.best_score`) against the target;
- with redeals left (the ``redeals`` and ``skill`` parameters), a search over whole positions
  (the waste's order matters once it becomes the stock again) that uses the exact search for
  the last pass: exact when it finishes within the budget, but a loss needs every order of the
  waste searched, so it often answers "unknown" there; a win is usually found quickly.

``extras["best_score"]`` (TriTowers): the best final score from the position under perfect
play (a game played to its end, including the win's stock bonus) when no redeal is left; always
computed when the check has a target, otherwise only by ``TriPeaksSolver(best_score=True)``
(it costs about 0.1 s a deal in C, far more than deciding the deal).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import attrs

from skillcheck.cards.standard import PlayingCard
from skillcheck.games.tripeaks import search
from skillcheck.games.tripeaks.rules import (
    DEAL_MOVE,
    REDEAL_MOVE,
    STOCK_BONUS,
    TripeaksMove,
)
from skillcheck.games.tripeaks.search import (
    EMPTY,
    STOCK,
    WILD,
    Move,
    Problem,
    ScoreResult,
    SearchResult,
)
from skillcheck.registry import register_analysis
from skillcheck.solving import Result, Solution

__all__ = [
    "TriPeaksSolver",
    "best_score_of_deal",
    "problem_of",
    "solve_deal",
    "to_moves",
]

_NO_LIMIT = 1 << 62


# ---- pure functions of a deal (what tests and benchmarks call) --------------------------------


def solve_deal(
    deal: Sequence[object],
    *,
    wrap: bool,
    empty_waste: bool = False,
    peaks: int = 3,
    max_states: int | None = None,
    max_seconds: float | None = None,
) -> SearchResult:
    """Whether a deal (52 cards, codes or ranks, in the rules' deal order) can be won without a
    redeal: :func:`~.search.solve` from its start. Moves: positions 0..27 and ``"stock"``."""
    problem = search.deal_problem(deal, wrap=wrap, empty_waste=empty_waste, peaks=peaks)
    return search.solve(problem, max_states=max_states, max_seconds=max_seconds)


def best_score_of_deal(
    deal: Sequence[object],
    *,
    wrap: bool = True,
    empty_waste: bool = False,
    win_bonus_per_card: int = STOCK_BONUS,
    until_end: bool = True,
    max_states: int | None = None,
    max_seconds: float | None = None,
) -> ScoreResult:
    """The best TriTowers score of a deal played to its end without a redeal
    (:func:`~.search.best_score`); ``win_bonus_per_card`` defaults to the rules' bonus."""
    problem = search.deal_problem(deal, wrap=wrap, empty_waste=empty_waste)
    return search.best_score(
        problem,
        win_bonus_per_card=win_bonus_per_card,
        until_end=until_end,
        max_states=max_states,
        max_seconds=max_seconds,
    )


# ---- reading a live state --------------------------------------------------------------------


def _rank(card: Any, wild: frozenset[PlayingCard]) -> int:
    if card in wild:
        return WILD
    return int(card.value)


def problem_of(state: Any) -> Problem:
    """The search's view of a live state (see the module's docstring for what it reads); the
    waste's lower cards and the redeals are left out (:class:`TriPeaksSolver` handles those)."""
    game = state.game
    wild: frozenset[PlayingCard] = frozenset(game.wild_set)
    tableau = state.tableau
    removed = sum(1 << p for p, card in enumerate(tableau) if card is None)
    ranks = [0 if card is None else _rank(card, wild) for card in tableau]
    waste = state.waste
    return Problem(
        ranks,
        [_rank(card, wild) for card in state.stock],
        _rank(waste[-1], wild) if waste else EMPTY,
        removed,
        bool(game.wraps),
        int(game.peaks),
    )


def to_moves(line: Sequence[Move]) -> tuple[TripeaksMove, ...]:
    """The rules' moves for a search's line (positions and ``"stock"``)."""
    return tuple(DEAL_MOVE if m == STOCK else TripeaksMove.card(int(m)) for m in line)


# ---- the solver ------------------------------------------------------------------------------


class _Budget:
    def __init__(self, max_states: int | None, max_seconds: float | None) -> None:
        self.states = 0
        self.limit = _NO_LIMIT if max_states is None else max_states
        self.deadline = None if max_seconds is None else time.perf_counter() + max_seconds

    def states_left(self) -> int | None:
        return None if self.limit == _NO_LIMIT else max(0, self.limit - self.states)

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())

    def spent(self) -> bool:
        return self.states >= self.limit or (
            self.deadline is not None and time.perf_counter() >= self.deadline
        )


class TriPeaksSolver:
    """The :class:`~skillcheck.solving.Solver` of Tri Peaks (see the module's docstring).

    ``best_score=True`` also computes TriTowers' best final score (``extras["best_score"]``)
    when the check has no target (with a target it is always computed: it decides the check)."""

    def __init__(self, *, best_score: bool = False) -> None:
        self.want_best_score = best_score

    def solve(
        self,
        state: Any,
        *,
        max_states: int | None = 2_000_000,
        max_seconds: float | None = None,
    ) -> Solution[TripeaksMove]:
        began = time.perf_counter()
        outcome = state.outcome
        if outcome is not None:
            return Solution("win" if outcome.success else "loss", (), 0, 0.0)
        budget = _Budget(max_states, max_seconds)
        game = state.game
        problem = problem_of(state)
        target: int | None = game.target
        redeals = int(state.redeals_left)
        limit: int | None = game.move_limit
        moves_left = None if limit is None else limit - int(state.moves_made)
        extras: dict[str, Any] = {}
        result: Result
        moves: tuple[TripeaksMove, ...] = ()
        if redeals <= 0 or len(state.stock) + len(state.waste) < 2:
            if target is not None:
                scored = self._best(problem, state, budget)
                if scored.score is None:
                    result = "unknown"
                else:
                    final = int(state.score) + scored.score
                    extras["best_score"] = final
                    result = "win" if final >= target else "loss"
                    if result == "win":
                        moves = to_moves(scored.moves)
            else:
                searched = problem
                if moves_left is not None and problem.peaks == 3:
                    # every card goes, so a line is the cards left plus the stock cards dealt:
                    # within the limit exactly when it deals at most this many
                    deals = moves_left - (search.TABLEAU - problem.removed.bit_count())
                    stock = problem.stock[: max(0, deals)]
                    searched = attrs.evolve(problem, stock=stock)
                found = search.solve(
                    searched,
                    max_states=budget.states_left(),
                    max_seconds=budget.seconds_left(),
                )
                budget.states += found.states
                result = found.result
                moves = to_moves(found.moves)
                if game.tritowers and self.want_best_score and not budget.spent():
                    scored = self._best(problem, state, budget)
                    if scored.score is not None:
                        extras["best_score"] = int(state.score) + scored.score
        else:
            result = "unknown"
            if target is None:
                # a win that needs no redeal is a win: the exact search finds it fast
                found = search.solve(
                    problem,
                    max_states=budget.states_left(),
                    max_seconds=budget.seconds_left(),
                )
                budget.states += found.states
                if found.result == "win":
                    result, moves = "win", to_moves(found.moves)
            if result != "win" and not budget.spent():
                redeal = _RedealSearch(state, problem, budget, target)
                result, line = redeal.run()
                moves = tuple(line)
        if result == "win" and moves_left is not None and len(moves) > moves_left:
            result, moves = "unknown", ()  # a line too long for the move limit proves nothing
        return Solution(result, moves, budget.states, time.perf_counter() - began, extras=extras)

    def best_score(
        self, state: Any, *, max_states: int | None = None, max_seconds: float | None = None
    ) -> int | None:
        """TriTowers' best final score from ``state`` (its score so far included) with no
        redeal used, or None when the budget ran out."""
        budget = _Budget(max_states, max_seconds)
        scored = self._best(problem_of(state), state, budget)
        return None if scored.score is None else int(state.score) + scored.score

    @staticmethod
    def _best(problem: Problem, state: Any, budget: _Budget) -> ScoreResult:
        scored = search.best_score(
            problem,
            run=int(state.run),
            win_bonus_per_card=STOCK_BONUS,
            until_end=True,
            max_states=budget.states_left(),
            max_seconds=budget.seconds_left(),
        )
        budget.states += scored.states
        return scored


class _OutOfBudget(Exception):
    pass


class _RedealSearch:
    """A depth-first search over whole positions while redeals are left: the tableau mask, the
    stock and the waste (ranks, in order: the waste becomes the next stock), the redeals left,
    and for a target the score and run. A position with no redeal left is handed to the exact
    search. Exact when it finishes; ``"unknown"`` when the budget runs out first."""

    def __init__(self, state: Any, problem: Problem, budget: _Budget, target: int | None) -> None:
        wild: frozenset[PlayingCard] = frozenset(state.game.wild_set)
        self.problem = problem
        self.budget = budget
        self.target = target
        self.waste0 = tuple(_rank(c, wild) for c in state.waste)
        self.redeals0 = int(state.redeals_left)
        self.score0 = int(state.score)
        self.run0 = int(state.run)
        self.seen: set[tuple[Any, ...]] = set()
        self.unknown = False

    def run(self) -> tuple[Result, list[TripeaksMove]]:
        p = self.problem
        try:
            line = self._dfs(p.removed, p.stock, self.waste0, self.redeals0, self.score0, self.run0)
        except (_OutOfBudget, RecursionError):  # many passes can nest deeper than Python allows
            return "unknown", []
        if line is not None:
            line.reverse()
            return "win", line
        return ("unknown" if self.unknown else "loss"), []

    def _last_pass(
        self, removed: int, stock: tuple[int, ...], waste: tuple[int, ...], score: int, run: int
    ) -> list[TripeaksMove] | None:
        p = self.problem
        sub = Problem(p.tableau, stock, waste[-1] if waste else EMPTY, removed, p.wrap, p.peaks)
        budget = self.budget
        if self.target is None:
            found = search.solve(
                sub, max_states=budget.states_left(), max_seconds=budget.seconds_left()
            )
            budget.states += found.states
            if found.result == "unknown":
                self.unknown = True
            return list(reversed(to_moves(found.moves))) if found.result == "win" else None
        scored = search.best_score(
            sub,
            run=run,
            win_bonus_per_card=STOCK_BONUS,
            until_end=True,
            max_states=budget.states_left(),
            max_seconds=budget.seconds_left(),
        )
        budget.states += scored.states
        if scored.score is None:
            self.unknown = True
            return None
        if score + scored.score >= self.target:
            return list(reversed(to_moves(scored.moves)))
        return None

    def _dfs(
        self,
        removed: int,
        stock: tuple[int, ...],
        waste: tuple[int, ...],
        redeals: int,
        score: int,
        run: int,
    ) -> list[TripeaksMove] | None:
        """A winning line from here, reversed, or None."""
        p = self.problem
        target = self.target
        if target is None and p.won(removed):
            return []
        if target is not None and removed == search.ALL:  # the game is over
            return [] if score >= target else None
        if redeals <= 0:
            return self._last_pass(removed, stock, waste, score, run)
        key = (removed, stock, waste, redeals) if target is None else (
            removed, stock, waste, redeals, score, run,
        )  # fmt: skip
        if key in self.seen:
            return None
        self.seen.add(key)
        budget = self.budget
        budget.states += 1
        if budget.spent():
            raise _OutOfBudget
        top = waste[-1] if waste else EMPTY
        moved = False
        for position in search.free_positions(removed):
            rank = p.tableau[position]
            if not search.adjacent(top, rank, p.wrap):
                continue
            moved = True
            after = removed | 1 << position
            gain = search.move_score(run, removed, position)
            if after == search.ALL:
                gain += STOCK_BONUS * len(stock)
            line = self._dfs(after, stock, (*waste, rank), redeals, score + gain, run + 1)
            if line is not None:
                line.append(TripeaksMove.card(position))
                return line
        if stock:
            moved = True
            line = self._dfs(
                removed, stock[1:], (*waste, stock[0]), redeals, score - search.DEAL_COST, 0
            )
            if line is not None:
                line.append(DEAL_MOVE)
                return line
        elif len(waste) > 1:
            moved = True
            line = self._dfs(removed, waste[:-1], waste[-1:], redeals - 1, score, 0)
            if line is not None:
                line.append(REDEAL_MOVE)
                return line
        if not moved and target is not None and score >= target:
            return []  # the game is over (no move left) with the target reached
        return None


register_analysis("tripeaks", solver=TriPeaksSolver)
