"""Breadth-first search over Tower of Hanoy positions packed into ints.

A column is packed as one int, four bits a card (its rank's value, 1..10; 0 never occurs), the
covered card in the highest nibble and the exposed card in the lowest: ``col & 15`` is the
exposed card, ``col >> 4`` the column without it, ``(col << 4) | card`` the column with ``card``
put on it. A position is three packed columns. The rules do not care which column is which
(the goal is one full column, any of the three), so searches store a position's *canonical*
key, its three columns sorted: six labelled positions share one key, and a line found over
keys is turned back into column numbers by replaying it (:func:`line_moves`).

Two searches:

- :func:`shortest_line` (the solver): forward from one position until the first winning key;
  a deal's whole graph holds at most a few thousand keys, so this takes milliseconds.
- :func:`deal_distances` (``skillcheck hanoy stats``): one backward search from the winning
  position gives the distance to the goal of every position from which it can be reached; the
  deals are among them, so one search answers all ``n!`` deals at once. Predecessors are pruned
  to positions a deal can reach (each column at most one dealt column's height of cards out of
  order at its covered end), which keeps the search to 1.2 million keys for nine cards.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

from attrs import frozen

__all__ = [
    "Columns",
    "Key",
    "LineResult",
    "column_sizes",
    "deal_distances",
    "distance_distribution",
    "is_won",
    "key_of",
    "legal_pairs",
    "line_moves",
    "pack",
    "shortest_line",
    "successors",
    "unpack",
    "winning_column",
]

#: Three packed columns, in column order.
Columns = tuple[int, int, int]
#: Three packed columns, sorted (a canonical key: column numbers forgotten).
Key = tuple[int, int, int]

Progress = Callable[[int, int], None]


def pack(values: Iterable[int]) -> int:
    """A column from its card values, covered card first."""
    packed = 0
    for value in values:
        packed = (packed << 4) | value
    return packed


def unpack(packed: int) -> tuple[int, ...]:
    """The card values of a packed column, covered card first."""
    values: list[int] = []
    while packed:
        values.append(packed & 15)
        packed >>= 4
    return tuple(reversed(values))


def winning_column(values: Sequence[int]) -> int:
    """The packed column that wins with these cards: highest covered, lowest exposed."""
    return pack(sorted(values, reverse=True))


def column_sizes(cards: int) -> tuple[int, int, int]:
    """How ``cards`` cards are dealt: as evenly as possible, the first columns one more."""
    base, extra = divmod(cards, 3)
    return (
        base + (extra > 0),
        base + (extra > 1),
        base,
    )


def key_of(columns: Sequence[int]) -> Key:
    a, b, c = sorted(columns)
    return a, b, c


def is_won(key: Key, win: int) -> bool:
    """Whether a canonical key is the goal (all cards in one column, in sequence)."""
    return key[2] == win and not key[1]


def legal_pairs(columns: Sequence[int]) -> Iterator[tuple[int, int]]:
    """The legal moves as (source, target) indices 0..2: the exposed card of the source goes onto
    an empty target or onto a higher exposed card."""
    for source in range(3):
        moving = columns[source] & 15
        if not moving:
            continue
        for target in range(3):
            if target != source:
                below = columns[target] & 15
                if not below or below > moving:
                    yield source, target


def successors(key: Sequence[int]) -> Iterator[tuple[int, int, Key]]:
    """(source, target, canonical key after the move) for every legal move of ``key``."""
    for source in range(3):
        column = key[source]
        if not column:
            continue
        moving = column & 15
        rest = column >> 4
        for target in range(3):
            if target == source:
                continue
            other = key[target]
            if other and (other & 15) < moving:
                continue
            after = [key[0], key[1], key[2]]
            after[source] = rest
            after[target] = (other << 4) | moving
            after.sort()
            yield source, target, (after[0], after[1], after[2])


@frozen
class LineResult:
    """What :func:`shortest_line` found: ``keys`` is a shortest line of canonical keys from the
    start to a win (the start included), or None when none was found; ``exhausted`` says the
    search proved there is none (within ``depth`` moves if a depth was given); ``states`` counts
    the keys stored."""

    keys: tuple[Key, ...] | None
    states: int
    exhausted: bool

    @property
    def distance(self) -> int | None:
        return None if self.keys is None else len(self.keys) - 1


def shortest_line(
    columns: Sequence[int],
    win: int,
    *,
    depth: int | None = None,
    max_states: int | None = None,
    deadline: float | None = None,
) -> LineResult:
    """Breadth-first search from ``columns`` to the winning position ``win`` (a packed column).

    ``depth`` bounds the line's length (a move allowance: a win deeper than it is no win);
    ``max_states`` and ``deadline`` (a :func:`time.monotonic` value) bound the work, and the
    search then gives up (``exhausted`` False)."""
    start = key_of(columns)
    parent: dict[Key, Key | None] = {start: None}
    if is_won(start, win):
        return LineResult((start,), 1, True)
    done: Key = (0, 0, win)
    frontier = [start]
    level = 0
    while frontier:
        if depth is not None and level >= depth:
            return LineResult(None, len(parent), True)
        level += 1
        following: list[Key] = []
        add = following.append
        for key in frontier:
            # The six moves of a sorted key, written out: this loop is the solver's hot path.
            a, b, c = key
            ta, tb, tc = a & 15, b & 15, c & 15
            found: list[Key] = []
            if ta:
                ra = a >> 4
                if not tb or tb > ta:
                    found.append(_sorted3(ra, (b << 4) | ta, c))
                if not tc or tc > ta:
                    found.append(_sorted3(ra, b, (c << 4) | ta))
            if tb:
                rb = b >> 4
                if not ta or ta > tb:
                    found.append(_sorted3((a << 4) | tb, rb, c))
                if not tc or tc > tb:
                    found.append(_sorted3(a, rb, (c << 4) | tb))
            if tc:
                rc = c >> 4
                if not ta or ta > tc:
                    found.append(_sorted3((a << 4) | tc, b, rc))
                if not tb or tb > tc:
                    found.append(_sorted3(a, (b << 4) | tc, rc))
            for after in found:
                if after in parent:
                    continue
                parent[after] = key
                if after == done:
                    return LineResult(_path(parent, after), len(parent), True)
                add(after)
            if max_states is not None and len(parent) > max_states:
                return LineResult(None, len(parent), False)
        if deadline is not None and time.monotonic() > deadline:
            return LineResult(None, len(parent), False)
        frontier = following
    return LineResult(None, len(parent), True)


def _sorted3(a: int, b: int, c: int) -> Key:
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    return a, b, c


def _path(parent: dict[Key, Key | None], end: Key) -> tuple[Key, ...]:
    path: list[Key] = []
    key: Key | None = end
    while key is not None:
        path.append(key)
        key = parent[key]
    return tuple(reversed(path))


def line_moves(columns: Sequence[int], keys: Sequence[Key]) -> list[tuple[int, int]]:
    """The moves (source, target indices) that follow a line of canonical keys from the labelled
    position ``columns`` (whose key is ``keys[0]``)."""
    current = list(columns)
    moves: list[tuple[int, int]] = []
    for wanted in keys[1:]:
        for source, target in legal_pairs(current):
            after = list(current)
            after[target] = (after[target] << 4) | (after[source] & 15)
            after[source] >>= 4
            if key_of(after) == wanted:
                moves.append((source, target))
                current = after
                break
        else:  # pragma: no cover - a line of keys always has a move between neighbours
            raise ValueError(f"no move leads from {key_of(current)} to {wanted}")
    return moves


# ---- every deal at once: one backward search --------------------------------------------------


def deal_distances(cards: int, *, progress: Progress | None = None) -> tuple[dict[Key, int], int]:
    """The distance to the goal of every position of ``cards`` cards (values 1..cards) that a
    deal can reach and that can reach the goal, by one backward breadth-first search from the
    winning position. Returns (distances by canonical key, deepest level).

    A predecessor of a position undoes one move: it takes a column's exposed card back onto
    another column, provided the card could have been put where it lies (on an empty column or
    a higher card). Predecessors with a column holding more cards out of order at its covered
    end than a dealt column's height are left out: no deal reaches them, and every position on a
    deal's shortest line is one a deal reaches, so the deals' distances are exact.

    ``progress(level, keys)`` is called after each level."""
    prefix = max(column_sizes(cards))
    win = pack(range(cards, 0, -1))
    start: Key = (0, 0, win)
    distance: dict[Key, int] = {start: 0}
    frontier = [start]
    shift = 4 * prefix
    level = 0
    while frontier:
        level += 1
        following: list[Key] = []
        add = following.append
        for a, b, c in frontier:
            # (source, target, the third column) for the six ordered pairs of columns
            for source, target, third in ((a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b),
                                          (c, b, a)):  # fmt: skip
                moving = source & 15
                if not moving:
                    continue
                rest = source >> 4
                if rest and (rest & 15) < moving:
                    continue  # the card could not have been put there
                if target and (target & 15) < moving and target >> shift:
                    continue  # more than ``prefix`` cards out of order: no deal gets here
                found = _sorted3(rest, (target << 4) | moving, third)
                if found not in distance:
                    distance[found] = level
                    add(found)
        frontier = following
        if progress is not None:
            progress(level, len(distance))
    return distance, level - 1


def distance_distribution(cards: int, distance: dict[Key, int]) -> tuple[Counter[int], int]:
    """(number of deals by minimum moves, number of deals that cannot be won) over all
    ``cards!`` deals, from :func:`deal_distances`' table.

    A deal is a position whose column heights are :func:`column_sizes`; the table holds each as
    a canonical key, which stands for as many deals as there are ways to give its columns back
    their numbers (two equal-height columns can swap)."""
    sizes = column_sizes(cards)
    shape = sorted(sizes)
    swaps = math.prod(math.factorial(n) for n in Counter(sizes).values())
    counts: Counter[int] = Counter()
    for key, moves in distance.items():
        heights = sorted(_height(c) for c in key)
        if heights == shape:
            counts[moves] += swaps
    unwinnable = math.factorial(cards) - sum(counts.values())
    return counts, unwinnable


def _height(packed: int) -> int:
    return (packed.bit_length() + 3) >> 2
