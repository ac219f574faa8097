"""An exact perfect-information solver for Three Towers (all variants).

The solver knows the order of the deck. :func:`solve` answers "win" with a winning line (a
certificate that the rules engine replays), "loss" only when it has exhausted every reachable
position (towers are interchangeable, so positions are compared with their towers sorted), or
"unknown" when its budget of states or seconds ran out.

How it works (see also ``/work/shared/reference/three-towers-solving.md``):

- Cards are small ints ordered by rank, so a tower (whose order follows from its ranks) is a bit
  set: its top card is the lowest set bit. A position is the tuple of tower bit sets; its
  canonical key is that tuple sorted (the deck position follows from the cards on the table). The
  planner uses an equivalent int key (:func:`_below_key`: per card, the card it sits on), which a
  move updates with one xor.
- Phase 1, a short *exhaustive search* (below) decides small games outright.
- Phase 2, the *planner* (standard and Ivory goals): between adjacent ranks the "shares a suit"
  relation has few perfect matchings (exactly two for the full deck), so the finished
  arrangements are few (128 at level 9). For one arrangement at a time, a greedy best-first
  search over (towers, deck position) scores a position by the cards still in the deck, the cards
  not yet home (on their intended parent, in a chain built from its bottom), how many separate
  runs they form and which sit above their own ancestors, with a bonus per empty space. It moves
  a tower's top run as a unit when the empty spaces allow (Hanoi-style; expanded into single
  moves for the certificate), never moves home cards, and breaks ties towards the newest
  position. Pass i searches the first 2**i arrangements with 3**i times the first share each
  (the first arrangement ``_LEAD`` times that; from pass 2 on also with the weights
  ``_SECOND_WEIGHTS``, right after its lead search). Every search (a goal with a weight setting)
  is kept (its open heap and seen table, at most ``_MAX_STORED`` positions in all) and resumed in
  the next pass, so no state is generated twice.
  Quota checks use the same planner towards a pure chain of ``quota`` cards of the suit (every
  set of that many suited cards is a goal; sets whose cards come out of the deck highest first
  are tried first), scoring the chain's cards not home and the cards above them, and keeping an
  empty space for the chain's bottom card. Every pass also steers towards the arrangements of
  the whole deck whose pure chain holds all the suited cards of the deck and whose other chains
  hold the other cards, one per rank (:func:`_quota_arrangements`; on a full deck, the finished
  arrangements with a pure chain), as in the standard game; the quota is met on the way, checked
  at every position; the quota goals then use only their first weight setting. The planner
  only finds wins.
- Phase 3, *exhaustive search*: a depth-first search over canonical positions with a
  transposition set and every legal move (modulo symmetries: all empty spaces are alike, a lone
  card never moves to an empty space). Only this phase (and phase 1) answers "loss", after every
  reachable position was visited.
- The planner's hot loop also exists in C (``_planner.c`` beside this module, built on install when
  a compiler is there): the same search, position for position, about ten times faster;
  :class:`_Planner` uses it unless ``SKILLCHECK_PURE_PYTHON`` is set (:func:`accelerated`).
- Every line is replayed on bit sets against the placement rules before it is returned.
- The cyclic garbage collector is off while :func:`solve` runs (restored afterwards): the
  searches allocate millions of tuples and no cycles.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from skillcheck.cards.decktet import Card
from skillcheck.engine import State
from skillcheck.games.three_towers.rules import (
    DECK,
    Ivory,
    Quota,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
)
from skillcheck.registry import register_analysis
from skillcheck.solving import Result, Solution

if TYPE_CHECKING:
    from skillcheck.games.three_towers._planner import Planner as _CompiledPlanner

__all__ = ["Result", "Solution", "ThreeTowersSolver", "accelerated", "solve"]

_accelerator: ModuleType | None
try:  # the planner's hot loop compiled from _planner.c (built on install)
    from skillcheck.games.three_towers import _planner as _accelerator
except ImportError:  # no C compiler at install time: the same search in Python
    _accelerator = None
if os.environ.get("SKILLCHECK_PURE_PYTHON"):
    _accelerator = None


def accelerated() -> bool:
    """Whether the planner runs compiled (``_planner``, built from C on install) or
    in Python (set ``SKILLCHECK_PURE_PYTHON=1`` to force it). Both search the same positions in
    the same order; the compiled one is about ten times faster."""
    return _accelerator is not None


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


#: In a position key, the code of a card that sits on an empty space (see :func:`_below_key`).
_BOTTOM = 31


def _below_key(towers: Sequence[int]) -> int:
    """A position's key, the same for any order of its towers: five bits per card, 0 for a card
    not on the table, 1 + the index of the card it sits on, or ``_BOTTOM`` on an empty space.
    A move changes one card's field, so a search updates the key with one xor."""
    key = 0
    for t in towers:
        while t:
            low = t & -t
            t ^= low
            below = (t & -t).bit_length() if t else _BOTTOM
            key |= below << 5 * (low.bit_length() - 1)
    return key


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


