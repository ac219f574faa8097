"""An exact perfect-information solver for Three Towers (all variants).

The solver knows the order of the deck. :func:`solve` answers "win" with a winning line (a
certificate that the rules engine replays), "loss" only when it has exhausted every reachable
position (towers are interchangeable, so positions are compared with their towers sorted), or
"unknown" when its budget of states or seconds ran out.

How it works (see also ``/work/shared/reference/three-towers-solving.md``):

- Cards are small ints ordered by rank, so a tower (whose order follows from its ranks) is a bit
  set: its top card is the lowest set bit. A position is the tuple of tower bit sets; its
  canonical key is that tuple sorted (the deck position follows from the cards on the table).
- Phase 1, *steered search* (standard and Ivory goals): between adjacent ranks the "shares a
  suit" relation has few perfect matchings (exactly two for the full deck), so the finished
  positions are few (128 at level 9). For one target arrangement at a time, a depth-first search
  orders its moves by how they serve that target (a card onto its intended parent, preferring
  parents that are already "home", digging out the next card a chain needs, ...). Every target
  gets a small budget, then budgets grow. Its wins are genuine lines of legal moves.
- Phase 2, *exhaustive search*: a depth-first search over canonical positions with a
  transposition set and every legal move (modulo symmetries: all empty spaces are alike, a lone
  card never moves to an empty space). Only this phase answers "loss", after every reachable
  position was visited.
- Quota checks use a steered search towards a pure tower of the suit, then the exhaustive search.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Sequence
from typing import Literal

from attrs import frozen

from skillcheck.cards import Card
from skillcheck.three_towers import (
    DECK,
    Ivory,
    Quota,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
)

__all__ = ["Result", "Solution", "solve"]

#: Phase 1 hands deck-empty positions to a greedy end-game search (_endgame). Measured worse at
#: level 9 (it gives up on end games the plain steered search still solves), so it is off.
_ENDGAME = False

Result = Literal["win", "loss", "unknown"]


@frozen
class Solution:
    """What :func:`solve` found.

    ``moves`` is a winning line from the start position when ``result`` is ``"win"`` (empty
    otherwise); ``states`` counts the positions the search generated; ``seconds`` is wall time.
    """

    result: Result
    moves: tuple[TowerMove, ...]
    states: int
    seconds: float

    @property
    def decided(self) -> bool:
        return self.result != "unknown"


class _OutOfBudget(Exception):
    pass


# A move in the hot loop: (source, target), source -1 for the deck, towers counted from 0.
_Move = tuple[int, int]


class _Problem:
    """Precomputed tables for one game and one deal (plain ints and tuples)."""

    def __init__(
        self,
        game: ThreeTowers,
        towers: Sequence[Sequence[Card]],
        deck: Sequence[Card],
    ) -> None:
        self.game = game
        self.spaces = game.spaces
        self.level = game.level
        cards = sorted({c for t in towers for c in t} | set(deck), key=lambda c: (c.rank, c.index))
        self.cards: tuple[Card, ...] = tuple(cards)
        index = {c: i for i, c in enumerate(cards)}
        n = len(cards)
        self.n = n
        self.rank: tuple[int, ...] = tuple(int(c.rank or 0) for c in cards)
        suits = [frozenset(c.suits) for c in cards]
        # onto[i]: bit set of the cards card i may be placed on.
        self.onto: tuple[int, ...] = tuple(
            sum(
                1 << j
                for j in range(n)
                if self.rank[j] > self.rank[i] and not suits[i].isdisjoint(suits[j])
            )
            for i in range(n)
        )
        self.start_towers: tuple[int, ...] = tuple(sum(1 << index[c] for c in t) for t in towers)
        self.deck: tuple[int, ...] = tuple(index[c] for c in deck)
        self.deck_bits: tuple[int, ...] = tuple(1 << i for i in self.deck)
        self.all_bits = (1 << n) - 1
        variant = game.variant
        self.variant = variant
        self.suit_bits = 0
        if isinstance(variant, Ivory | Quota):
            self.suit_bits = sum(1 << i for i, c in enumerate(cards) if c.bears(variant.suit))
        self.quota = variant.quota if isinstance(variant, Quota) else 0
        self.full = self.level - 1

    # -- goals
    def won(self, towers: Sequence[int], pos: int) -> bool:
        variant = self.variant
        if isinstance(variant, Quota):
            pure = self.suit_bits
            quota = self.quota
            return any(t and not t & ~pure and t.bit_count() >= quota for t in towers)
        if pos < len(self.deck):
            return False
        full = [t for t in towers if t]
        if len(full) != 3 or any(t.bit_count() != self.full for t in full):
            return False
        if isinstance(variant, Ivory):
            pure = self.suit_bits
            return any(not t & ~pure for t in full)
        return True


def _top(t: int) -> int:
    """The top card of a non-empty tower (its lowest-ranked card)."""
    return (t & -t).bit_length() - 1


# ---- the exhaustive search -------------------------------------------------------------------


class _Search:
    """Depth-first search with a transposition set; ``order`` ranks the candidate moves."""

    def __init__(
        self,
        problem: _Problem,
        budget: _Budget,
        order: Callable[[list[int], int, list[_Move]], list[_Move]] | None = None,
        prune: Callable[[list[int], int], bool] | None = None,
        streak: int | None = None,
        endgame: Callable[[list[int]], list[_Move] | None] | None = None,
    ) -> None:
        self.streak = streak
        self.endgame = endgame
        self.p = problem
        self.budget = budget
        self.order = order
        self.prune = prune

    def moves(self, towers: list[int], pos: int) -> list[_Move]:
        p = self.p
        onto = p.onto
        out: list[_Move] = []
        empty = -1
        for j, t in enumerate(towers):
            if not t:
                empty = j
                break
        if pos < len(p.deck):
            card = p.deck[pos]
            mask = onto[card]
            for j, t in enumerate(towers):
                if t and mask & t & -t:
                    out.append((-1, j))
            if empty >= 0:
                out.append((-1, empty))
        for i, t in enumerate(towers):
            if not t:
                continue
            bit = t & -t
            mask = onto[bit.bit_length() - 1]
            for j, u in enumerate(towers):
                if u and j != i and mask & u & -u:
                    out.append((i, j))
            if empty >= 0 and t != bit:
                out.append((i, empty))
        return out

    def run(self, towers: list[int], pos: int) -> list[_Move] | None:
        """A winning line from this position, or None once every position was visited."""
        p = self.p
        deck_bits = p.deck_bits
        budget = self.budget
        order = self.order
        prune = self.prune
        won = p.won
        if won(towers, pos):
            return []
        visited: set[tuple[int, ...]] = {tuple(sorted(towers))}
        path: list[_Move] = []
        limit = self.streak
        endgame = self.endgame
        ndeck = len(p.deck)
        streaks = [0]
        first = self.moves(towers, pos)
        stack: list[list[_Move]] = [order(towers, pos, first) if order else first]
        stack[0].reverse()
        while stack:
            frame = stack[-1]
            if not frame:
                stack.pop()
                streaks.pop()
                if path:
                    s, d = path.pop()
                    t = towers[d]
                    if s < 0:
                        pos -= 1
                        towers[d] = t ^ deck_bits[pos]
                    else:
                        bit = t & -t
                        towers[d] = t ^ bit
                        towers[s] |= bit
                continue
            s, d = frame.pop()
            if s < 0:
                towers[d] |= deck_bits[pos]
                pos += 1
            else:
                t = towers[s]
                bit = t & -t
                towers[s] = t ^ bit
                towers[d] |= bit
            key = tuple(sorted(towers))
            if key in visited or (prune is not None and prune(towers, pos)):
                if s < 0:
                    pos -= 1
                    towers[d] ^= deck_bits[pos]
                else:
                    t = towers[d]
                    bit = t & -t
                    towers[d] = t ^ bit
                    towers[s] |= bit
                continue
            visited.add(key)
            budget.spend()
            path.append((s, d))
            if won(towers, pos):
                return path
            if endgame is not None and pos == ndeck:
                rest = endgame(towers)
                if rest is not None:
                    return path + rest
                path.pop()
                if s < 0:
                    pos -= 1
                    towers[d] ^= deck_bits[pos]
                else:
                    t = towers[d]
                    bit = t & -t
                    towers[d] = t ^ bit
                    towers[s] |= bit
                continue
            nxt = self.moves(towers, pos)
            run = 0 if s < 0 else streaks[-1] + 1
            if limit is not None and run >= limit and pos < ndeck:
                nxt = [m for m in nxt if m[0] < 0]
            if order is not None:
                nxt = order(towers, pos, nxt)
            nxt.reverse()
            stack.append(nxt)
            streaks.append(run)
        return None


class _Budget:
    def __init__(self, max_states: int | None, max_seconds: float | None) -> None:
        self.states = 0
        self.max_states = max_states
        self.deadline = None if max_seconds is None else time.perf_counter() + max_seconds
        self.limit = max_states if max_states is not None else 1 << 62
        self.local_limit = self.limit

    def spend(self) -> None:
        self.states += 1
        if self.states >= self.local_limit:
            if self.states >= self.limit:
                raise _OutOfBudget
            raise _LocalOut
        if (
            self.deadline is not None
            and not self.states & 1023
            and time.perf_counter() >= self.deadline
        ):
            raise _OutOfBudget


class _LocalOut(Exception):
    pass


# ---- steering towards one finished arrangement -----------------------------------------------


def _targets(p: _Problem) -> list[tuple[int, ...]]:
    """Every finished arrangement, as a parent table: parent[c] is the card c must sit on in its
    chain, -1 for the chains' bottom cards. Ivory keeps only arrangements with a pure chain."""
    by_rank: dict[int, list[int]] = {}
    for i, r in enumerate(p.rank):
        by_rank.setdefault(r, []).append(i)
    ranks = sorted(by_rank)
    if any(len(by_rank[r]) != 3 for r in ranks) or len(ranks) != p.full:
        return []
    options: list[list[tuple[tuple[int, int], ...]]] = []
    for lo, hi in itertools.pairwise(ranks):
        los, his = by_rank[lo], by_rank[hi]
        found = []
        for perm in itertools.permutations(his):
            if all(p.onto[a] >> b & 1 for a, b in zip(los, perm, strict=True)):
                found.append(tuple(zip(los, perm, strict=True)))
        if not found:
            return []
        options.append(found)
    out: list[tuple[int, ...]] = []
    for combo in itertools.product(*options):
        parent = [-1] * p.n
        for pairs in combo:
            for a, b in pairs:
                parent[a] = b
        if isinstance(p.variant, Ivory):
            pure = p.suit_bits
            bottoms = [c for c in by_rank[ranks[-1]]]
            ok = False
            for b in bottoms:
                chain = 1 << b
                for c in range(p.n):
                    x = c
                    while parent[x] >= 0:
                        x = parent[x]
                    if x == b:
                        chain |= 1 << c
                if not chain & ~pure:
                    ok = True
            if not ok:
                continue
        out.append(tuple(parent))
    return out


