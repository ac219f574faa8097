"""The exact solver of Tower of Hanoy: breadth-first search, so every line it gives is shortest.

Nothing is hidden in this game, so the solver knows no more than the player; it is "perfect
play" because it searches every position. A check's allowance (and the move limit) bound the
search: a win deeper than the moves left is no win, and the search proves the loss.
"""

from __future__ import annotations

import time

from skillcheck.engine import State, Status
from skillcheck.games.hanoy.rules import Hanoy, HanoyMove, HanoyState, packed
from skillcheck.games.hanoy.search import line_moves, shortest_line
from skillcheck.registry import register_analysis
from skillcheck.solving import Result, Solution

__all__ = ["HanoySolver", "solve"]


def solve(
    state: HanoyState, *, max_states: int | None = 2_000_000, max_seconds: float | None = None
) -> Solution[HanoyMove]:
    """A shortest winning line from ``state`` within the moves it has left, or a proof that
    there is none (``"loss"``), or ``"unknown"`` when the budget ran out first.

    ``extras["minimum"]`` is the line's length for a win."""
    started = time.monotonic()
    outcome = state.outcome
    if outcome is not None:
        won = outcome.status is Status.WON
        result: Result = "win" if won else "loss"
        extras = {"minimum": 0} if won else {}
        return Solution(result, (), 0, time.monotonic() - started, minimum=won, extras=extras)
    columns = packed(state.columns)
    deadline = None if max_seconds is None else started + max_seconds
    found = shortest_line(
        columns,
        state.game.win_packed,
        depth=state.moves_left,
        max_states=max_states,
        deadline=deadline,
    )
    seconds = time.monotonic() - started
    if found.keys is None:
        unsolved: Result = "loss" if found.exhausted else "unknown"
        return Solution(unsolved, (), found.states, seconds)
    moves = tuple(HanoyMove(s + 1, t + 1) for s, t in line_moves(columns, found.keys))
    return Solution(
        "win", moves, found.states, seconds, minimum=True, extras={"minimum": len(moves)}
    )


class HanoySolver:
    """The :class:`~skillcheck.solving.Solver` of Tower of Hanoy (see :func:`solve`)."""

    def solve(
        self,
        state: State[HanoyMove],
        *,
        max_states: int | None = 2_000_000,
        max_seconds: float | None = None,
    ) -> Solution[HanoyMove]:
        if not isinstance(state, HanoyState):
            raise TypeError(f"the Tower of Hanoy solver solves Hanoy states, not {state!r}")
        return solve(state, max_states=max_states, max_seconds=max_seconds)


register_analysis(Hanoy.name, solver=HanoySolver)