#: The clock of ``max_seconds``. ``benchmarks/solver_bench.py --clock cpu`` sets it to
#: :func:`time.process_time` so that a budget means seconds of one core on a shared machine.
_clock: Callable[[], float] = time.perf_counter


class _Budget:
    def __init__(self, max_states: int | None, max_seconds: float | None) -> None:
        self.states = 0
        self.max_states = max_states
        self.deadline = None if max_seconds is None else _clock() + max_seconds
        self.limit = max_states if max_states is not None else 1 << 62
        self.local_limit = self.limit

    def stop(self) -> int:
        """The next state count at which :meth:`check` has something to check."""
        stop = self.local_limit
        if self.deadline is not None:
            stop = min(stop, (self.states | 1023) + 1)
        return stop

    def tick(self, states: int) -> int:
        """A hot loop counted up to ``states``: check the budget (raises when it is spent) and
        return the next count at which to call again."""
        self.states = states
        self.check()
        return self.stop()

    def check(self) -> None:
        """What :meth:`spend` checks once ``states`` was counted up (by a hot loop)."""
        if self.states >= self.local_limit:
            if self.states >= self.limit:
                raise _OutOfBudget
            raise _LocalOut
        if self.deadline is not None and not self.states & 1023 and _clock() >= self.deadline:
            raise _OutOfBudget

    def spend(self) -> None:
        self.states += 1
        if self.states >= self.local_limit:
            if self.states >= self.limit:
                raise _OutOfBudget
            raise _LocalOut
        if self.deadline is not None and not self.states & 1023 and _clock() >= self.deadline:
            raise _OutOfBudget


class _LocalOut(Exception):
    pass


# ---- steering towards one finished arrangement -----------------------------------------------


def _chainings(p: _Problem, by_rank: dict[int, list[int]], ranks: list[int]) -> Iterator[list[int]]:
    """Every way to chain the cards of consecutive ``ranks`` (the same number of cards each):
    each card of a rank sits on a different card of the next rank that shares a suit with it.
    As parent tables (-1 for the cards on the highest rank and any card not chained), made one
    at a time; none when some rank cannot be matched to the next."""
    options: list[list[tuple[tuple[int, int], ...]]] = []
    for lo, hi in itertools.pairwise(ranks):
        los, his = by_rank[lo], by_rank[hi]
        found = [
            tuple(zip(los, perm, strict=True))
            for perm in itertools.permutations(his)
            if all(p.onto[a] >> b & 1 for a, b in zip(los, perm, strict=True))
        ]
        if not found:
            return
        options.append(found)
    for combo in itertools.product(*options):
        parent = [-1] * p.n
        for pairs in combo:
            for a, b in pairs:
                parent[a] = b
        yield parent


def _targets(p: _Problem, pure_only: bool = False) -> list[tuple[int, ...]]:
    """Every finished arrangement, as a parent table: parent[c] is the card c must sit on in its
    chain, -1 for the chains' bottom cards. Ivory (or ``pure_only``) keeps only arrangements with
    a pure chain."""
    by_rank: dict[int, list[int]] = {}
    for i, r in enumerate(p.rank):
        by_rank.setdefault(r, []).append(i)
    ranks = sorted(by_rank)
    if any(len(by_rank[r]) != 3 for r in ranks) or len(ranks) != p.full:
        return []
    out: list[tuple[int, ...]] = []
    for parent in _chainings(p, by_rank, ranks):
        if pure_only or isinstance(p.variant, Ivory):
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


def _quota_arrangements(p: _Problem) -> list[tuple[int, ...]]:
    """Quota checks: arrangements of every card of the deck into one pure chain (all its suited
    cards, highest at the bottom) and chains of the other cards (each rank's cards without the
    suit, matched with the next rank's by a shared suit, all 2**k ways), as parent tables.

    On a full deck these are :func:`_targets` with ``pure_only`` (in that order, which is kept);
    on a deck that lacks some suited cards (skill below ``level - 1``) the pure chain skips their
    ranks while the other chains keep one card per rank. Empty when the cards without the suit
    are not the same number for every rank (never the case for a quota deck)."""
    full = _targets(p, pure_only=True)
    if full:
        return full
    pure = p.suit_bits
    suited = sorted((c for c in range(p.n) if pure >> c & 1), key=lambda c: p.rank[c])
    by_rank: dict[int, list[int]] = {}
    for c in range(p.n):
        if not pure >> c & 1:
            by_rank.setdefault(p.rank[c], []).append(c)
    ranks = sorted(by_rank)
    if not suited or not ranks or len({len(v) for v in by_rank.values()}) != 1:
        return []
    if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
        return []
    out: list[tuple[int, ...]] = []
    for parent in _chainings(p, by_rank, ranks):
        for lo, hi in itertools.pairwise(suited):
            parent[lo] = hi
        out.append(tuple(parent))
    return out


# ---- the planner: best-first search towards one finished arrangement --------------------------