def _home_bits(t: int, parent: Sequence[int]) -> int:
    """The cards of tower ``t`` that sit, from its bottom up, on their intended parents."""
    home = 0
    below = -1
    x = t
    while x:
        c = x.bit_length() - 1  # the highest rank: the bottom of what is left
        if parent[c] != below:
            break
        home |= 1 << c
        below = c
        x ^= 1 << c
    return home


def _steer(
    p: _Problem, parent: Sequence[int]
) -> Callable[[list[int], int, list[_Move]], list[_Move]]:
    deck = p.deck

    def order(towers: list[int], pos: int, moves: list[_Move]) -> list[_Move]:
        homes = [_home_bits(t, parent) if t else 0 for t in towers]
        scored: list[tuple[int, _Move]] = []
        for s, d in moves:
            if s < 0:
                x = deck[pos]
            else:
                t = towers[s]
                x = (t & -t).bit_length() - 1
                if homes[s] >> x & 1:
                    continue  # never take a card away from its finished place
            u = towers[d]
            if u:
                y = (u & -u).bit_length() - 1
                score = (0 if homes[d] >> y & 1 else 20) if parent[x] == y else 40
            else:
                score = 0 if parent[x] < 0 else 50
            if s >= 0:
                t = towers[s] ^ (1 << x)
                if t:
                    z = (t & -t).bit_length() - 1
                    if parent[x] == z:
                        score += 30  # breaks a run
                    if homes[s] >> z & 1:
                        score -= 15  # exposes a finished chain
                score += 5
            scored.append((score, (s, d)))
        scored.sort()
        return [m for _, m in scored]

    return order


