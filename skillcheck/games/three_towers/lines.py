"""Shortening winning lines: a solver's line is a search path, full of detours.

Only deck placements are irreversible, so a line is a chain of segments: some tower moves, then
one deck move. Each segment's tower moves are replaced by a shortest sequence (breadth-first
search, bounded) that reaches the exact arrangement the original segment reached; where the
search runs out of budget the segment is kept with its loops cut out. The result replays to the
same outcome and is never longer than the original.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from skillcheck.cards.decktet import Card
from skillcheck.games.three_towers.rules import (
    DECK,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
    apply_tower_move,
    legal_tower_moves,
)

__all__ = ["position_key", "shorten_line"]

Towers = tuple[tuple[Card, ...], ...]


def position_key(towers: Towers) -> tuple[tuple[int, ...], ...]:
    """Towers as a position: the same key for any order of the towers (they are alike)."""
    return tuple(sorted(tuple(c.index for c in t) for t in towers))


def _without_loops(
    start: Towers, deck: Sequence[Card], moves: Sequence[TowerMove]
) -> list[TowerMove]:
    """Cut every stretch of moves that comes back to a position already seen, up to the order of
    the towers (towers are interchangeable): later moves are renumbered to match."""
    spaces = len(start)
    label = list(range(spaces))  # original tower number - 1 -> tower number - 1 in the result
    towers = start
    position = 0
    path: list[TowerMove] = []
    seen: dict[tuple[tuple[tuple[int, ...], ...], int], tuple[int, Towers]] = {
        (position_key(towers), 0): (0, towers)
    }
    for move in moves:
        source = move.source if move.source == DECK else label[move.source - 1] + 1
        step = TowerMove(source, label[move.target - 1] + 1)
        top = deck[position] if step.source == DECK else None
        towers = apply_tower_move(towers, step, top)
        position += step.source == DECK
        key = (position_key(towers), position)
        if key in seen:
            length, earlier = seen[key]
            del path[length:]
            seen = {k: v for k, v in seen.items() if v[0] <= length}
            # Towers now are a permutation of `earlier`: relabel so later moves find their cards.
            free = list(range(spaces))
            mapping = [0] * spaces
            for index, tower in enumerate(towers):
                match = next(j for j in free if earlier[j] == tower)
                free.remove(match)
                mapping[index] = match
            label = [mapping[label[k]] for k in range(spaces)]
            towers = earlier
        else:
            path.append(step)
            seen[key] = (len(path), towers)
    return path


def _shortest(start: Towers, goal: Towers, budget: int) -> list[TowerMove] | None:
    """A shortest sequence of tower moves from ``start`` to ``goal`` (None past the budget)."""
    if start == goal:
        return []
    parents: dict[Towers, tuple[Towers, TowerMove] | None] = {start: None}
    queue = deque([start])
    while queue:
        towers = queue.popleft()
        for move in legal_tower_moves(towers, None):
            after = apply_tower_move(towers, move, None)
            if after in parents:
                continue
            parents[after] = (towers, move)
            if after == goal:
                path: list[TowerMove] = []
                node: Towers = after
                while (link := parents[node]) is not None:
                    node, step = link
                    path.append(step)
                return path[::-1]
            if len(parents) >= budget:
                return None
            queue.append(after)
    return None


def _shortcut(start: Towers, moves: Sequence[TowerMove], depth: int) -> list[TowerMove]:
    """Replace stretches of tower moves by at most ``depth`` moves wherever a later position of
    the stretch is that close (greedy, from the front)."""
    positions = [start]
    for move in moves:
        positions.append(apply_tower_move(positions[-1], move, None))
    last = {towers: index for index, towers in enumerate(positions)}
    result: list[TowerMove] = []
    index = 0
    while index < len(moves):
        frontier: list[tuple[Towers, list[TowerMove]]] = [(positions[index], [])]
        seen = {positions[index]}
        best_index, best_path = index + 1, [moves[index]]
        for _ in range(depth):
            grown: list[tuple[Towers, list[TowerMove]]] = []
            for towers, path in frontier:
                for move in legal_tower_moves(towers, None):
                    after = apply_tower_move(towers, move, None)
                    if after in seen:
                        continue
                    seen.add(after)
                    longer = [*path, move]
                    target = last.get(after, -1)
                    if target - len(longer) > best_index - len(best_path):
                        best_index, best_path = target, longer
                    grown.append((after, longer))
            frontier = grown
        result.extend(best_path)
        index = best_index
    return result


def shorten_line(
    game: ThreeTowers,
    start: ThreeTowersState,
    moves: Sequence[TowerMove],
    *,
    budget_per_segment: int = 5_000,
) -> tuple[TowerMove, ...]:
    """A winning line from ``start``, usually far shorter than ``moves`` (which must win)."""
    deck = start.remaining_deck
    moves = _without_loops(start.towers, deck, moves)
    towers: Towers = start.towers
    position = 0
    result: list[TowerMove] = []
    segment: list[TowerMove] = []
    segment_start = towers

    def close_segment(goal: Towers) -> None:
        better = _shortest(segment_start, goal, budget_per_segment) if segment else []
        if better is None:
            better = segment
            while True:
                shorter = _shortcut(segment_start, better, depth=2)
                if len(shorter) >= len(better):
                    break
                better = shorter
        result.extend(better if len(better) < len(segment) else segment)

    for move in moves:
        if move.source == DECK:
            close_segment(towers)
            towers = apply_tower_move(towers, move, deck[position])
            position += 1
            result.append(move)
            segment, segment_start = [], towers
        else:
            towers = apply_tower_move(towers, move, None)
            segment.append(move)
    close_segment(towers)
    # A shorter path may reach the goal earlier (a quota check ends at once): stop there.
    state = start.copy()
    line: list[TowerMove] = []
    for move in result:
        if state.is_terminal():
            break
        state.push(move)
        line.append(move)
    return tuple(line)