# A macro move: (source, count, target) moves the top ``count`` cards of tower ``source`` onto
# tower ``target`` as a unit; (-1, deck index, target) places the deck's card.
_Macro = tuple[int, int, int]

# Heuristic weights (measured on level-9 deals; see benchmarks/README.md).
_W_JUNK = 2  # a card not yet home
_W_BREAK = 3  # ... that does not sit on its intended parent (a separate run to move)
_W_BURIED = 3  # ... that sits above one of its own ancestors (it must move twice)
_W_QUOTA = 6  # quota: a card of the pure tower not yet home
_W_BLOCK = 4  # quota: a card outside the pure tower above a card the pure tower still needs
_W_LINKED = 6  # quota: ... one on its chain parent (a discount measured worse)
_W_BLOCK_NEED = 2  # quota: a chain card above a chain card not home
_W_ROOM = 20  # quota: per chain bottom still in the deck beyond the empty spaces
#: The tower-cost weights in the order the compiled planner takes them.
_TOWER_WEIGHTS = (_W_JUNK, _W_BREAK, _W_BURIED, _W_QUOTA, _W_BLOCK, _W_LINKED, _W_BLOCK_NEED)
#: (weight of a card still in the deck, bonus for an empty space) of the planner's passes, in
#: turn. Standard: (4, 3) measured better than (4, 0), (5, 4), (3, 3) and mixes of them. Quota:
#: the two settings solve different deals.
_WEIGHTS = ((4, 3),)
_QUOTA_WEIGHTS = ((0, 3), (0, 0), (2, 3))
#: The planner's share of states per goal in its first pass, and the largest share.
_FIRST_SHARE = 30_000
_QUOTA_FIRST_SHARE = 4_000
_MAX_SHARE = 1_000_000  # bounds the memory of one search (its seen table)
#: Bounds the positions all kept (resumable) planner searches hold together.
_MAX_STORED = 1_500_000
#: Standard and Ivory: from pass to pass, each goal's share grows this many times, and the
#: number of goals searched this many times.
_SHARE_GROWTH = 3
_GOAL_GROWTH = 2
#: Standard and Ivory: the first goal's share is this many times the others' (measured: the
#: first arrangement in enumeration order wins most level-9 deals; see benchmarks/README.md).
_LEAD = 3
#: Standard and Ivory: from pass ``_SECOND_FROM`` on (when the lead search has used 270,000 of
#: its 810,000 positions at level 9), the first goal is also searched with these weights, with
#: the other goals' share each. Measured on the 51 level-9 deals (of 200) that need more than the
#: first pass: within 400,000 positions (4, 6) wins 34 of them, (3, 3) 29, the lead (4, 3) 33,
#: not the same ones (seed 199: (4, 6) 108k; seed 75: (3, 3) 163k, (4, 3) 987k). Placed after
#: the lead search, they change nothing for a deal decided within 900,000 positions.
_SECOND_WEIGHTS = ((4, 6), (3, 3))
_SECOND_FROM = 2
#: Games of at most this many cards (level 6) get a longer first exhaustive search.
_SMALL_GAME = 15
#: The first exhaustive search's share in larger games (it rarely decides them).
_LARGE_QUICK = 500


#: The planner's open heap packs (value, -counter) in one int: the counter in the low bits.
_COUNT_BITS = 40
_COUNT_MASK = (1 << _COUNT_BITS) - 1
#: Added to every value in the heap (values go a little below zero: empty-space bonuses).
_VALUE_OFFSET = 1 << 12
_POPPED: tuple[tuple[int, ...], int, int] = ((), 0, 0)

#: :meth:`_Target.plan`'s answer: (cost, top card's key code, top card, runs).
_TowerPlan = tuple[int, int, int, tuple[tuple[int, int, int, int, int, int, int], ...]]


