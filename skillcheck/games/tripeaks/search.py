"""Exact perfect-information searches of Tri Peaks on bit masks, in Python and (faster) in C.

Everything here works on ranks (1..13, 14 a wild card; suits never matter) and needs nothing
from the rules module: a :class:`Problem` is the 28 tableau ranks (positions numbered as in
``/work/shared/reference/tripeaks-layout.md``: left to right, peak tips 0, 1, 2 first), the
stock's ranks from its top, the waste top's rank (0 for an empty waste) and the tableau cards
already removed (a 28-bit mask, bit ``p`` for position ``p``). A move is a tableau position
``0..27`` (that card to the waste) or ``"stock"`` (the stock's top card to the waste).

Two searches, each written twice (:mod:`._search`, compiled from ``_search.c`` on install, and
the same search in Python here; both visit the same positions in the same order, so they give
the same answers, lines and position counts; set ``SKILLCHECK_PURE_PYTHON=1`` to use Python):

- :func:`solve` decides whether the position can be won. Depth-first, with these exact
  reductions (docs/games/tripeaks-solver.md proves each):

  * *deal runs*: dealing j cards in a row is one move, so a position's children are its tableau
    moves and "deal j" for each j whose last card some free card can go on (else the next move
    would be a deal again), only the first j that shows a given rank (a later one leaves the
    same rank on the waste with fewer stock cards);
  * *the waste top counts only through what it lets move*: a position is keyed by its tableau
    mask and its *playable set* (the free cards that fit on the waste top), not by the rank;
  * *stock dominance*: with the same key, a position with more stock cards left is at least as
    good (it replays any line of the other, dealing the extra cards in its first deal run). The
    visited table maps each key to the smallest stock index entered; a position is skipped when
    that is at most its own. This is the transposition set, with dominance;
  * *dead cards* and *the rank flow* (every card to go needs a card of a neighbouring rank,
    its own, to go onto: the waste top, a stock card or another tableau card; a transport
    problem between ranks): a position that fails either is lost. Both need the goal to be
    every card and no wild card; otherwise they are off.

  The answer is ``"win"`` with a line, ``"loss"`` after every position not so pruned was entered,
  or ``"unknown"`` when ``max_states`` positions were entered or ``max_seconds`` passed.
- :func:`best_score` maximises the TriTowers score (seed 003, as GNOME Aisleriot scores "Triple
  Peaks": the k-th card in a row from the peaks scores k, each stock card dealt costs 5 and ends
  the run, the first two peaks cleared give 15 each and the last 30, a win gives
  ``win_bonus_per_card`` per card left in the stock). Depth-first over (tableau mask, stock index,
  waste rank, run length) with a table of each position's best score to come (memoised, every
  reachable position), so it is exact; ``until_end`` says whether a line must run until the game
  is over (won, or no stock and no move) or may stop anywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Literal

from attrs import field, frozen

__all__ = [
    "ABOVE",
    "ALL",
    "COVERED_BY",
    "DEAL_COST",
    "EMPTY",
    "LAST_PEAK_BONUS",
    "PEAK_BONUS",
    "STOCK",
    "WILD",
    "Move",
    "Problem",
    "ScoreResult",
    "SearchResult",
    "accelerated",
    "adjacent",
    "best_score",
    "deal_problem",
    "free_positions",
    "move_score",
    "relaxed_reach",
    "score_events",
    "score_line",
    "solve",
    "won",
]

#: A move: a tableau position 0..27 to the waste, or ``"stock"``.
Move = int | Literal["stock"]
STOCK: Literal["stock"] = "stock"
#: The tableau has 28 positions; ``ALL`` is the mask with every one removed (a win).
TABLEAU = 28
ALL = (1 << TABLEAU) - 1
#: TriTowers scoring (seed 003): a stock card costs 5; the first two peaks cleared give 15
#: each, the last one 30.
DEAL_COST = 5
PEAK_BONUS = 15
LAST_PEAK_BONUS = 30

#: The rank code of a wild card (it goes on any card and any card goes on it).
WILD = 14
#: The rank code of an empty waste's "top" (any card may go on it).
EMPTY = 0

_DEAL = TABLEAU  # a stock deal in the searches' move codes (28); 0..27 are tableau positions
_NONE = 255

# Which positions cover each position (the reference's table): card p is free once they are gone.
_COVERS: tuple[tuple[int, ...], ...] = (
    (3, 4), (5, 6), (7, 8),
    (9, 10), (10, 11), (12, 13), (13, 14), (15, 16), (16, 17),
    *((i + 9, i + 10) for i in range(9, 18)),
    *((),) * 10,
)  # fmt: skip
#: ``COVERED_BY[p]``: the mask of the positions that cover position ``p``.
COVERED_BY: tuple[int, ...] = tuple(sum(1 << q for q in qs) for qs in _COVERS)


def _above(p: int) -> int:
    found = 0
    for q in range(TABLEAU):
        if COVERED_BY[q] >> p & 1:
            found |= 1 << q | _above(q)
    return found


#: ``UNCOVERS[p]``: the positions that position ``p`` covers directly.
UNCOVERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(q for q in range(TABLEAU) if COVERED_BY[q] >> p & 1) for p in range(TABLEAU)
)

#: ``ABOVE[p]``: the positions that position ``p`` covers, directly or through others: none of
#: them can leave the tableau before ``p`` does.
ABOVE: tuple[int, ...] = tuple(_above(p) for p in range(TABLEAU))

_accelerator: ModuleType | None
try:  # the same searches compiled from _search.c (built on install)
    from skillcheck.games.tripeaks import _search as _accelerator
except ImportError:  # no C compiler at install time: the Python searches below
    _accelerator = None
if os.environ.get("SKILLCHECK_PURE_PYTHON"):
    _accelerator = None


def accelerated() -> bool:
    """Whether the searches run compiled (``_search``, built from C on install) or in Python
    (``SKILLCHECK_PURE_PYTHON=1`` forces Python). Both visit the same positions in the same
    order."""
    return _accelerator is not None


def adjacent(a: int, b: int, wrap: bool) -> bool:
    """Whether a card of rank ``b`` may go on a waste top of rank ``a`` (or the other way):
    ranks 1..13 one apart (King and Ace too when ``wrap``); anything goes with a wild card
    (:data:`WILD`) or on an empty waste (:data:`EMPTY`)."""
    if a in (WILD, EMPTY) or b in (WILD, EMPTY):
        return True
    d = abs(a - b)
    return d == 1 or (wrap and d == 12)


def free_positions(removed: int) -> list[int]:
    """The tableau positions whose card is still there and covered by nothing."""
    return [p for p in range(TABLEAU) if not removed >> p & 1 and not COVERED_BY[p] & ~removed]


def _rank_of(item: object) -> int:
    if isinstance(item, int) and not isinstance(item, bool):
        rank = item
    else:
        value = getattr(item, "value", None)
        if isinstance(value, int):
            rank = value
        else:
            from skillcheck.cards.standard import PlayingCard

            rank = PlayingCard.parse(str(item)).value
    if not 1 <= rank <= WILD:
        raise ValueError(f"a rank runs from 1 (Ace) to 13 (King) or is 14 (wild), got {rank!r}")
    return rank


def _ranks(items: Iterable[object]) -> tuple[int, ...]:
    return tuple(_rank_of(item) for item in items)


def _rank_tuple(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


@frozen
class Problem:
    """A Tri Peaks position as the searches see it (ranks only).

    ``tableau``: the 28 ranks by position (a removed position's rank is ignored; 0 is fine);
    ``stock``: the ranks still in the stock, top first; ``waste``: the waste top's rank, 0 when
    the waste is empty (then any free card may be played); ``removed``: the mask of removed
    tableau positions; ``wrap``: King and Ace are neighbours; ``peaks``: the goal, how many peaks
    to clear (3: every card; a peak is cleared when its tip, position 0, 1 or 2, is gone). A
    wild card has rank :data:`WILD` (14) anywhere.
    """

    tableau: tuple[int, ...] = field(converter=_rank_tuple)
    stock: tuple[int, ...] = field(converter=_rank_tuple)
    waste: int = 0
    removed: int = 0
    wrap: bool = False
    peaks: int = 3

    def __attrs_post_init__(self) -> None:
        if len(self.tableau) != TABLEAU:
            raise ValueError(f"a tableau has {TABLEAU} positions, got {len(self.tableau)}")
        live = [r for p, r in enumerate(self.tableau) if not self.removed >> p & 1]
        if any(not 1 <= r <= WILD for r in (*live, *self.stock)) or not 0 <= self.waste <= WILD:
            raise ValueError("ranks run from 1 (Ace) to 13 (King), 14 wild; the waste may be 0")
        if self.peaks not in (1, 2, 3):
            raise ValueError(f"peaks is 1, 2 or 3, got {self.peaks}")
        if not 0 <= self.removed <= ALL:
            raise ValueError("removed is a mask of the 28 tableau positions")
        if len(self.stock) > 52:
            raise ValueError("a stock holds at most 52 cards")

    def won(self, removed: int) -> bool:
        """Whether the goal is reached with the positions ``removed`` gone."""
        return won(removed, self.peaks)


def won(removed: int, peaks: int = 3) -> bool:
    """Whether ``peaks`` peaks are cleared with the positions ``removed`` gone (3: every card)."""
    return removed == ALL if peaks >= 3 else (removed & 0b111).bit_count() >= peaks


def deal_problem(
    deal: Sequence[object], *, wrap: bool, empty_waste: bool = False, peaks: int = 3
) -> Problem:
    """The start of a game from its deal (52 cards, ranks 1..13, or card codes): ``deal[0..27]``
    the tableau by position, then ``deal[28]`` the first waste card and the rest the stock from
    its top; with ``empty_waste`` the waste starts empty and ``deal[28:]`` is the stock."""
    ranks = _ranks(deal)
    if len(ranks) < TABLEAU + 1:
        raise ValueError("a deal has the 28 tableau cards and then the stock")
    if empty_waste:
        return Problem(ranks[:TABLEAU], ranks[TABLEAU:], 0, 0, wrap, peaks)
    return Problem(ranks[:TABLEAU], ranks[TABLEAU + 1 :], ranks[TABLEAU], 0, wrap, peaks)


@frozen
class SearchResult:
    """What :func:`solve` found: ``"win"`` (``moves`` a winning line), ``"loss"`` (every
    position was searched) or ``"unknown"`` (the budget ran out); ``states`` positions entered."""

    result: Literal["win", "loss", "unknown"]
    moves: tuple[Move, ...]
    states: int


@frozen
class ScoreResult:
    """What :func:`best_score` found: ``score`` the best total score to come from the position
    (including the win bonus, excluding points already scored), ``moves`` a line that scores it,
    ``states`` the positions entered; ``score`` is None and ``moves`` empty when the budget ran
    out (``exact`` False)."""

    score: int | None
    moves: tuple[Move, ...]
    states: int

    @property
    def exact(self) -> bool:
        return self.score is not None


class _OutOfBudget(Exception):
    pass


class _Tables:
    """Per-problem tables of the Python searches (``_search.c`` builds the same ones)."""

    def __init__(self, problem: Problem) -> None:
        wrap = problem.wrap
        live = [p for p in range(TABLEAU) if not problem.removed >> p & 1]
        self.rank: tuple[int, ...] = tuple(
            0 if problem.removed >> p & 1 else r for p, r in enumerate(problem.tableau)
        )
        self.stock = problem.stock
        self.wrap = wrap
        self.peaks = problem.peaks
        # adj[r]: the ranks that may go on a waste top of rank r (any on an empty or wild one)
        every = sum(1 << s for s in range(1, WILD + 1))
        self.adj: tuple[int, ...] = tuple(
            sum(1 << s for s in range(1, WILD + 1) if adjacent(r, s, wrap)) if 1 <= r < WILD
            else every
            for r in range(WILD + 1)
        )  # fmt: skip
        # near[r]: the tableau positions whose card may go on a waste top of rank r
        self.near: tuple[int, ...] = tuple(
            sum(1 << p for p in live if self.adj[r] >> self.rank[p] & 1) for r in range(WILD + 1)
        )
        # The loss pruning (dead cards, the rank flow) needs every card to go and no wild card.
        self.prune = (
            problem.peaks == 3
            and WILD not in problem.stock
            and problem.waste != WILD
            and all(self.rank[p] != WILD for p in live)
        )
        n = len(problem.stock) if self.prune else 0
        # stock_from[i]: the ranks in stock[i:]
        from_: list[int] = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            from_[i] = from_[i + 1] | 1 << problem.stock[i]
        # stock_counts[i][r]: how many cards of rank r stock[i:] holds
        self.stock_counts: tuple[tuple[int, ...], ...] = tuple(
            tuple(problem.stock[i:].count(r) for r in range(WILD + 1)) for i in range(n + 1)
        )
        # need[r]: how many tableau cards of rank r are left
        self.need: tuple[int, ...] = tuple(
            sum(1 for p in live if self.rank[p] == r) for r in range(WILD + 1)
        )
        # weak[i][top]: the positions whose card has no neighbour among the top and stock[i:]
        self.weak: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                sum(
                    1 << p
                    for p in live
                    if 1 <= top < WILD and not self.adj[self.rank[p]] & (1 << top | from_[i])
                )
                for top in range(WILD + 1)
            )
            for i in range(n + 1)
        )
        # partners[p]: the positions of a neighbouring rank that p does not cover
        self.partners: tuple[int, ...] = tuple(
            sum(
                1 << q
                for q in live
                if q != p and not ABOVE[p] >> q & 1 and self.adj[self.rank[p]] >> self.rank[q] & 1
            )
            if p in live and self.prune
            else 0
            for p in range(TABLEAU)
        )
        self.order = _move_order()


def _free_mask(removed: int) -> int:
    return sum(1 << p for p in free_positions(removed))


def _move_order() -> tuple[int, ...]:
    """The order tableau moves are tried in: the bottom row first (from the left), then up."""
    return (*range(18, 28), *range(9, 18), *range(3, 9), *range(3))


def _use_compiled(compiled: bool | None) -> bool:
    if compiled is None:
        return _accelerator is not None
    if compiled and _accelerator is None:
        raise RuntimeError("the compiled search is not built (or SKILLCHECK_PURE_PYTHON is set)")
    return compiled


def _rank_bytes(problem: Problem) -> bytes:
    return bytes(0 if problem.removed >> p & 1 else r for p, r in enumerate(problem.tableau))


def _deadline(max_seconds: float | None) -> float | None:
    return None if max_seconds is None else time.perf_counter() + max_seconds


def _expand(line: Iterable[int]) -> tuple[Move, ...]:
    moves: list[Move] = []
    for code in line:
        if code >= _DEAL:
            moves.extend([STOCK] * (code - _DEAL + 1))
        else:
            moves.append(code)
    return tuple(moves)


# ---- the relaxation that proves losses with redeals ------------------------------------------


#: ``_FITS[wrap][r]``: the mask of the ranks that may go on a waste top of rank ``r``.
_FITS: tuple[tuple[int, ...], tuple[int, ...]] = tuple(  # type: ignore[assignment]
    tuple(sum(1 << s for s in range(1, WILD + 1) if adjacent(r, s, w)) for r in range(WILD + 1))
    for w in (False, True)
)


def relaxed_reach(tableau: Sequence[int], removed: int, pool: Iterable[int], wrap: bool) -> int:
    """The tableau mask a relaxed game reaches from ``removed``: a free card may be played
    whenever its rank fits *some* card of ``pool`` (the ranks of every card in the stock and
    the waste; :data:`EMPTY` for an empty waste) or of a tableau card the relaxed game already
    played, in any order and as often as wanted. Every real line, with any number of redeals,
    removes only cards of this mask (docs/games/tripeaks-solver.md, "Redeals"), so a position
    whose mask misses the goal is lost. The relaxed game is monotone, so one greedy pass to a
    fixed point computes it."""
    fits_of = _FITS[1 if wrap else 0]
    fits = 0
    for r in pool:
        fits |= fits_of[r]
    mask = removed
    changed = True
    while changed:
        changed = False
        for p in range(TABLEAU - 1, -1, -1):  # the covering cards first
            if mask >> p & 1 or COVERED_BY[p] & ~mask:
                continue
            r = tableau[p]
            if fits >> r & 1:
                mask |= 1 << p
                fits |= fits_of[r]
                changed = True
    return mask


# ---- is the position winnable? ---------------------------------------------------------------


def solve(
    problem: Problem,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    compiled: bool | None = None,
) -> SearchResult:
    """Whether ``problem`` can be won: a winning line, a proof of loss, or ``"unknown"`` when
    more than ``max_states`` positions would be entered or ``max_seconds`` passed.
    ``compiled`` None uses the C search when it is built (:func:`accelerated`)."""
    if problem.won(problem.removed):
        return SearchResult("win", (), 0)
    if _use_compiled(compiled):
        assert _accelerator is not None
        code, line, states = _accelerator.solve(
            _rank_bytes(problem),
            bytes(problem.stock),
            problem.waste,
            problem.removed,
            problem.wrap,
            problem.peaks,
            bytes(_move_order()),
            -1 if max_states is None else max_states,
            -1.0 if max_seconds is None else max_seconds,
        )
    else:
        tables = _Tables(problem)
        code, line, states = _solve_py(problem, tables, max_states, _deadline(max_seconds))
    if code == 1:
        return SearchResult("win", _expand(line), states)
    return SearchResult("loss" if code == 0 else "unknown", (), states)


def _solve_py(
    problem: Problem, tables: _Tables, max_states: int | None, deadline: float | None
) -> tuple[int, list[int], int]:
    rank = tables.rank
    stock = tables.stock
    nstock = len(stock)
    near = tables.near
    weak = tables.weak
    partners = tables.partners
    order = tables.order
    covered_by = COVERED_BY
    uncovers = UNCOVERS
    stock_counts = tables.stock_counts
    need = list(tables.need)
    wrap = tables.wrap
    prune = tables.prune
    peaks = tables.peaks
    seen: dict[int, int] = {}
    limit = max_states if max_states is not None else 1 << 62
    path: list[int] = []
    states = 0

    def enter(mask: int, free: int, si: int, top: int) -> bool:
        nonlocal states
        playable = free & near[top]
        key = mask | playable << 28
        entered = seen.get(key)
        if entered is not None and entered <= si:
            return False
        seen[key] = si
        states += 1
        if states > limit:
            raise _OutOfBudget
        if deadline is not None and not states & 1023 and time.perf_counter() >= deadline:
            raise _OutOfBudget
        left = ~mask & ALL
        if prune:
            # dead cards: no future waste top can ever take them
            doubtful = left & weak[si][top]
            while doubtful:
                low = doubtful & -doubtful
                doubtful ^= low
                if not partners[low.bit_length() - 1] & left:
                    return False
            # every card left needs its own waste top of a neighbouring rank to go on
            if top and not _flow_ok(need, stock_counts[si], top, wrap):
                return False
        for p in order:
            bit = 1 << p
            if not playable & bit:
                continue
            child = mask | bit
            if child == ALL or (peaks < 3 and won(child, peaks)):
                path.append(p)
                return True
            opened = free ^ bit
            for q in uncovers[p]:
                if not covered_by[q] & ~child:
                    opened |= 1 << q
            r = rank[p]
            need[r] -= 1
            found = enter(child, opened, si, r)
            need[r] += 1
            if found:
                path.append(p)
                return True
        # deal runs: only to a rank some free card can go on (else the next move is a deal too)
        shown = 0
        for j in range(si, nstock):
            r = stock[j]
            if shown >> r & 1 or not free & near[r]:
                continue
            shown |= 1 << r
            if enter(mask, free, j + 1, r):
                path.append(_DEAL + j - si)
                return True
        return False

    try:
        found = enter(problem.removed, _free_mask(problem.removed), 0, problem.waste)
    except _OutOfBudget:
        return 2, [], min(states, limit)
    path.reverse()
    return (1 if found else 0), path, states


#: The order :func:`_flow_ok` serves the ranks in: each rank after the rank two below it.
_FLOW_ORDER = (1, 3, 5, 7, 9, 11, 13, 2, 4, 6, 8, 10, 12)


def _flow_ok(need: Sequence[int], stock: Sequence[int], top: int, wrap: bool) -> bool:
    """Whether every tableau card left (``need[r]`` of rank r) can get its own card of a
    neighbouring rank to go on: the waste top, a stock card (``stock[r]`` of rank r) or another
    tableau card, each used at most once (the card played onto it covers it). A necessary
    condition for a win (docs/games/tripeaks-solver.md): a transport problem between ranks whose
    graph is two paths (a cycle with wrap, cut at the King-to-Ace edge and tried with each flow
    on it), solved greedily along the paths."""
    base = [stock[r] + need[r] for r in range(14)]
    base[top] += 1
    highest = min(need[1], base[13]) if wrap else 0
    for x in range(highest + 1):
        rem = base[:]
        rem[13] -= x
        for r in _FLOW_ORDER:
            k = need[r]
            if r == 1:
                k -= x
            else:
                use = min(k, rem[r - 1])
                k -= use
                rem[r - 1] -= use
            if k:
                after = r + 1 if r < 13 else (1 if wrap else 0)
                if not after or rem[after] < k:
                    break
                rem[after] -= k
        else:
            return True
    return False


# ---- the best TriTowers score ----------------------------------------------------------------


def move_score(run: int, removed: int, position: int) -> int:
    """What moving the tableau card at ``position`` scores when ``run`` cards came from the
    peaks since the last stock card and ``removed`` is the mask before the move: ``run + 1``,
    plus 15 for clearing one of the first two peaks or 30 for clearing the last one."""
    score = run + 1
    if position < 3:
        score += LAST_PEAK_BONUS if (removed & 0b111).bit_count() == 2 else PEAK_BONUS
    return score


def score_events(
    events: Iterable[Literal["card", "peak", "stock"]],
    *,
    win_bonus: int = 0,
) -> int:
    """The TriTowers score of a sequence of events: ``"card"`` a card moved from the peaks,
    ``"peak"`` a card moved from the peaks that clears a peak, ``"stock"`` a stock card dealt;
    ``win_bonus`` is added at the end (the caller's bonus for a win)."""
    score = run = peaks = 0
    for event in events:
        if event == "stock":
            score -= DEAL_COST
            run = 0
            continue
        run += 1
        score += run
        if event == "peak":
            peaks += 1
            score += LAST_PEAK_BONUS if peaks == 3 else PEAK_BONUS
    return score + win_bonus


def score_line(
    problem: Problem,
    moves: Iterable[Move],
    *,
    run: int = 0,
    win_bonus_per_card: int = 0,
) -> int:
    """The TriTowers score ``moves`` make from ``problem`` (``run`` cards already in the run);
    raises :class:`ValueError` at an illegal move. A line that wins adds
    ``win_bonus_per_card`` for each card left in the stock."""
    removed, si, top = problem.removed, 0, problem.waste
    score = 0
    for move in moves:
        if problem.won(removed):
            raise ValueError("the game is already won")
        if move == STOCK:
            if si >= len(problem.stock):
                raise ValueError("the stock is empty")
            top = problem.stock[si]
            si += 1
            score -= DEAL_COST
            run = 0
            continue
        p = int(move)
        if not 0 <= p < TABLEAU or removed >> p & 1 or COVERED_BY[p] & ~removed:
            raise ValueError(f"position {p} holds no free card")
        rank = problem.tableau[p]
        if not adjacent(top, rank, problem.wrap):
            raise ValueError(f"rank {rank} at position {p} does not go on rank {top}")
        score += move_score(run, removed, p)
        run += 1
        removed |= 1 << p
        top = rank
        if problem.won(removed):
            score += win_bonus_per_card * (len(problem.stock) - si)
    return score


def best_score(
    problem: Problem,
    *,
    run: int = 0,
    win_bonus_per_card: int = 0,
    until_end: bool = True,
    max_states: int | None = None,
    max_seconds: float | None = None,
    compiled: bool | None = None,
) -> ScoreResult:
    """The best TriTowers score still to come from ``problem`` (``run`` cards already moved from
    the peaks since the last stock card), and a line that scores it.

    ``until_end``: a line runs until the game is over (won, or the stock is empty and no card
    can move), as a game's final score; False lets a line stop anywhere (the best score any
    reachable position shows; at least 0). ``win_bonus_per_card``: a win scores this for each
    card left in the stock. Budget as in :func:`solve` (then ``score`` is None)."""
    if problem.won(problem.removed):
        return ScoreResult(0, (), 0)
    if not 0 <= run <= TABLEAU:
        raise ValueError(f"a run is 0..{TABLEAU} cards, got {run}")
    if _use_compiled(compiled):
        assert _accelerator is not None
        code, score, line, states = _accelerator.best_score(
            _rank_bytes(problem),
            bytes(problem.stock),
            problem.waste,
            problem.removed,
            problem.wrap,
            problem.peaks,
            bytes(_move_order()),
            run,
            win_bonus_per_card,
            until_end,
            -1 if max_states is None else max_states,
            -1.0 if max_seconds is None else max_seconds,
        )
    else:
        code, score, line, states = _best_py(
            problem, _Tables(problem), run, win_bonus_per_card, until_end, max_states,
            _deadline(max_seconds),
        )  # fmt: skip
    if code != 1:
        return ScoreResult(None, (), states)
    return ScoreResult(score, _expand(line), states)


def _best_py(
    problem: Problem,
    tables: _Tables,
    run0: int,
    win_bonus: int,
    until_end: bool,
    max_states: int | None,
    deadline: float | None,
) -> tuple[int, int, list[int], int]:
    rank = tables.rank
    stock = tables.stock
    nstock = len(stock)
    adj = tables.adj
    order = tables.order
    covered_by = COVERED_BY
    peaks = tables.peaks
    memo: dict[int, tuple[int, int]] = {}
    limit = max_states if max_states is not None else 1 << 62
    states = 0

    def value(mask: int, si: int, top: int, run: int) -> int:
        nonlocal states
        key = mask | si << 28 | top << 34 | run << 38
        known = memo.get(key)
        if known is not None:
            return known[0]
        states += 1
        if states > limit:
            raise _OutOfBudget
        if deadline is not None and not states & 1023 and time.perf_counter() >= deadline:
            raise _OutOfBudget
        best = 0
        move = _NONE
        left = ~mask & ALL
        fits = adj[top]
        tips = (mask & 0b111).bit_count()
        for p in order:
            bit = 1 << p
            if mask & bit or covered_by[p] & left or not fits >> rank[p] & 1:
                continue
            gain = run + 1
            if p < 3:
                gain += LAST_PEAK_BONUS if tips == 2 else PEAK_BONUS
            child = mask | bit
            if won(child, peaks):
                v = gain + win_bonus * (nstock - si)
            else:
                v = gain + value(child, si, rank[p], run + 1)
            if move == _NONE or v > best:
                best, move = v, p
        if si < nstock:
            v = value(mask, si + 1, stock[si], 0) - DEAL_COST
            if move == _NONE or v > best:
                best, move = v, _DEAL
        if not until_end and best < 0:
            best, move = 0, _NONE
        memo[key] = (best, move)
        return best

    try:
        score = value(problem.removed, 0, problem.waste, run0)
    except _OutOfBudget:
        return 2, 0, [], min(states, limit)
    # the line: follow the best moves through the table
    line: list[int] = []
    mask, si, top, run = problem.removed, 0, problem.waste, run0
    while not won(mask, peaks):
        move = memo[mask | si << 28 | top << 34 | run << 38][1]
        if move == _NONE:
            break
        line.append(move)
        if move == _DEAL:
            top = stock[si]
            si += 1
            run = 0
        else:
            mask |= 1 << move
            top = rank[move]
            run += 1
    return 1, score, line, states