def _endgame(
    p: _Problem, towers: list[int], parent: Sequence[int], budget: _Budget, limit: int
) -> list[_Move] | None:
    """Greedy best-first search for the finished arrangement ``parent`` once the deck is empty;
    gives up (None) after ``limit`` positions. Not a proof of anything."""
    onto = p.onto
    spaces = len(towers)

    def score(ts: tuple[int, ...]) -> int:
        h = 0
        for t in ts:
            if not t:
                continue
            home = _home_bits(t, parent)
            h += 4 * (t ^ home).bit_count()
            x = t ^ home
            while x:
                b = x & -x
                x ^= b
                c = b.bit_length() - 1
                if not x or parent[c] != (x & -x).bit_length() - 1:
                    h += 1
        return h

    pos = len(p.deck)
    start = tuple(towers)
    seen: dict[tuple[int, ...], tuple[tuple[int, ...] | None, _Move | None]] = {
        tuple(sorted(start)): (None, None)
    }
    heap: list[tuple[int, int, tuple[int, ...]]] = [(score(start), 0, start)]
    counter = 0
    while heap and counter < limit:
        _h, _n, cur = heapq.heappop(heap)
        ts = list(cur)
        if p.won(ts, pos):
            moves: list[_Move] = []
            key: tuple[int, ...] | None = tuple(sorted(cur))
            while key is not None:
                prev, mv = seen[key]
                if mv is not None:
                    moves.append(mv)
                key = prev
            moves.reverse()
            return moves
        homes = [_home_bits(t, parent) if t else 0 for t in ts]
        empty = -1
        for j in range(spaces):
            if not ts[j]:
                empty = j
                break
        for i in range(spaces):
            t = ts[i]
            if not t or homes[i] == t:
                continue
            bit = t & -t
            mask = onto[bit.bit_length() - 1]
            for j in range(spaces):
                u = ts[j]
                if j == i or (u and not mask & u & -u) or (not u and (j != empty or t == bit)):
                    continue
                nt = list(ts)
                nt[i] = t ^ bit
                nt[j] = u | bit
                tup = tuple(nt)
                key = tuple(sorted(tup))
                if key in seen:
                    continue
                seen[key] = (tuple(sorted(cur)), (i, j))
                counter += 1
                budget.spend()
                heapq.heappush(heap, (score(tup), counter, tup))
    return None