class _Target:
    """One goal for the planner, as a parent table: ``parent[c]`` is the card ``c`` must sit on
    in its chain (-1 for a chain's bottom card, and for cards in no chain). ``tower(t)`` gives a
    tower's home cards (its bottom run that matches a chain from the chain's bottom) and its cost
    (an estimate of the work left on it), memoised."""

    def __init__(self, p: _Problem, parent: Sequence[int], members: int | None = None) -> None:
        n = p.n
        self.parent = tuple(parent)
        self.quota = members is not None
        anc = [0] * n
        chain = [0] * n
        #: the cards that must end up home (all of them, or a quota's pure chain)
        self.needed = p.all_bits if members is None else members
        for c in range(n):
            x = parent[c]
            m = 0
            root = c
            while x >= 0:
                m |= 1 << x
                root = x
                x = parent[x]
            anc[c] = m
            if self.needed >> c & 1:
                chain[root] |= 1 << c
        self.anc = anc
        self.chain = chain
        self.memo: dict[int, tuple[int, int]] = {}
        self.onto = p.onto
        #: the planner's view of a tower, memoised: see :meth:`plan`
        self.plans: dict[int, _TowerPlan] = {}

    def plan(self, t: int) -> _TowerPlan:
        """What the planner needs of a non-empty tower ``t``: (its cost, the key code of its top
        card, its top card as a bit, and its movable runs). A run is (how many cards, the run,
        the tower without it, the cards the run's bottom card may go on, that card's shift in
        a position key, the key code of the card it leaves, the cost of the tower without it);
        runs are the top cards that are not home, shortest first."""
        home, cost = self.tower(t)
        top = t & -t
        onto = self.onto
        runs: list[tuple[int, int, int, int, int, int, int]] = []
        x = t ^ home
        run = 0
        k = 0
        while x:
            low = x & -x
            x ^= low
            k += 1
            run |= low
            rest = t ^ run
            c = low.bit_length() - 1
            if rest:
                runs.append(
                    (k, run, rest, onto[c], 5 * c, (rest & -rest).bit_length(), self.tower(rest)[1])
                )
            else:
                runs.append((k, run, 0, onto[c], 5 * c, _BOTTOM, 0))
        r = (cost, top.bit_length(), top, tuple(runs))
        self.plans[t] = r
        return r

    def tower(self, t: int) -> tuple[int, int]:
        """(home cards, cost) of a non-empty tower ``t``."""
        r = self.memo.get(t)
        if r is not None:
            return r
        cm = self.chain[t.bit_length() - 1]
        home = 0
        if cm:
            d = t ^ cm
            if d:
                hb = d.bit_length()
                home = t >> hb << hb
            else:
                home = t
        junk = t ^ home
        cost = 0
        if self.quota:
            # the pure chain's cards not home, each weighted by the cards above it
            needed = self.needed
            parent = self.parent
            x = junk & needed
            while x:
                low = x & -x
                x ^= low
                below = t & ~((low << 1) - 1)
                above = t & (low - 1)
                c = low.bit_length() - 1
                if below and parent[c] == (below & -below).bit_length() - 1:
                    cost += _W_LINKED  # on its chain parent: moves with a run
                else:
                    cost += _W_QUOTA
                cost += _W_BLOCK * (above & ~needed).bit_count()
                cost += _W_BLOCK_NEED * (above & needed).bit_count()
            if home:
                cost += _W_BLOCK * junk.bit_count()
        else:
            parent = self.parent
            anc = self.anc
            x = junk
            while x:
                low = x & -x
                x ^= low
                c = low.bit_length() - 1
                below = t & ~((low << 1) - 1)
                cost += _W_JUNK
                if not below or parent[c] != (below & -below).bit_length() - 1:
                    cost += _W_BREAK
                if anc[c] & junk & below:
                    cost += _W_BURIED
        r = (home, cost)
        self.memo[t] = r
        return r


def _carry(ts: list[int], src: int, k: int, dst: int, free: list[int], out: list[_Move]) -> None:
    """Move the top ``k`` cards of ``src`` onto ``dst`` one card at a time, through the empty
    spaces ``free`` (Hanoi-style: half to a free space, the rest to ``dst``, the half back on top);
    ``k`` must be at most ``2 ** len(free)``. Applies the moves to ``ts`` and appends them."""
    if k == 1:
        t = ts[src]
        bit = t & -t
        ts[src] = t ^ bit
        ts[dst] |= bit
        out.append((src, dst))
        return
    spare, rest = free[0], free[1:]
    half = 1 << len(rest)
    top = min(k - 1, half)
    if k - top > half:
        raise AssertionError("a run too long for the empty spaces")
    _carry(ts, src, top, spare, rest, out)
    _carry(ts, src, k - top, dst, rest, out)
    _carry(ts, spare, top, dst, rest, out)


def _expand(p: _Problem, towers: Sequence[int], macros: Sequence[_Macro]) -> list[_Move]:
    """The single legal moves of a line of macro moves."""
    ts = list(towers)
    out: list[_Move] = []
    for s, k, d in macros:
        if s < 0:
            ts[d] |= p.deck_bits[k]
            out.append((-1, d))
        else:
            free = [j for j, t in enumerate(ts) if not t and j != d]
            _carry(ts, s, k, d, free, out)
    return out


