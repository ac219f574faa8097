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
- with redeals left (the ``redeals`` and ``skill`` parameters) and the peaks goal: a win that
  needs no redeal from the exact search; else the relaxation of :func:`~.search.relaxed_reach`
  (a loss no number of passes avoids); else :class:`_RedealWin`, a search over whole positions
  (the waste's order matters once it becomes the stock again) that hands the last pass to the
  exact search. Exact when it finishes; a loss that needs every order of the waste tried can
  take long (short stocks);
- a ``target`` with redeals left: :class:`_RedealScore`'s branch and bound on budgets that grow
  (a tenth first, then the best line that uses no redeal when it clears the peaks, then the
  rest), exact when it finishes.

``extras["best_score"]`` (TriTowers): the best final score from the position under perfect
play (a game played to its end, including the win's stock bonus), with the redeals it has left.
:meth:`TriPeaksSolver.details` (``skillcheck solve`` calls it) always adds it, or with redeals,
when its share of the budget runs out, the proved ``best_score_at_least`` and
``best_score_at_most``; :meth:`TriPeaksSolver.solve` adds it where it decides the check (a target
without redeals) or with ``TriPeaksSolver(best_score=True)``: it costs about 0.1 s a deal in C,
far more than deciding the deal, and odds tables need only the answer.
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
#: With redeals left, the exact best score gets at most this many positions of a budget
#: (about a second; no cap without a budget); past it the solver reports proved bounds.
REDEAL_SCORE_STATES = 100_000


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
        self.began = time.perf_counter()
        self.states = 0
        self.limit = _NO_LIMIT if max_states is None else max_states
        self.deadline = None if max_seconds is None else time.perf_counter() + max_seconds

    def states_left(self) -> int | None:
        return None if self.limit == _NO_LIMIT else max(0, self.limit - self.states)

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())

    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    def spent(self) -> bool:
        return self.states >= self.limit or (
            self.deadline is not None and time.perf_counter() >= self.deadline
        )


class TriPeaksSolver:
    """The :class:`~skillcheck.solving.Solver` of Tri Peaks (see the module's docstring).

    ``best_score=True`` also computes TriTowers' best final score (``extras["best_score"]``) in
    :meth:`solve` when the check has no target (with a target it is computed whenever it
    decides the check); :meth:`details`, which ``skillcheck solve`` calls, always adds it.
    ``compiled`` picks the searches' implementation as in :func:`~.search.solve` (None: C when
    built); both give the same answers."""

    def __init__(self, *, best_score: bool = False, compiled: bool | None = None) -> None:
        self.want_best_score = best_score
        self.compiled = compiled

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
        compiled = self.compiled
        if target is not None:
            need = target - int(state.score)
            if redeals <= 0:
                scored = self._best(problem, state, budget)
                if scored.score is None:
                    result = "unknown"
                else:
                    extras["best_score"] = int(state.score) + scored.score
                    result = "win" if scored.score >= need else "loss"
                    if result == "win":
                        moves = to_moves(scored.moves)
            else:
                result, moves = self._reach(state, problem, budget, need)
        elif redeals <= 0:
            searched = problem
            if moves_left is not None and problem.peaks == 3:
                # every card goes, so a line is the cards left plus the stock cards dealt:
                # within the limit exactly when it deals at most this many
                deals = moves_left - (search.TABLEAU - problem.removed.bit_count())
                searched = attrs.evolve(problem, stock=problem.stock[: max(0, deals)])
            found = self._solve(searched, budget)
            result = found.result
            moves = to_moves(found.moves)
        else:
            # a win that needs no redeal is a win: the exact search finds it fast
            found = self._solve(problem, budget)
            result = "unknown"
            if found.result == "win":
                result, moves = "win", to_moves(found.moves)
            elif not budget.spent():
                result, line = _RedealWin(state, problem, budget, compiled).run()
                moves = tuple(line)
        if result == "win" and moves_left is not None and len(moves) > moves_left:
            result, moves = "unknown", ()  # a line too long for the move limit proves nothing
        if (
            game.tritowers
            and self.want_best_score
            and "best_score" not in extras
            and not budget.spent()
        ):
            extras.update(self._score_extras(state, problem, budget))
        return Solution(result, moves, budget.states, time.perf_counter() - began, extras=extras)

    def details(
        self,
        state: Any,
        solution: Solution[TripeaksMove],
        *,
        max_states: int | None = 2_000_000,
        max_seconds: float | None = None,
    ) -> Solution[TripeaksMove]:
        """``solution`` with what a person asking for one deal also wants and an odds table
        need not pay for: TriTowers' best final score (``extras["best_score"]``, or
        ``"best_score_at_most"`` when the budget ran out first). ``skillcheck solve`` calls it."""
        if not state.game.tritowers or "best_score" in solution.extras or state.outcome:
            return solution
        budget = _Budget(max_states, max_seconds)
        known = None
        if solution.result == "win" and solution.moves:  # a whole game: a lower bound
            probe = state.copy()
            for move in solution.moves:
                probe.push(move)
            known = int(probe.score) - int(state.score)
        found = self._score_extras(state, problem_of(state), budget, known)
        extras = {**solution.extras, **found}
        return attrs.evolve(
            solution, states=solution.states + budget.states, extras=extras,
            seconds=solution.seconds + budget.elapsed(),
        )  # fmt: skip

    def best_score(
        self, state: Any, *, max_states: int | None = None, max_seconds: float | None = None
    ) -> int | None:
        """TriTowers' best final score from ``state`` (its score so far included; with the
        redeals it has left), or None when the budget ran out."""
        budget = _Budget(max_states, max_seconds)
        found = self._score_extras(state, problem_of(state), budget)
        best = found.get("best_score")
        return None if best is None else int(best)

    def _score_extras(
        self, state: Any, problem: Problem, budget: _Budget, known: int | None = None
    ) -> dict[str, int]:
        """``best_score``, or with redeals left when the budget runs out first the proved
        ``best_score_at_least`` (a whole game's score) and ``best_score_at_most``; ``known``:
        what a whole game from ``state`` is known to score to come."""
        so_far = int(state.score)
        scored = self._best(problem, state, budget)  # the best line that uses no redeal
        if int(state.redeals_left) <= 0:
            return {} if scored.score is None else {"best_score": so_far + scored.score}
        # with redeals: that line is a whole game when it clears the peaks, a lower bound;
        # the search for the exact value then cuts what cannot beat it
        lower = known
        if scored.score is not None and _clears(problem, scored):
            lower = scored.score if lower is None else max(lower, scored.score)
        scorer = _RedealScore(state, problem, budget, self.compiled)
        full = budget.limit
        if full != _NO_LIMIT:  # a caller with a budget gets bounds rather than a long wait
            budget.limit = min(full, budget.states + REDEAL_SCORE_STATES)
        value, _ = scorer.best(_NO_SCORE if lower is None else lower - 1)
        budget.limit = full
        if value is not None:
            return {"best_score": so_far + value}
        found = {"best_score_at_most": so_far + scorer.root_bound()}
        if lower is not None:
            found["best_score_at_least"] = so_far + lower
        return found

    def _reach(
        self, state: Any, problem: Problem, budget: _Budget, need: int
    ) -> tuple[Result, tuple[TripeaksMove, ...]]:
        """A target with redeals left: the search of :class:`_RedealScore` on a tenth of the
        budget; then the best line that uses no redeal, which is a whole game when it clears
        the peaks; then the search again (its memo kept) on what is left."""
        scorer = _RedealScore(state, problem, budget, self.compiled)
        full = budget.limit
        budget.limit = min(full, budget.states + max(1, budget.states_left() or full) // 10)
        reached, line = scorer.reach(need)
        budget.limit = full
        if reached is None and not budget.spent():
            scored = self._best(problem, state, budget)
            if scored.score is not None and scored.score >= need and _clears(problem, scored):
                return "win", to_moves(scored.moves)
            if not budget.spent():
                reached, line = scorer.reach(need)
        result: Result = "unknown" if reached is None else "win" if reached else "loss"
        return result, tuple(line)

    def _solve(self, problem: Problem, budget: _Budget) -> SearchResult:
        found = search.solve(
            problem,
            max_states=budget.states_left(),
            max_seconds=budget.seconds_left(),
            compiled=self.compiled,
        )
        budget.states += found.states
        return found

    def _best(self, problem: Problem, state: Any, budget: _Budget) -> ScoreResult:
        scored = search.best_score(
            problem,
            run=int(state.run),
            win_bonus_per_card=STOCK_BONUS,
            until_end=True,
            max_states=budget.states_left(),
            max_seconds=budget.seconds_left(),
            compiled=self.compiled,
        )
        budget.states += scored.states
        return scored


class _OutOfBudget(Exception):
    pass


def _clears(problem: Problem, scored: ScoreResult) -> bool:
    """Whether the line of ``scored`` reaches the goal (rather than ending stuck)."""
    removed = problem.removed
    for move in scored.moves:
        if move != STOCK:
            removed |= 1 << int(move)
    return problem.won(removed)


#: A position of the score search: tableau mask, stock and waste (ranks), redeals left, run.
_Node = tuple[int, tuple[int, ...], tuple[int, ...], int, int]
#: Far below any score (the alpha of a search that wants the exact value).
_NO_SCORE = -(10**9)
#: The bonuses of the first, second and third peak cleared, and what they leave to come.
_PEAK_BONUSES = (search.PEAK_BONUS, search.PEAK_BONUS, search.LAST_PEAK_BONUS)


def _pool(state: Any) -> tuple[int, ...]:
    wild: frozenset[PlayingCard] = frozenset(state.game.wild_set)
    return tuple(_rank(c, wild) for c in state.waste)


class _RedealWin:
    """Whether the peaks can be cleared while redeals are left: first the relaxation of
    :func:`~.search.relaxed_reach` (a proof of loss when it cannot reach the goal), then a
    depth-first search over whole positions (tableau mask, stock and waste as rank sequences,
    redeals left) that hands every position with no redeal left to the exact
    :func:`~.search.solve` (memoised by its problem). Exact when it finishes; "unknown" when
    the budget runs out first."""

    def __init__(self, state: Any, problem: Problem, budget: _Budget, compiled: bool | None):
        self.problem = problem
        self.budget = budget
        self.compiled = compiled
        self.waste0 = _pool(state)
        self.redeals0 = int(state.redeals_left)
        self.seen: set[tuple[Any, ...]] = set()
        self.leaves: dict[tuple[Any, ...], list[TripeaksMove] | None] = {}
        self.unknown = False

    def run(self) -> tuple[Result, list[TripeaksMove]]:
        p = self.problem
        pool = (*p.stock, *self.waste0) if self.waste0 else (EMPTY,)
        if not p.won(search.relaxed_reach(p.tableau, p.removed, pool, p.wrap)):
            return "loss", []
        try:
            line = self._dfs(p.removed, p.stock, self.waste0, self.redeals0)
        except (_OutOfBudget, RecursionError):  # many passes can nest deeper than Python allows
            return "unknown", []
        if line is not None:
            line.reverse()
            return "win", line
        return ("unknown" if self.unknown else "loss"), []

    def _last_pass(
        self, removed: int, stock: tuple[int, ...], top: int
    ) -> list[TripeaksMove] | None:
        key = (removed, stock, top)
        if key in self.leaves:
            return self.leaves[key]
        p = self.problem
        budget = self.budget
        found = search.solve(
            Problem(p.tableau, stock, top, removed, p.wrap, p.peaks),
            max_states=budget.states_left(),
            max_seconds=budget.seconds_left(),
            compiled=self.compiled,
        )
        budget.states += found.states
        if found.result == "unknown":
            raise _OutOfBudget
        line = list(reversed(to_moves(found.moves))) if found.result == "win" else None
        self.leaves[key] = line
        return line

    def _dfs(
        self, removed: int, stock: tuple[int, ...], waste: tuple[int, ...], redeals: int
    ) -> list[TripeaksMove] | None:
        """A winning line from here, reversed, or None."""
        p = self.problem
        if p.won(removed):
            return []
        top = waste[-1] if waste else EMPTY
        if redeals <= 0:
            return self._last_pass(removed, stock, top)
        key = (removed, stock, waste, redeals)
        if key in self.seen:
            return None
        self.seen.add(key)
        budget = self.budget
        budget.states += 1
        if budget.spent():
            raise _OutOfBudget
        for position in search.free_positions(removed):
            rank = p.tableau[position]
            if not search.adjacent(top, rank, p.wrap):
                continue
            line = self._dfs(removed | 1 << position, stock, (*waste, rank), redeals)
            if line is not None:
                line.append(TripeaksMove.card(position))
                return line
        if stock:
            line = self._dfs(removed, stock[1:], (*waste, stock[0]), redeals)
            if line is not None:
                line.append(DEAL_MOVE)
                return line
        elif len(waste) > 1:
            line = self._dfs(removed, waste[:-1], waste[-1:], redeals - 1)
            if line is not None:
                line.append(REDEAL_MOVE)
                return line
        return None


class _RedealScore:
    """TriTowers' best final score while redeals are left: a depth-first branch and bound over
    whole positions (tableau mask, stock and waste as rank sequences, redeals left, run; the
    score to come does not depend on the score so far), each position with no redeal left
    scored exactly by :func:`~.search.best_score` (memoised). ``value(.., alpha)`` is the exact
    score to come when it exceeds ``alpha`` and otherwise an upper bound no larger than
    ``alpha`` (a fail-soft search); a position is cut when :meth:`bound` (proved in
    docs/games/tripeaks-solver.md) is at most ``alpha``."""

    def __init__(self, state: Any, problem: Problem, budget: _Budget, compiled: bool | None):
        self.problem = problem
        self.budget = budget
        self.compiled = compiled
        self.waste0 = _pool(state)
        self.redeals0 = int(state.redeals_left)
        self.run0 = int(state.run)
        self.exact: dict[_Node, int] = {}
        self.upper: dict[_Node, int] = {}
        self.leaves: dict[tuple[Any, ...], ScoreResult] = {}
        # the relaxation: the cards any line can ever remove, and whether it can win
        pool = (*problem.stock, *self.waste0) if self.waste0 else (EMPTY,)
        self.reachable = search.relaxed_reach(problem.tableau, problem.removed, pool, problem.wrap)

    def root_bound(self) -> int:
        p = self.problem
        key: _Node = (p.removed, p.stock, self.waste0, self.redeals0, self.run0)
        known = self.exact.get(key, self.upper.get(key))
        bound = self.bound(p.removed, len(p.stock), len(self.waste0), self.redeals0, self.run0)
        return bound if known is None else min(known, bound)

    def best(self, alpha: int = _NO_SCORE) -> tuple[int | None, list[TripeaksMove]]:
        """The exact score to come and a line that scores it, when it is above ``alpha`` (a
        score some line is known to reach, minus 1); (None, []) when the budget ran out first
        (or, against the promise, nothing beat ``alpha``)."""
        p = self.problem
        start: _Node = (p.removed, p.stock, self.waste0, self.redeals0, self.run0)
        try:
            value = self.value(start, alpha)
            if value <= alpha:
                return None, []
            return value, self.line(start, value)
        except (_OutOfBudget, RecursionError):
            return None, []

    def reach(self, need: int) -> tuple[bool | None, list[TripeaksMove]]:
        """Whether a line scores at least ``need`` to come (True with the first such line the
        search meets), False when none does, None when the budget ran out first."""
        p = self.problem
        start: _Node = (p.removed, p.stock, self.waste0, self.redeals0, self.run0)
        try:
            line = self.attain(start, need)
        except (_OutOfBudget, RecursionError):
            return None, []
        if line is None:
            return False, []
        line.reverse()
        return True, line

    def attain(self, node: _Node, need: int) -> list[TripeaksMove] | None:
        """A line from ``node`` that scores at least ``need`` (reversed), or None; a failure
        is remembered as the upper bound ``need - 1`` of the node's score to come."""
        removed, stock, waste, redeals, run = node
        if self.bound(removed, len(stock), len(waste), redeals, run) < need:
            return None
        if redeals <= 0:
            leaf = self._leaf(removed, stock, waste[-1] if waste else EMPTY, run)
            assert leaf.score is not None
            return list(reversed(to_moves(leaf.moves))) if leaf.score >= need else None
        exact = self.exact.get(node)
        upper = self.upper.get(node, exact)
        if upper is not None and upper < need:
            return None
        budget = self.budget
        budget.states += 1
        if budget.spent():
            raise _OutOfBudget
        children = self._children(removed, stock, waste, redeals, run)
        if not children and need <= 0:
            return []  # the game is over here, with enough
        for move, gain, child in children:
            line = ([] if gain >= need else None) if child is None else self.attain(
                child, need - gain
            )  # fmt: skip
            if line is not None:
                line.append(move)
                return line
        self.upper[node] = need - 1 if upper is None else min(upper, need - 1)
        return None

    def bound(self, removed: int, stock: int, waste: int, redeals: int, run: int) -> int:
        """An upper bound of the score to come: every card the relaxation can still remove in
        one run that goes on from ``run``, every peak bonus it can still earn, and the most a
        win's stock bonus can pay back beyond the deals before it."""
        reach = self.reachable
        left = (reach & ~removed).bit_count()
        score = left * run + left * (left + 1) // 2
        gone = (removed & 0b111).bit_count()
        score += sum(_PEAK_BONUSES[gone : (reach & 0b111).bit_count()])
        if self.problem.won(reach):
            # a win in this pass keeps at most the stock; after a redeal the new stock holds
            # at most the waste and the cards played before it, and the stock dealt first
            # cost as much as its bonus
            cards = stock
            if redeals > 0:
                cards = max(cards, waste + left - 2)
            score += STOCK_BONUS * max(0, cards)
        return score

    def _leaf(self, removed: int, stock: tuple[int, ...], top: int, run: int) -> ScoreResult:
        key = (removed, stock, top, run)
        found = self.leaves.get(key)
        if found is None:
            p = self.problem
            budget = self.budget
            found = search.best_score(
                Problem(p.tableau, stock, top, removed, p.wrap, p.peaks),
                run=run,
                win_bonus_per_card=STOCK_BONUS,
                until_end=True,
                max_states=budget.states_left(),
                max_seconds=budget.seconds_left(),
                compiled=self.compiled,
            )
            budget.states += found.states
            if found.score is None:
                raise _OutOfBudget
            self.leaves[key] = found
        return found

    def _children(
        self, removed: int, stock: tuple[int, ...], waste: tuple[int, ...], redeals: int, run: int
    ) -> list[tuple[TripeaksMove, int, _Node | None]]:
        """(move, its score, the position after it or None when it wins) for every legal move."""
        p = self.problem
        top = waste[-1] if waste else EMPTY
        found: list[tuple[TripeaksMove, int, _Node | None]] = []
        for position in search.free_positions(removed):
            rank = p.tableau[position]
            if not search.adjacent(top, rank, p.wrap):
                continue
            after = removed | 1 << position
            gain = search.move_score(run, removed, position)
            if p.won(after):
                found.append((TripeaksMove.card(position), gain + STOCK_BONUS * len(stock), None))
            else:
                child: _Node = (after, stock, (*waste, rank), redeals, run + 1)
                found.append((TripeaksMove.card(position), gain, child))
        if stock:
            dealt: _Node = (removed, stock[1:], (*waste, stock[0]), redeals, 0)
            found.append((DEAL_MOVE, -search.DEAL_COST, dealt))
        elif redeals > 0 and len(waste) > 1:
            found.append((REDEAL_MOVE, 0, (removed, waste[:-1], waste[-1:], redeals - 1, 0)))
        return found

    def value(self, node: _Node, alpha: int) -> int:
        removed, stock, waste, redeals, run = node
        if redeals <= 0:
            top = waste[-1] if waste else EMPTY
            if self.bound(removed, len(stock), len(waste), 0, run) <= alpha:
                return self.bound(removed, len(stock), len(waste), 0, run)
            score = self._leaf(removed, stock, top, run).score
            assert score is not None
            return score
        key = node
        exact = self.exact.get(key)
        if exact is not None:
            return exact
        upper = self.upper.get(key)
        if upper is not None and upper <= alpha:
            return upper
        bound = self.bound(removed, len(stock), len(waste), redeals, run)
        if bound <= alpha:
            return bound
        budget = self.budget
        budget.states += 1
        if budget.spent():
            raise _OutOfBudget
        best: int | None = None
        for _move, gain, child in self._children(removed, stock, waste, redeals, run):
            floor = alpha if best is None else max(alpha, best)
            v = gain if child is None else gain + self.value(child, floor - gain)
            if best is None or v > best:
                best = v
        if best is None:
            best = 0  # no legal move: the game is over
        if best > alpha:
            self.exact[key] = best
        else:
            self.upper[key] = best if upper is None else min(upper, best)
        return best

    def line(self, node: _Node, value: int) -> list[TripeaksMove]:
        """A line that scores ``value`` (the exact score to come) from ``node``."""
        line: list[TripeaksMove] = []
        position: _Node | None = node
        while position is not None:
            removed, stock, waste, redeals, run = position
            if redeals <= 0:
                top = waste[-1] if waste else EMPTY
                leaf = self._leaf(removed, stock, top, run)
                line.extend(to_moves(leaf.moves))
                return line
            for move, gain, child in self._children(removed, stock, waste, redeals, run):
                if child is None:
                    if gain == value:
                        line.append(move)
                        return line
                    continue
                if gain + self.value(child, value - gain - 1) >= value:
                    line.append(move)
                    position, value = child, value - gain
                    break
            else:
                assert value == 0, "a line scores the value it was found to"
                return line
        return line


register_analysis("tripeaks", solver=TriPeaksSolver)