# ---- quota: steer towards a pure tower ------------------------------------------------------


def _quota_order(p: _Problem) -> Callable[[list[int], int, list[_Move]], list[_Move]]:
    """Orders every move (none is dropped, so the search stays exhaustive): suited cards onto
    the tallest pure tower first, then onto empty spaces; taking cards off pure towers last."""
    deck = p.deck
    pure = p.suit_bits

    def order(towers: list[int], pos: int, moves: list[_Move]) -> list[_Move]:
        scored: list[tuple[int, _Move]] = []
        for s, d in moves:
            if s < 0:
                x = deck[pos]
                score = 0
            else:
                t = towers[s]
                x = (t & -t).bit_length() - 1
                score = 5
                if not t & ~pure:
                    score += 60
            u = towers[d]
            suited = pure >> x & 1
            if u and not u & ~pure:
                score += -u.bit_count() if suited else 100
            elif not u:
                score += 10 if suited else 50
            else:
                score += 30 if suited else 20
            scored.append((score, (s, d)))
        scored.sort()
        return [m for _, m in scored]

    return order


# ---- the public entry point ------------------------------------------------------------------


def _first_win(p: _Problem, towers: Sequence[int], line: list[_Move]) -> list[_Move]:
    """``line`` cut at the first position that wins (the rules engine ends the check there)."""
    ts = list(towers)
    pos = 0
    if p.won(ts, pos):
        return []
    for k, (s, d) in enumerate(line):
        if s < 0:
            ts[d] |= p.deck_bits[pos]
            pos += 1
        else:
            bit = ts[s] & -ts[s]
            ts[s] ^= bit
            ts[d] |= bit
        if p.won(ts, pos):
            return line[: k + 1]
    raise AssertionError("the solver's line does not win")