class _Planner:
    """Greedy best-first search over (towers, deck position) towards one goal ``tg``, with macro
    moves (a tower's top run moves as a unit when the empty spaces allow it), home cards never
    moved, ties broken towards the newest position. :meth:`run` can be called again with a larger
    limit: the search resumes where it stopped (its open heap and seen table are kept), so no
    state is generated twice. Finding nothing proves nothing: the search is restricted."""

    def __init__(
        self,
        p: _Problem,
        tg: _Target,
        towers: Sequence[int],
        weights: tuple[int, int],
        *,
        compiled: bool | None = None,
    ) -> None:
        """``compiled``: run the search in C (``_planner``) or in Python; by default
        in C when it was built and the game fits it (at most 24 cards and 8 towers)."""
        self.p = p
        self.tg = tg
        self.weights = weights
        nd = len(p.deck)
        deck = p.deck
        needed = tg.needed
        # the pure chain's cards still in the deck
        deck_need = [0] * (nd + 1)
        if tg.quota:
            for i in range(nd - 1, -1, -1):
                deck_need[i] = deck_need[i + 1] + (_W_QUOTA * 2 if needed >> deck[i] & 1 else 0)
        self.deck_need = deck_need
        # chain bottoms still in the deck: each needs an empty space when it comes
        roots = [0] * (nd + 1)
        for i in range(nd - 1, -1, -1):
            roots[i] = roots[i + 1] + (1 if tg.chain[deck[i]] else 0)
        self.roots = roots
        # base[pos][e]: a position's value before its towers' costs, with ``e`` empty spaces
        w_deck, w_empty = weights
        w_room = _W_ROOM if tg.quota else 0
        spaces = len(towers)
        self.base = [
            [
                w_deck * (nd - i) + deck_need[i] - w_empty * e + w_room * max(0, roots[i] - e)
                for e in range(spaces + 1)
            ]
            for i in range(nd + 1)
        ]
        self.start = start = tuple(towers)
        key = _below_key(start)
        #: position key -> the key of the position it was reached from and the macro move, packed
        #: in one int (see :meth:`finish`); -1 for the start
        self.seen: dict[int, int] = {key: -1}
        #: the open positions, each as one int: its value (offset by ``_VALUE_OFFSET``) above
        #: ``_COUNT_BITS`` bits holding ``_COUNT_MASK - counter``, so the smallest int is the
        #: lowest value and, among equal values, the newest position (as the pair (value,
        #: -counter) was); ints compare faster than tuples
        self.heap: list[int] = [_VALUE_OFFSET << _COUNT_BITS | _COUNT_MASK]
        #: nodes[counter]: (towers, deck position, key) of a generated position (``_POPPED``
        #: once expanded, to free its towers)
        self.nodes: list[tuple[tuple[int, ...], int, int]] = [(start, 0, key)]
        #: base[pos][e] packed: (its value + offset) << _COUNT_BITS | _COUNT_MASK (tower costs
        #: are never negative, so no packed value goes below zero)
        if min(min(row) for row in self.base) < -_VALUE_OFFSET:
            raise ValueError("heuristic weights out of range for the packed heap")
        self.packed = [
            [(b + _VALUE_OFFSET) << _COUNT_BITS | _COUNT_MASK for b in row] for row in self.base
        ]
        self._counter = 0
        self.core: _CompiledPlanner | None = None
        fits = _accelerator is not None and (
            p.n <= _accelerator.MAX_CARDS and spaces <= _accelerator.MAX_SPACES
        )
        if compiled and not fits:
            raise ValueError("the compiled planner is not built, or the game does not fit it")
        if fits and compiled is not False:
            assert _accelerator is not None
            self.core = _accelerator.Planner(
                deck=p.deck,
                onto=p.onto,
                parent=tg.parent,
                anc=tg.anc,
                chain=tg.chain,
                needed=tg.needed,
                pure_target=tg.quota,
                suit_bits=p.suit_bits,
                quota=p.quota,
                weights=_TOWER_WEIGHTS,
                packed_base=self.packed,
                start=start,
                start_key=key,
                first=self.heap[0],
                won=p.won,
            )
            # the Python search's tables are not used
            self.seen.clear()
            self.heap.clear()
            self.nodes.clear()

    @property
    def stored(self) -> int:
        """How many positions the search holds."""
        return self.core.stored if self.core is not None else len(self.seen)

    @property
    def exhausted(self) -> bool:
        """Whether the (restricted) search has visited everything it can reach."""
        return self.core.exhausted if self.core is not None else not self.heap

    @property
    def counter(self) -> int:
        """How many positions the search has generated (over every call of :meth:`run`)."""
        return self.core.counter if self.core is not None else self._counter

    def finish(self, key: int) -> list[_Move]:
        seen = self.seen
        macros: list[_Macro] = []
        entry = seen[key]
        while entry >= 0:
            # the low 13 bits: a deck move 1 | pos << 1 | target << 7, a run move
            # count << 1 | source << 7 | target << 10; above them, the previous key
            code = entry & 8191
            if code & 1:
                macros.append((-1, code >> 1 & 63, code >> 7 & 7))
            else:
                macros.append((code >> 7 & 7, code >> 1 & 63, code >> 10))
            entry = seen[entry >> 13]
        macros.reverse()
        return _expand(self.p, self.start, macros)

    def run(self, budget: _Budget, limit: int) -> tuple[list[_Move] | None, bool]:
        """Search on until ``limit`` positions in all (over every call) were generated. Returns
        (a winning line, whether ``limit`` cut the search short).

        The hot loop: a child's cost is the parent's minus the changed towers' old costs plus
        their new ones (each tower's cost is memoised), its value comes from a table indexed by
        deck position and empty spaces, and the budget is only consulted at the state counts
        where it has something to check (:meth:`_Budget.stop`)."""
        if self.core is not None:
            macros, short, budget.states = self.core.run(
                limit, budget.states, budget.stop(), budget.tick
            )
            return (None if macros is None else _expand(self.p, self.start, macros)), short
        p = self.p
        tg = self.tg
        onto = p.onto
        spaces = len(self.start)
        ev = tg.plan
        memo = tg.plans
        deck = p.deck
        nd = len(deck)
        quota = tg.quota
        is_quota = isinstance(p.variant, Quota)
        notpure = ~p.suit_bits
        qn = p.quota
        won = p.won
        base = self.packed
        nodes = self.nodes
        push_node = nodes.append
        popped = _POPPED
        count_mask = _COUNT_MASK
        cb = _COUNT_BITS
        seen = self.seen
        heap = self.heap
        heappop = heapq.heappop
        heappush = heapq.heappush
        counter = self._counter
        states = budget.states
        stop = budget.stop()
        rng = range(spaces)
        pc = [0] * spaces
        tc = [0] * spaces
        info: list[_TowerPlan | None] = [None] * spaces
        slot = [0] * (p.n + 1)  # slot[key code of a top card]: its tower
        try:
            while heap:
                if counter >= limit:
                    return None, True
                ix = count_mask - (heappop(heap) & count_mask)
                cur, pos, ckey = nodes[ix]
                nodes[ix] = popped
                e = 0
                fe = -1
                total = 0
                tops = 0
                for j in rng:
                    t = cur[j]
                    if t:
                        info[j] = r = memo.get(t) or ev(t)
                        pc[j] = c = r[0]
                        total += c
                        tc[j] = c = r[1]
                        slot[c] = j
                        tops |= r[2]
                    else:
                        info[j] = None
                        pc[j] = 0
                        tc[j] = _BOTTOM
                        e += 1
                        if fe < 0:
                            fe = j
                if pos < nd:
                    x = deck[pos]
                    bx = 1 << x
                    sx = 5 * x
                    npos = pos + 1
                    bn = base[npos]
                    dcode = ckey << 13 | 1 | pos << 1
                    cand = onto[x] & tops
                    if cand & (cand - 1):
                        js = []
                        while cand:
                            low = cand & -cand
                            cand ^= low
                            js.append(slot[low.bit_length()])
                        if fe >= 0:
                            js.append(fe)
                        js.sort()
                    elif cand:
                        j = slot[cand.bit_length()]
                        js = [j] if fe < 0 else [j, fe] if j < fe else [fe, j]
                    else:
                        js = [fe] if fe >= 0 else []
                    for j in js:
                        u = cur[j]
                        key = ckey | tc[j] << sx
                        if key in seen:
                            continue
                        seen[key] = dcode | j << 7
                        nt = list(cur)
                        nt[j] = v = u | bx
                        tup = tuple(nt)
                        counter += 1
                        push_node((tup, npos, key))
                        states += 1
                        if states >= stop:
                            stop = budget.tick(states)
                        if is_quota and not v & notpure and v.bit_count() >= qn:
                            return self.finish(key), False
                        cost = total - pc[j] + (memo.get(v) or ev(v))[0]
                        if not cost and npos == nd and not quota and won(tup, npos):
                            return self.finish(key), False
                        heappush(heap, bn[e if u else e - 1] + (cost << cb) - counter)
                bn = base[pos]
                lim = 1 << e
                lim_empty = lim >> 1 if fe >= 0 else 0
                for i in rng:
                    ri = info[i]
                    if ri is None:
                        continue
                    ci = total - pc[i]
                    icode = ckey << 13 | i << 7
                    for k, run, rest, mask, sc, old, rest_cost in ri[3]:
                        if k > lim:
                            break
                        cand = mask & tops
                        if cand & (cand - 1):
                            js = []
                            while cand:
                                low = cand & -cand
                                cand ^= low
                                js.append(slot[low.bit_length()])
                            if rest and k <= lim_empty:
                                js.append(fe)
                            js.sort()
                        elif cand:
                            j = slot[cand.bit_length()]
                            if rest and k <= lim_empty:
                                js = [j, fe] if j < fe else [fe, j]
                            else:
                                js = [j]
                        elif rest and k <= lim_empty:
                            js = [fe]
                        else:
                            continue
                        for j in js:
                            u = cur[j]
                            key = ckey ^ (old ^ tc[j]) << sc
                            if key in seen:
                                continue
                            seen[key] = icode | k << 1 | j << 10
                            nt = list(cur)
                            nt[i] = rest
                            nt[j] = v = u | run
                            tup = tuple(nt)
                            counter += 1
                            push_node((tup, pos, key))
                            states += 1
                            if states >= stop:
                                stop = budget.tick(states)
                            if is_quota and (
                                (not v & notpure and v.bit_count() >= qn)
                                or (rest and not rest & notpure and rest.bit_count() >= qn)
                            ):
                                return self.finish(key), False
                            cost = ci - pc[j] + rest_cost + (memo.get(v) or ev(v))[0]
                            if not cost and pos == nd and not quota and won(tup, pos):
                                return self.finish(key), False
                            ne = e if u else e - 1
                            if not rest:
                                ne += 1
                            heappush(heap, bn[ne] + (cost << cb) - counter)
            return None, False
        finally:
            self._counter = counter
            budget.states = states


