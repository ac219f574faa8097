"""The fair bot of Tower of Hanoy: a player who knows the Tower of Hanoi method.

Nothing is hidden in this game, so "fair" here means "plays as a person would", not "sees less":
the ``fast`` bot does not search the game's positions (that is the solver, perfect play). It
plans the way the puzzle is taught:

- build the tower from the highest card down: to seat card ``j`` on the tower's column, first
  move every smaller card that is in the way (above ``j``, or on the tower's column) onto the
  third column, by the same method, then move ``j``;
- a card dealt on top of smaller ones (out of order at a column's covered end) is lifted off
  them to another column first, and the smaller cards it covered join the rest;
- it makes that plan for each of the three columns as the tower's site, and each of the two
  ways round when a card must be lifted off, and follows the shortest of the six plans.

On a position whose columns are all in order the method is the optimal Tower of Hanoi
algorithm; the moves it wastes come from cards dealt out of order, where a shorter line needs
insight the method does not have (docs/games/hanoy.md measures it: it plays about half of the
five- to seven-card deals perfectly, and wastes 60 moves on a median nine-card deal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from skillcheck.games.hanoy.rules import Columns, Hanoy, HanoyMove, HanoyObservation, apply_move
from skillcheck.registry import register_analysis

__all__ = ["BOTS", "FastBot", "hanoi_method"]

#: A plan longer than this is abandoned (the method never needs it for nine cards: at most a
#: few hundred moves).
MAX_PLAN = 20_000


class _PlanTooLong(Exception):
    pass


class _Table:
    """A mutable copy of the columns (card values, covered first) that records the moves."""

    def __init__(self, columns: Sequence[Sequence[int]]) -> None:
        self.columns = [list(c) for c in columns]
        self.moves: list[tuple[int, int]] = []

    def column_of(self, value: int) -> int:
        for index, column in enumerate(self.columns):
            if value in column:
                return index
        raise ValueError(value)  # pragma: no cover - every value is on the table

    def move(self, source: int, target: int) -> None:
        card = self.columns[source][-1]
        below = self.columns[target][-1] if self.columns[target] else None
        if below is not None and below < card:  # pragma: no cover - the method never does this
            raise ValueError(f"the method tried to put {card} onto {below}")
        self.columns[target].append(self.columns[source].pop())
        self.moves.append((source, target))
        if len(self.moves) > MAX_PLAN:
            raise _PlanTooLong


def _gather(table: _Table, cards: set[int], site: int, lift_to_first: bool) -> None:
    """Make ``cards`` a run in sequence on top of column ``site`` (over whatever else lies
    there), largest first, by the Tower of Hanoi method."""
    cards = set(cards)
    while cards:
        high = max(cards)
        source = table.column_of(high)
        column = table.columns[source]
        under = {c for c in column[: column.index(high)] if c in cards}
        if source == site and not under:
            cards.discard(high)  # seated: the rest goes on top of it
            continue
        rest = cards - {high} - under
        if source == site:
            # ``high`` lies on smaller cards of the run: lift it off to another column first.
            first, second = (c for c in range(3) if c != site)
            spare, lift = (first, second) if lift_to_first else (second, first)
            _gather(table, rest, spare, lift_to_first)
            table.move(source, lift)
            continue
        _gather(table, rest, 3 - source - site, lift_to_first)
        table.move(source, site)
        cards.discard(high)


def hanoi_method(columns: Columns) -> list[HanoyMove]:
    """The shortest of the method's six plans (three sites, two ways round) from ``columns``."""
    values = [[c.value for c in column] for column in columns]
    everything = {v for column in values for v in column}
    best: list[tuple[int, int]] | None = None
    for site in range(3):
        for lift_to_first in (True, False):
            table = _Table(values)
            try:
                _gather(table, everything, site, lift_to_first)
            except _PlanTooLong:  # pragma: no cover - never for nine cards
                continue
            if best is None or len(table.moves) < len(best):
                best = table.moves
    return [HanoyMove(s + 1, t + 1) for s, t in best or ()]


class FastBot:
    """Plays the Tower of Hanoi method (see the module's docstring); it plans once and follows
    the plan while the position is the one it expects, and plans again otherwise."""

    name = "fast"

    def __init__(self) -> None:
        self._plan: list[HanoyMove] = []
        self._expected: Columns | None = None

    def choose(self, game: Any, observation: Any) -> HanoyMove | None:
        if not isinstance(game, Hanoy) or not isinstance(observation, HanoyObservation):
            raise TypeError("the fast bot plays Tower of Hanoy")
        if observation.outcome is not None:
            return None
        columns = observation.columns
        if columns != self._expected or not self._plan:
            self._plan = hanoi_method(columns)
        if not self._plan:  # pragma: no cover - the method always finds a plan
            legal = observation.legal_moves()
            return legal[0] if legal else None
        move = self._plan.pop(0)
        self._expected = apply_move(columns, move)
        return move


BOTS: dict[str, Callable[[], FastBot]] = {"fast": FastBot}

register_analysis(Hanoy.name, bots=BOTS)