def _steered(
    p: _Problem, budget: _Budget, towers: list[int], share_limit: int
) -> list[_Move] | None:
    """Phase 1: steered searches, one finished arrangement at a time, with growing budgets."""
    targets = _targets(p)
    share = 1000
    while targets and share <= share_limit:
        cut = False
        for parent in targets:
            budget.local_limit = min(budget.limit, budget.states + share)
            ending = max(200, share // 4)

            def endgame(
                ts: list[int], parent: Sequence[int] = parent, ending: int = ending
            ) -> list[_Move] | None:
                return _endgame(p, ts, parent, budget, ending)

            try:
                line = _Search(
                    p, budget, _steer(p, parent), endgame=endgame if _ENDGAME else None
                ).run(list(towers), 0)
            except _LocalOut:
                cut = True
                continue
            if line is not None:
                return line
        if not cut:
            break
        share *= 4
    return None


def solve(
    game: ThreeTowers,
    deal: Sequence[Card],
    *,
    max_states: int | None = 2_000_000,
    max_seconds: float | None = None,
    start: ThreeTowersState | None = None,
) -> Solution:
    """Solve ``deal`` (top card first) with perfect information.

    With ``start`` the search begins from that live position (its towers and remaining deck;
    ``deal`` is then ignored). The winning line in the answer starts from the start position.
    The game's ``move_limit`` is ignored: the line may be longer.
    """
    began = time.perf_counter()
    if start is not None:
        towers0: tuple[tuple[Card, ...], ...] = start.towers
        deck0: tuple[Card, ...] = start.remaining_deck
        if start.outcome is not None:
            result: Result = "win" if start.outcome.success else "loss"
            return Solution(result, (), 0, time.perf_counter() - began)
    else:
        towers0 = ((),) * game.spaces
        deck0 = tuple(Card.parse(c) for c in deal)
    p = _Problem(game, towers0, deck0)
    budget = _Budget(max_states, max_seconds)
    towers = list(p.start_towers)
    quota = isinstance(game.variant, Quota)
    order = _quota_order(p) if quota else None
    line: list[_Move] | None = None
    try:
        # 1. a short exhaustive search decides small games outright
        budget.local_limit = min(budget.limit, 20_000)
        try:
            line = _Search(p, budget, order).run(list(towers), 0)
            if line is None:
                return Solution("loss", (), budget.states, time.perf_counter() - began)
        except _LocalOut:
            pass
        # 2. steered searches towards each finished arrangement
        if line is None and not quota:
            line = _steered(p, budget, towers, max(1000, (budget.limit - budget.states) // 200))
        # 3. the exhaustive search with what is left: the only source of "loss"
        if line is None:
            budget.local_limit = budget.limit
            line = _Search(p, budget, order).run(list(towers), 0)
    except (_OutOfBudget, _LocalOut):
        return Solution("unknown", (), budget.states, time.perf_counter() - began)
    seconds = time.perf_counter() - began
    if line is None:
        return Solution("loss", (), budget.states, seconds)
    line = _first_win(p, towers, line)
    moves = tuple(TowerMove(DECK if s < 0 else s + 1, d + 1) for s, d in line)
    return Solution("win", moves, budget.states, seconds)