def _plan(
    p: _Problem,
    tg: _Target,
    towers: Sequence[int],
    budget: _Budget,
    limit: int,
    weights: tuple[int, int],
) -> tuple[list[_Move] | None, bool]:
    """One fresh :class:`_Planner` search of ``limit`` positions towards ``tg``."""
    return _Planner(p, tg, towers, weights).run(budget, limit)


def _quota_targets(p: _Problem) -> list[tuple[tuple[int, ...], int]]:
    """Quota goals: ``quota`` cards of the suit, stacked from the highest down (as parent tables),
    the sets whose cards come out of the deck in the most helpful order first."""
    suited = [c for c in range(p.n) if p.suit_bits >> c & 1]
    when = {c: -1 for c in range(p.n)}
    for i, c in enumerate(p.deck):
        when[c] = i
    out: list[tuple[int, tuple[int, ...], int]] = []
    for combo in itertools.combinations(sorted(suited, reverse=True), p.quota):
        parent = [-1] * p.n
        for hi, lo in itertools.pairwise(combo):
            parent[lo] = hi
        late = sum(1 for a, b in itertools.combinations(combo, 2) if when[b] < when[a])
        out.append((late, tuple(parent), sum(1 << c for c in combo)))
    out.sort(key=lambda r: r[0])
    return [(parent, members) for _, parent, members in out]


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
    """``line`` cut at the first position that wins (the rules engine ends the check there),
    after checking every move against the placement rules."""
    ts = list(towers)
    pos = 0
    if p.won(ts, pos):
        return []
    for k, (s, d) in enumerate(line):
        if s < 0:
            bit = p.deck_bits[pos]
            pos += 1
        else:
            bit = ts[s] & -ts[s]
            if not bit or s == d:
                raise AssertionError("the solver's line moves from an empty tower")
            ts[s] ^= bit
        u = ts[d]
        if u and not p.onto[bit.bit_length() - 1] & u & -u:
            raise AssertionError("the solver's line breaks a placement rule")
        ts[d] = u | bit
        if p.won(ts, pos):
            return line[: k + 1]
    raise AssertionError("the solver's line does not win")


