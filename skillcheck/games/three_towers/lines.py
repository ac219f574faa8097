"""Shortening winning lines: a solver's line is a search path, full of detours.

Only deck placements are irreversible, so a line is a chain of segments: some tower moves, then
one deck move. Each segment's tower moves are replaced by a shortest sequence that reaches the
arrangement the original segment reached, up to the order of the towers (they are alike): a
breadth-first search from both ends (tower moves can be taken back, so the search from the goal
uses the same moves), bounded by a budget of positions. A segment that the search does not
finish (or surely would not: its lower bound on moves, :func:`_within`, is above
:data:`_DEEPEST`) keeps its own way with the loops cut out, every stretch that one or two moves
can replace replaced, and then, window by window (stretches whose lower bound is at most
:data:`_WINDOW`), each stretch replaced by a shortest one found within a fifth of the budget.
The result replays to the same outcome and is never longer than the original.

The work is done on plain ints, as in the solver: cards are numbered by rank, a tower is a bit set
(its top card is the lowest set bit), and a position's key is one int, the same for any order of
the towers: per card, the card it sits on (see :class:`_Table`). A move changes one card's field
of the key, so the search updates keys with one xor, and the moves of the shortened line (tower
numbers included) are read back from consecutive keys at the end.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from skillcheck.cards.decktet import Card
from skillcheck.games.three_towers.rules import (
    DECK,
    Ivory,
    Quota,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
)

__all__ = ["position_key", "shorten_line"]

Towers = tuple[tuple[Card, ...], ...]

#: Towers as bit sets, in any order.
_Bits = tuple[int, ...]
#: A position: its key (:func:`_key`) and its towers.
_Node = tuple[int, _Bits]
#: Whether towers meet the game's goal.
_Goal = Callable[[_Bits], bool]

#: A segment whose lower bound on moves (:func:`_within`) is above this is not searched whole. On
#: the lines of level-9 seeds 0-99 the search (default budget) finished 64 of the 164 segments
#: with a bound of 11-16 and none of the 101 above; a failed search costs the whole budget, and
#: the windows do nearly as well: 59,991 moves in all against 59,146 when searching segments up
#: to a bound of 15, in three quarters of the time.
_DEEPEST = 10

#: ... unless the segment has at most this many cards on the table (games up to level 6, or the
#: first placements of a bigger one): then positions are few, and every search of the segment
#: gets the whole budget (on the lines of level-5 seeds 0-39 the search then finished every
#: segment, the 8 with a bound above 10 included).
_FEW = 15

#: The windows of a segment that was not searched whole: stretches of its way whose lower bound
#: is at most this (the search finishes nearly all of them within a fifth of the budget).
_WINDOW = 6


def position_key(towers: Towers) -> tuple[tuple[int, ...], ...]:
    """Towers as a position: the same key for any order of the towers (they are alike)."""
    return tuple(sorted([tuple([c.index for c in t]) for t in towers]))


class _Table:
    """The cards of one line as ints: bit ``i`` is the ``i``-th card by rank (then by index), so
    a tower's top card is its lowest set bit; ``onto[i]`` is the bit set of the cards that card
    ``i`` may be placed on (strictly higher, sharing a suit). In a key every card has a field of
    ``width`` bits: 0 off the table, ``bottom`` on an empty space, else 1 + the card under it
    (``on`` has these fields, shifted into place)."""

    def __init__(self, towers: Towers, deck: Sequence[Card]) -> None:
        cards = sorted(
            {c for t in towers for c in t} | set(deck), key=lambda c: (int(c.rank or 0), c.index)
        )
        self.bit = {c: i for i, c in enumerate(cards)}
        rank = [int(c.rank or 0) for c in cards]
        suits = [frozenset(c.suits) for c in cards]
        self.onto: tuple[int, ...] = tuple(
            sum(
                1 << j
                for j in range(len(cards))
                if rank[j] > rank[i] and not suits[i].isdisjoint(suits[j])
            )
            for i in range(len(cards))
        )
        self.width = (len(cards) + 2).bit_length()
        self.bottom = (1 << self.width) - 1
        # for the searches, by a card's bit: the bits it may go on, and its key field (shifted
        # into place) on each card or (0) on an empty space
        self.onto_of = {1 << i: mask for i, mask in enumerate(self.onto)}
        self.on: dict[int, dict[int, int]] = {
            1 << i: {
                1 << j if j >= 0 else 0: (j + 1 if j >= 0 else self.bottom) << self.width * i
                for j in range(-1, len(cards))
            }
            for i in range(len(cards))
        }

    def towers(self, towers: Towers) -> list[int]:
        bit = self.bit
        return [sum(1 << bit[c] for c in t) for t in towers]


def _key(towers: Sequence[int], width: int, bottom: int) -> int:
    """The key of a position (see :class:`_Table`): the same for any order of the towers."""
    key = 0
    for tower in towers:
        while tower:
            low = tower & -tower
            tower ^= low
            key |= ((tower & -tower).bit_length() if tower else bottom) << width * (
                low.bit_length() - 1
            )
    return key


def _children(node: _Node, table: _Table) -> list[_Node]:
    """The positions one tower move away. All empty spaces are alike (the first one stands for
    them all), and a lone card going to an empty space is no move (the position stays the same
    up to the order of the towers)."""
    onto_of, on = table.onto_of, table.on
    key, towers = node
    where: dict[int, int] = {}
    tops = 0
    empty = -1
    for index, tower in enumerate(towers):
        if tower:
            low = tower & -tower
            tops |= low
            where[low] = index
        elif empty < 0:
            empty = index
    out: list[_Node] = []
    for a, source in enumerate(towers):
        if not source:
            continue
        low = source & -source
        rest = source ^ low
        fields = on[low]
        base = key ^ fields[rest & -rest]
        if empty >= 0 and rest:
            after = list(towers)
            after[a] = rest
            after[empty] = low
            out.append((base | fields[0], tuple(after)))
        targets = onto_of[low] & tops
        while targets:
            top = targets & -targets
            targets ^= top
            after = list(towers)
            after[a] = rest
            after[where[top]] |= low
            out.append((base | fields[top], tuple(after)))
    return out


def _shortest(start: _Node, goal: _Node, table: _Table, budget: int) -> list[int] | None:
    """The keys of a shortest path from ``start`` to ``goal`` (both included), or None once
    ``budget`` positions were stored. Breadth-first from both ends, a whole level at a time, the
    smaller frontier first: the first meeting is on a shortest path. (The loop is
    :func:`_children` written out: a child's key is tested before its towers are built.)"""
    if start[0] == goal[0]:
        return [start[0]]
    onto_of, on = table.onto_of, table.on
    forward: dict[int, int] = {start[0]: -1}
    backward: dict[int, int] = {goal[0]: -1}
    forward_frontier, backward_frontier = [start], [goal]
    while forward_frontier and backward_frontier:
        is_forward = len(forward_frontier) <= len(backward_frontier)
        mine, other = (forward, backward) if is_forward else (backward, forward)
        grown: list[_Node] = []
        for key, towers in forward_frontier if is_forward else backward_frontier:
            where: dict[int, int] = {}
            tops = 0
            empty = -1
            for index, tower in enumerate(towers):
                if tower:
                    low = tower & -tower
                    tops |= low
                    where[low] = index
                elif empty < 0:
                    empty = index
            for a, source in enumerate(towers):
                if not source:
                    continue
                low = source & -source
                rest = source ^ low
                fields = on[low]
                base = key ^ fields[rest & -rest]
                if empty >= 0 and rest:
                    child = base | fields[0]
                    if child not in mine:
                        mine[child] = key
                        if child in other:
                            return _join(forward, backward, child)
                        after = list(towers)
                        after[a] = rest
                        after[empty] = low
                        grown.append((child, tuple(after)))
                targets = onto_of[low] & tops
                while targets:
                    top = targets & -targets
                    targets ^= top
                    child = base | fields[top]
                    if child in mine:
                        continue
                    mine[child] = key
                    if child in other:
                        return _join(forward, backward, child)
                    after = list(towers)
                    after[a] = rest
                    after[where[top]] |= low
                    grown.append((child, tuple(after)))
            if len(forward) + len(backward) >= budget:
                return None
        if is_forward:
            forward_frontier = grown
        else:
            backward_frontier = grown
    return None


def _join(forward: dict[int, int], backward: dict[int, int], middle: int) -> list[int]:
    path: list[int] = []
    key = middle
    while key != -1:
        path.append(key)
        key = forward[key]
    path.reverse()
    key = backward[middle]
    while key != -1:
        path.append(key)
        key = backward[key]
    return path


def _without_loops(path: list[_Node]) -> list[_Node]:
    """Cut every stretch that comes back to a position already seen."""
    kept: list[_Node] = []
    where: dict[int, int] = {}
    for node in path:
        index = where.get(node[0])
        if index is None:
            where[node[0]] = len(kept)
            kept.append(node)
        else:
            for dropped in kept[index + 1 :]:
                del where[dropped[0]]
            del kept[index + 1 :]
    return kept


def _shortcut(path: list[_Node], table: _Table) -> list[_Node]:
    """Replace stretches of ``path`` by one or two moves wherever a later position of the path
    is that close (greedy, from the front: the jump that saves the most moves)."""
    children = [_children(node, table) for node in path]
    last = {node[0]: index for index, node in enumerate(path)}
    near: dict[int, int] = {}  # a position -> the last index of the path one move away from it
    for index, nodes in enumerate(children):
        for key, _ in nodes:
            near[key] = index
    result = [path[0]]
    index = 0
    end = len(path) - 1
    while index < end:
        best_index, best_steps = index + 1, [path[index + 1]]
        for node in children[index]:
            target = last.get(node[0], -1)
            if target - 1 > best_index - len(best_steps):
                best_index, best_steps = target, [node]
            target = near.get(node[0], -1)
            if target - 2 > best_index - len(best_steps):
                best_index, best_steps = target, [node, path[target]]
        result.extend(best_steps)
        index = best_index
    return result


def _walk(towers: _Bits, table: _Table) -> list[list[tuple[int, int]]]:
    """Per tower, from its bottom card up: each card's shift in a key, and its field there (the
    card under it, or ``bottom``)."""
    walk = []
    for tower in towers:
        cards = []
        under = table.bottom
        while tower:
            index = tower.bit_length() - 1
            tower ^= 1 << index
            cards.append((table.width * index, under))
            under = index + 1
        walk.append(cards)
    return walk


def _within(walk: list[list[tuple[int, int]]], goal: int, bottom: int, limit: int) -> bool:
    """Whether a lower bound on the tower moves from the towers of ``walk`` to the position of
    key ``goal`` is at most ``limit``. The bound: a card that is not on the card (or empty
    space) it is on in ``goal`` moves at least once; one that is, above a card that is not,
    moves at least twice (off and back)."""
    bound = 0
    for cards in walk:
        wrong = False
        for shift, under in cards:
            if (goal >> shift) & bottom != under:
                bound += 1
                wrong = True
            elif wrong:
                bound += 2
            else:
                continue
            if bound > limit:
                return False
    return True


def _shorter_segment(
    path: list[_Node], table: _Table, budget: int, goal: _Goal | None = None
) -> tuple[list[int], bool]:
    """The keys of a path from ``path[0]`` to ``path[-1]`` no longer than ``path`` (which has no
    loops), and False; or, with ``goal``, of a shorter path to a position that meets it, and
    True.

    With few cards on the table (at most :data:`_FEW`) positions are few and every search gets
    the whole budget. Otherwise the search for the whole way is skipped when its lower bound is
    above :data:`_DEEPEST`, and the search for a goal gets a fifth of the budget."""
    few = sum(path[0][1]).bit_count() <= _FEW  # the towers are disjoint bit sets
    keys = _shorter_way(path, table, budget, few)
    if goal is not None and len(keys) > 1:
        won = _nearest(path[0], goal, table, budget if few else budget // 5, len(keys) - 2)
        if won is not None:
            return won, True
    return keys, False


def _shorter_way(path: list[_Node], table: _Table, budget: int, few: bool) -> list[int]:
    if len(path) <= 2:
        return [key for key, _ in path]
    if few or _within(_walk(path[0][1], table), path[-1][0], table.bottom, _DEEPEST):
        best = _shortest(path[0], path[-1], table, budget)
        if best is not None:
            return best
    while len(path) > 2:
        shorter = _shortcut(path, table)
        if len(shorter) >= len(path):
            break
        path = shorter
    return _by_windows(path, table, budget // 5)


def _nearest(start: _Node, goal: _Goal, table: _Table, budget: int, depth: int) -> list[int] | None:
    """The keys of a shortest path of at most ``depth`` moves from ``start`` to a position that
    meets ``goal`` (breadth-first), or None (none, or ``budget`` positions were stored first)."""
    if goal(start[1]):
        return [start[0]]
    parents = {start[0]: -1}
    frontier = [start]
    for _ in range(depth):
        grown: list[_Node] = []
        for node in frontier:
            for child in _children(node, table):
                if child[0] in parents:
                    continue
                parents[child[0]] = node[0]
                if goal(child[1]):
                    path = [child[0]]
                    while (key := parents[path[-1]]) != -1:
                        path.append(key)
                    return path[::-1]
                grown.append(child)
            if len(parents) >= budget:
                return None
        frontier = grown
    return None


def _goal(game: ThreeTowers, table: _Table, start: _Bits, cards_left: int) -> _Goal | None:
    """The game's goal on bit sets, for a segment that starts with ``start`` and ``cards_left``
    in the deck; None when no position of the segment can meet it (as the rules say, see
    ``ThreeTowersState._goal_outcome``)."""
    variant = game.variant
    pure = 0
    if isinstance(variant, Ivory | Quota):
        pure = sum(1 << i for c, i in table.bit.items() if c.bears(variant.suit))
    if isinstance(variant, Quota):
        quota = variant.quota
        placed = 0
        for tower in start:
            placed |= tower
        if (placed & pure).bit_count() < quota:
            return None
        return lambda towers: any(t and not t & ~pure and t.bit_count() >= quota for t in towers)
    if cards_left:
        return None
    full = game.level - 1
    ivory = isinstance(variant, Ivory)

    def won(towers: _Bits) -> bool:
        complete = [t for t in towers if t.bit_count() == full]
        return len(complete) == 3 and (not ivory or any(not t & ~pure for t in complete))

    return won


def _by_windows(path: list[_Node], table: _Table, budget: int) -> list[int]:
    """The keys of ``path`` with each window (from a position, as far as the lower bound from it
    stays at most :data:`_WINDOW`) replaced by a shortest way when the search finds a shorter
    one within ``budget``; loops that this makes are cut."""
    keys = [path[0][0]]
    start, end = 0, len(path) - 1
    while start < end:
        stop = start + 1
        walk = _walk(path[start][1], table)
        while stop < end and _within(walk, path[stop + 1][0], table.bottom, _WINDOW):
            stop += 1
        better = None
        if stop - start > 1:
            better = _shortest(path[start], path[stop], table, budget)
        if better is not None and len(better) <= stop - start:
            keys += better[1:]
        else:
            keys += [key for key, _ in path[start + 1 : stop + 1]]
        start = stop
    kept: list[int] = []
    where: dict[int, int] = {}
    for key in keys:
        index = where.get(key)
        if index is None:
            where[key] = len(kept)
            kept.append(key)
        else:
            for dropped in kept[index + 1 :]:
                del where[dropped]
            del kept[index + 1 :]
    return kept


def _segments(
    table: _Table, start: Towers, deck: Sequence[Card], moves: Sequence[TowerMove]
) -> list[list[_Node]]:
    """The line's positions, cut into segments at its deck moves: each segment starts with the
    position after a deck move (the first one with the start) and ends before the next."""
    width, bottom = table.width, table.bottom
    towers = table.towers(start)
    key = _key(towers, width, bottom)
    bit = table.bit
    position = 0
    segments: list[list[_Node]] = [[(key, tuple(towers))]]
    for move in moves:
        if move.source == DECK:
            card = 1 << bit[deck[position]]
            position += 1
            old = 0
        else:
            source = towers[move.source - 1]
            card = source & -source
            towers[move.source - 1] = source ^ card
            rest = source ^ card
            old = (rest & -rest).bit_length() if rest else bottom
        target = towers[move.target - 1]
        new = (target & -target).bit_length() if target else bottom
        towers[move.target - 1] = target | card
        key ^= (old ^ new) << width * (card.bit_length() - 1)
        if move.source == DECK:
            segments.append([(key, tuple(towers))])
        else:
            segments[-1].append((key, tuple(towers)))
    return segments


def _tower_moves(table: _Table, start: Towers, keys: Sequence[int]) -> list[TowerMove]:
    """The moves between consecutive keys (each a move apart), with tower numbers, played from
    the towers ``start``: a card moved onto an empty space goes to the first empty one."""
    width, bottom = table.width, table.bottom
    towers = table.towers(start)
    moves: list[TowerMove] = []
    for before, after in itertools.pairwise(keys):
        shift = (before ^ after).bit_length() - 1
        card = shift // width
        shift = card * width
        bit = 1 << card
        under = (after >> shift) & bottom
        if (before >> shift) & bottom:
            source = next(i for i, t in enumerate(towers) if t & -t == bit)
            towers[source] ^= bit
        else:
            source = -1  # the deck
        if under == bottom:
            target = towers.index(0)
        else:
            target = next(i for i, t in enumerate(towers) if t & -t == 1 << (under - 1))
        towers[target] |= bit
        moves.append(TowerMove(source + 1, target + 1))
    return moves


def shorten_line(
    game: ThreeTowers,
    start: ThreeTowersState,
    moves: Sequence[TowerMove],
    *,
    budget_per_segment: int = 5_000,
) -> tuple[TowerMove, ...]:
    """A winning line from ``start``, usually far shorter than ``moves`` (which must win).

    ``budget_per_segment`` bounds the positions that the search for one segment's shortest way
    stores (both ends together)."""
    from skillcheck.games.three_towers.solver import _collector_paused

    deck = start.remaining_deck
    table = _Table(start.towers, deck)
    keys: list[int] = []
    with _collector_paused():  # many small tuples and no cycles, as in the solver
        for placed, segment in enumerate(_segments(table, start.towers, deck, moves)):
            goal = _goal(game, table, segment[0][1], len(deck) - placed)
            path = _without_loops(segment)
            way, won = _shorter_segment(path, table, budget_per_segment, goal)
            keys += way
            if won:
                break  # the check is won there
        line = _tower_moves(table, start.towers, keys)
    # A shorter path may reach the goal earlier (a quota check ends at once): stop there. The
    # rules engine checks every move on the way.
    state = start.copy()
    for count, move in enumerate(line):
        if state.is_terminal():
            return tuple(line[:count])
        state.push(move)
    return tuple(line)