#: A kept planner search: (0 for a goal, 1 for a quota check's finished arrangement; the goal's
#: index; the weights).
_SearchId = tuple[int, int, tuple[int, int]]


def _evict(searches: dict[_SearchId, _Planner], keep: _SearchId) -> None:
    """Drop kept searches (the smallest first, never ``keep``) while they hold more than
    ``_MAX_STORED`` positions in all; a dropped search starts afresh when its goal comes up."""
    total = sum(s.stored for s in searches.values())
    if total <= _MAX_STORED:
        return
    for size, index in sorted((s.stored, i) for i, s in searches.items() if i != keep):
        del searches[index]
        total -= size
        if total <= _MAX_STORED:
            return


def _planned(p: _Problem, budget: _Budget, towers: list[int]) -> list[_Move] | None:
    """Phase 2: the planner towards each goal in turn, with growing budgets and, pass by pass,
    other heuristic weights. None when the budget ran out or every search ended empty-handed."""
    goals: list[tuple[tuple[int, ...], int | None]]
    if isinstance(p.variant, Quota):
        goals = [(parent, members) for parent, members in _quota_targets(p)]
    else:
        goals = [(parent, None) for parent in _targets(p)]
    if not goals:
        return None
    built: dict[int, _Target] = {}
    # Quota: the arrangements whose pure chain holds all the deck's suited cards are goals too
    # (towards three towers as in the standard game; the quota is met on the way), tried after
    # the quota goals in every pass. Measured (2 s, seeds 0..49): skill 7 quota 7 decided 40 ->
    # 48, 6/6 42 -> 48, 7/6 47 -> 50; before, only a full deck (skill 8) had them.
    arrangements = _quota_arrangements(p) if isinstance(p.variant, Quota) else []
    arranged: dict[int, _Target] = {}
    remaining = budget.limit - budget.states
    # Pass i gives 2**i goals 3**i times the first pass's share each: measured, a goal's search
    # more often needs a larger share than another goal.
    quota = isinstance(p.variant, Quota)
    first = _QUOTA_FIRST_SHARE if quota else _FIRST_SHARE
    share = max(1000, min(first, remaining // 4))
    cap = max(share, min(_MAX_SHARE, remaining))
    count = 1
    # Quota: every pass tries each weight setting (they solve different deals); standard: pass
    # by pass, the next setting.
    portfolio = _QUOTA_WEIGHTS if quota else _WEIGHTS
    if arrangements:
        # measured: with the arrangements as goals, the quota goals' first setting alone
        # gives a lower median (skill 8 quota 8: 0.17 s against 0.31 s, one deal fewer decided)
        portfolio = portfolio[:1]
    # Every search (a goal with one weight setting) is kept between passes and resumed, not
    # restarted: a pass only adds states to it, so no state is generated twice.
    searches: dict[_SearchId, _Planner] = {}
    exhausted: set[_SearchId] = set()

    def step(
        sid: _SearchId, tg: _Target, weights: tuple[int, int], limit: int
    ) -> tuple[list[_Move] | None, bool]:
        if sid in exhausted:
            return None, False
        search = searches.get(sid)
        if search is None:
            search = searches[sid] = _Planner(p, tg, towers, weights)
        line, short = search.run(budget, limit)
        if not short:
            exhausted.add(sid)
            del searches[sid]
        _evict(searches, sid)
        return line, short

    for attempt in itertools.count():
        settings = portfolio if quota else (portfolio[attempt % len(portfolio)],)
        cut = False
        for weights in settings:
            for index, (parent, members) in enumerate(goals[:count]):
                tg = built.get(index)
                if tg is None:
                    tg = built[index] = _Target(p, parent, members)
                limit = min(cap, share * _LEAD) if not index and not quota else share
                line, short = step((0, index, weights), tg, weights, limit)
                if line is not None:
                    return line
                cut = cut or short
                if index or quota or attempt < _SECOND_FROM:
                    continue
                # from pass 2 on, the first arrangement with other weights too (after its lead
                # search, before the other goals): on the deals that need that long they win
                # other deals than the lead search does (see benchmarks/README.md)
                for other in _SECOND_WEIGHTS:
                    if other == weights:
                        continue
                    line, short = step((0, 0, other), tg, other, share)
                    if line is not None:
                        return line
                    cut = cut or short
        for index, parent in enumerate(arrangements[:count]):
            tg = arranged.get(index)
            if tg is None:
                tg = arranged[index] = _Target(p, parent)
            line, short = step((1, index, _WEIGHTS[0]), tg, _WEIGHTS[0], share)
            if line is not None:
                return line
            cut = cut or short
        if not cut and count >= max(len(goals), len(arrangements)):
            return None
        if share >= cap and count >= max(len(goals), len(arrangements)):
            return None
        if quota:
            share = min(cap, share * 3)
            count *= 2
        else:
            share = min(cap, share * _SHARE_GROWTH)
            count *= _GOAL_GROWTH
    return None


def solve(
    game: ThreeTowers,
    deal: Sequence[Card],
    *,
    max_states: int | None = 2_000_000,
    max_seconds: float | None = None,
    start: ThreeTowersState | None = None,
) -> Solution[TowerMove]:
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
    with _collector_paused():
        return _solve(p, budget, began)


class ThreeTowersSolver:
    """The game's :class:`~skillcheck.solving.Solver`: :func:`solve` from a live position."""

    def solve(
        self,
        state: State[TowerMove],
        *,
        max_states: int | None = 2_000_000,
        max_seconds: float | None = None,
    ) -> Solution[TowerMove]:
        assert isinstance(state, ThreeTowersState)
        return solve(state.game, (), start=state, max_states=max_states, max_seconds=max_seconds)


register_analysis(ThreeTowers.name, solver=ThreeTowersSolver)

_gc_lock = threading.Lock()
_gc_pausers = 0
_gc_was_enabled = False


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a search runs. The searches allocate millions
    of tuples and no reference cycles: the collector would only walk them again and again
    (measured: about 15 % of the time). Several threads may solve at once (a server): the
    collector is paused by the first and restored, as it was, by the last one to finish."""
    global _gc_pausers, _gc_was_enabled
    with _gc_lock:
        if _gc_pausers == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pausers += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pausers -= 1
            if _gc_pausers == 0 and _gc_was_enabled:
                gc.enable()


def _solve(p: _Problem, budget: _Budget, began: float) -> Solution[TowerMove]:
    game = p.game
    towers = list(p.start_towers)
    quota = isinstance(game.variant, Quota)
    order = _quota_order(p) if quota else None
    line: list[_Move] | None = None
    try:
        # 1. a short exhaustive search decides small games outright
        quick = 20_000 if p.n <= _SMALL_GAME else _LARGE_QUICK
        budget.local_limit = min(budget.limit, quick, max(_LARGE_QUICK, budget.limit // 10))
        try:
            line = _Search(p, budget, order).run(list(towers), 0)
            if line is None:
                return Solution("loss", (), budget.states, time.perf_counter() - began)
        except _LocalOut:
            pass
        # 2. the planner towards each goal (finished arrangement, or quota's pure tower)
        budget.local_limit = budget.limit
        if line is None:
            line = _planned(p, budget, towers)
        # 3. the exhaustive search with what is left: the only source of "loss"
        if line is None:
            line = _Search(p, budget, order).run(list(towers), 0)
    except (_OutOfBudget, _LocalOut):
        return Solution("unknown", (), budget.states, time.perf_counter() - began)
    seconds = time.perf_counter() - began
    if line is None:
        return Solution("loss", (), budget.states, seconds)
    line = _first_win(p, towers, line)
    moves = tuple(TowerMove(DECK if s < 0 else s + 1, d + 1) for s, d in line)
    return Solution("win", moves, budget.states, seconds)
