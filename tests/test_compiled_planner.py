"""The compiled planner (Three Towers' _planner.c) searches exactly what the Python one searches.

Both implementations of ``solver._Planner.run`` must generate the same positions in
the same order: the same counts, the same lines, the same places where a budget stops them.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcheck.engine import Status
from skillcheck.games.three_towers import DECK, Quota, ThreeTowers, TowerMove, solver
from skillcheck.games.three_towers.solver import (
    _Budget,
    _OutOfBudget,
    _Planner,
    _Problem,
    _quota_arrangements,
    _quota_targets,
    _Target,
    _targets,
    solve,
)

needs_compiled = pytest.mark.skipif(
    os.environ.get("SKILLCHECK_PURE_PYTHON") is not None,
    reason="SKILLCHECK_PURE_PYTHON is set: the compiled planner is switched off on purpose",
)


def test_the_compiled_planner_is_built() -> None:
    """An install with a C compiler builds it (``pip install -e .`` does, in place); the
    suite is meant to run with it. ``SKILLCHECK_PURE_PYTHON=1`` switches it off."""
    if os.environ.get("SKILLCHECK_PURE_PYTHON"):
        assert not solver.accelerated()
    else:
        assert solver.accelerated(), "the compiled planner is not built: reinstall with a compiler"


def _goals(p: _Problem) -> list[_Target]:
    if isinstance(p.variant, Quota):
        goals = [_Target(p, parent, members) for parent, members in _quota_targets(p)[:3]]
        return goals + [_Target(p, parent) for parent in _quota_arrangements(p)[:2]]
    return [_Target(p, parent) for parent in _targets(p)[:3]]


def _both(p: _Problem, tg: _Target, weights: tuple[int, int]) -> tuple[_Planner, _Planner]:
    start = list(p.start_towers)
    return (
        _Planner(p, tg, start, weights, compiled=False),
        _Planner(p, tg, start, weights, compiled=True),
    )


def _outcome(planner: _Planner, budget: _Budget, limit: int) -> tuple[object, ...]:
    """What one run of ``planner`` answers (or that the budget stopped it), and its counts."""
    try:
        result: object = planner.run(budget, limit)
    except _OutOfBudget:
        result = "out of budget"
    return result, planner.counter, planner.stored, planner.exhausted


games = st.one_of(
    st.builds(ThreeTowers, level=st.integers(4, 9), spaces=st.integers(3, 8)),
    st.builds(
        lambda suit, level, spaces: ThreeTowers.ivory(suit, level=level, spaces=spaces),
        st.sampled_from(["moons", "suns", "knots"]),
        st.integers(5, 9),
        st.integers(4, 6),
    ),
    st.integers(1, 8).flatmap(
        lambda skill: st.builds(
            lambda suit, quota, spaces: ThreeTowers.quota_check(suit, skill, quota, spaces=spaces),
            st.sampled_from(["moons", "leaves", "wyrms"]),
            st.integers(1, skill),
            st.integers(3, 6),
        )
    ),
)


@needs_compiled
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=games,
    seed=st.integers(0, 10_000),
    goal=st.integers(0, 4),
    weights=st.sampled_from([(4, 3), (4, 6), (3, 3), (0, 3), (0, 0), (2, 3)]),
    first=st.integers(1, 3_000),
    more=st.integers(0, 6_000),
)
def test_same_positions_same_lines(
    game: ThreeTowers,
    seed: int,
    goal: int,
    weights: tuple[int, int],
    first: int,
    more: int,
) -> None:
    """Any game, goal and weights: run to ``first`` positions, then resumed to ``first + more``;
    after each run both planners report the same line, the same count of positions generated
    and held, and whether they exhausted their search."""
    p = _Problem(game, ((),) * game.spaces, game.deal(seed))
    goals = _goals(p)
    if not goals:
        return
    tg = goals[goal % len(goals)]
    python, compiled = _both(p, tg, weights)
    budgets = _Budget(None, None), _Budget(None, None)
    for limit in (first, first + more):
        a = _outcome(python, budgets[0], limit)
        b = _outcome(compiled, budgets[1], limit)
        assert a == b
        assert budgets[0].states == budgets[1].states == python.counter


@needs_compiled
@pytest.mark.parametrize(
    ("game", "seed"),
    [
        (ThreeTowers(level=9), 0),
        (ThreeTowers.quota_check("moons", 8, 8), 3),
        (ThreeTowers(level=8, spaces=6), 5),
    ],
)
@pytest.mark.parametrize("max_states", [1, 1023, 1024, 4_500, 17_000])
def test_a_state_budget_stops_both_at_the_same_position(
    game: ThreeTowers, seed: int, max_states: int
) -> None:
    """A budget of ``max_states`` raises inside the hot loop at the same count in both (the
    compiled loop calls the budget back at the counts :meth:`_Budget.stop` names)."""
    p = _Problem(game, ((),) * game.spaces, game.deal(seed))
    tg = _goals(p)[0]
    weights = (0, 3) if tg.quota else (4, 3)
    python, compiled = _both(p, tg, weights)
    budgets = _Budget(max_states, None), _Budget(max_states, None)
    a = _outcome(python, budgets[0], 50_000)
    b = _outcome(compiled, budgets[1], 50_000)
    assert a == b
    assert budgets[0].states == budgets[1].states
    if a[0] == "out of budget":
        assert budgets[1].states == max_states


def _ticking_clock() -> Callable[[], float]:
    """A clock that reads 0, 1, 2, ... seconds, one more at each reading."""
    readings = iter(range(1_000))
    return lambda: float(next(readings))


@needs_compiled
def test_a_deadline_stops_both_at_the_same_position(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock is consulted every 1,024 positions; with a clock that passes the deadline on
    its sixth reading (the first sets it) both planners stop at the same position."""
    game = ThreeTowers(level=9)
    p = _Problem(game, ((),) * game.spaces, game.deal(0))
    tg = _goals(p)[0]
    counts = []
    for compiled in (False, True):
        monkeypatch.setattr(solver, "_clock", _ticking_clock())
        budget = _Budget(None, 4.5)
        planner = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=compiled)
        with pytest.raises(_OutOfBudget):
            planner.run(budget, 1_000_000)
        counts.append((budget.states, planner.counter))
    assert counts[0] == counts[1]
    assert counts[0][0] == 5 * 1024  # readings 1, 2, 3, 4 at 1,024..4,096 are before 4.5


@needs_compiled
def test_from_a_live_position() -> None:
    """A search that starts with cards on the table (a live check) is the same in both."""
    game = ThreeTowers.quota_check("moons", 7, 6)
    state = game.new_state(11)
    for _ in range(6):
        state.push(next(m for m in state.legal_moves if m.source == DECK))
    p = _Problem(game, state.towers, state.remaining_deck)
    for tg in _goals(p):
        python, compiled = _both(p, tg, (0, 3))
        budgets = _Budget(None, None), _Budget(None, None)
        a = _outcome(python, budgets[0], 20_000)
        b = _outcome(compiled, budgets[1], 20_000)
        assert a == b


@needs_compiled
@pytest.mark.parametrize(
    ("game", "seeds"),
    [
        (ThreeTowers(level=9), range(3)),
        (ThreeTowers.quota_check("moons", 8, 8), range(6)),
        (ThreeTowers.quota_check("suns", 6, 6), range(6)),
        (ThreeTowers.ivory("knots", level=8), range(3)),
        (ThreeTowers(level=7, spaces=4), range(2)),
    ],
)
def test_solve_answers_the_same_with_either(
    game: ThreeTowers, seeds: range, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whole solves, compiled and in Python: the same result, states and line; wins replay."""
    for seed in seeds:
        deal = game.deal(seed)
        compiled = solve(game, deal, max_states=60_000)
        with monkeypatch.context() as m:
            m.setattr(solver, "_accelerator", None)
            python = solve(game, deal, max_states=60_000)
        assert (compiled.result, compiled.states, compiled.moves) == (
            python.result,
            python.states,
            python.moves,
        )
        if compiled.result == "win":
            state = game.state_from_deal(deal)
            for move in compiled.moves:
                state.push(move)
            assert state.status is Status.WON


@needs_compiled
def test_planners_free_their_memory() -> None:
    """Planners that are dropped give their tables back (no leak in the C type)."""
    game = ThreeTowers(level=9)
    p = _Problem(game, ((),) * game.spaces, game.deal(2))
    tg = _goals(p)[0]

    def one() -> None:
        planner = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=True)
        planner.run(_Budget(None, None), 30_000)
        assert planner.stored > 10_000

    one()
    tracemalloc.start()
    try:
        one()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(10):
            one()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after - before < 256 * 1024


def test_the_compiled_planner_refuses_what_it_cannot_hold() -> None:
    """``compiled=True`` on a build without it, or bad tables, is a clear error."""
    game = ThreeTowers(level=6)
    p = _Problem(game, ((),) * game.spaces, game.deal(0))
    tg = _goals(p)[0]
    if not solver.accelerated():
        with pytest.raises(ValueError, match="not built"):
            _Planner(p, tg, list(p.start_towers), (4, 3), compiled=True)
        return
    core = solver._accelerator
    assert core is not None
    planner = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=True)
    kwargs = dict(
        deck=p.deck, onto=p.onto, parent=tg.parent, anc=tg.anc, chain=tg.chain,
        needed=tg.needed, pure_target=tg.quota, suit_bits=p.suit_bits, quota=p.quota,
        weights=solver._TOWER_WEIGHTS, packed_base=planner.packed, start=planner.start,
        start_key=0, first=planner.packed[0][0], won=p.won,
    )  # fmt: skip
    with pytest.raises(ValueError, match="every card once"):
        core.Planner(**{**kwargs, "start": (1 << p.deck[0],) + (0,) * (game.spaces - 1)})
    with pytest.raises(ValueError, match="one row per deck position"):
        core.Planner(**{**kwargs, "packed_base": planner.packed[:-1]})
    with pytest.raises(ValueError, match=r"at most 24 cards and 1\.\.8 towers"):
        core.Planner(**{**kwargs, "start": (0,) * 9})
    with pytest.raises(ValueError, match="weights: expected 7 values"):
        core.Planner(**{**kwargs, "weights": (1, 2)})
    # tables that would make the C search read or write out of bounds are refused up front
    bad = {
        "deck": (p.deck[0], *p.deck[:-1]),  # a card twice
        "onto": (1 << p.n, *p.onto[1:]),  # a card that is not in the game
        "parent": (p.n, *tg.parent[1:]),
        "chain": (-1, *tg.chain[1:]),
        "weights": (-1, *solver._TOWER_WEIGHTS[1:]),
        "first": 0,  # not a packed heap value: its counter bits would name no node
        "start_key": 1 << 121,  # a field past the 24th card
        "quota": p.n + 1,
        "packed_base": [[*row[:-1], 0] for row in planner.packed],
    }
    for name, value in bad.items():
        with pytest.raises(ValueError, match=name):
            core.Planner(**{**kwargs, name: value})
    ready = core.Planner(**kwargs)
    with pytest.raises(RuntimeError, match="already initialised"):
        ready.__init__(**kwargs)
    with pytest.raises(TypeError):
        core.Planner(**{**kwargs, "onto": [None] * len(p.onto)})


def test_line_of_the_compiled_planner_replays() -> None:
    """A line found by the (default) planner replays through the rules engine."""
    game = ThreeTowers.quota_check("moons", 8, 8)
    deal = game.deal(1)
    p = _Problem(game, ((),) * game.spaces, deal)
    tg = _goals(p)[0]
    line, _ = _Planner(p, tg, list(p.start_towers), (0, 3)).run(_Budget(None, None), 100_000)
    assert line is not None
    state = game.state_from_deal(deal)
    for s, d in line:
        state.push(TowerMove(DECK if s < 0 else s + 1, d + 1))
        if state.status is Status.WON:
            break
    assert state.status is Status.WON


@needs_compiled
def test_other_threads_run_while_a_compiled_search_runs() -> None:
    """The compiled search lets go of the GIL (a server solving in one thread keeps answering
    in the others), and finds the same line as when nothing else runs."""
    game = ThreeTowers(level=9)
    p = _Problem(game, ((),) * game.spaces, game.deal(43))
    tg = _goals(p)[0]
    alone = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=True)
    expected = alone.run(_Budget(None, None), 700_000)
    planner = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=True)
    found: list[object] = []
    worker = threading.Thread(
        target=lambda: found.append(planner.run(_Budget(None, None), 700_000))
    )
    beats = [time.perf_counter()]
    worker.start()
    while worker.is_alive():
        beats.append(time.perf_counter())
    worker.join()
    assert found == [expected] and planner.counter == alone.counter
    # held for the whole search, the GIL would stop this thread for about as long as the search
    # takes; let go, it only stops it for the interpreter's switch interval now and then
    took = beats[-1] - beats[0]
    longest = max(b - a for a, b in itertools.pairwise(beats))
    assert took > 0.1
    assert longest < took / 2


@needs_compiled
def test_a_running_search_refuses_a_second_caller() -> None:
    """One search, one caller at a time: ``run`` entered again while it runs (here from its own
    budget callback) is a RuntimeError, and the first call goes on unharmed."""
    game = ThreeTowers(level=8)
    p = _Problem(game, ((),) * game.spaces, game.deal(1))
    tg = _goals(p)[0]
    planner = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=True)
    core = planner.core
    errors: list[str] = []

    def tick(states: int) -> int:
        try:
            core.run(10, states, 1 << 62, tick)
        except RuntimeError as exc:
            errors.append(str(exc))
        return 1 << 62

    line, _short, states = core.run(5_000, 0, 100, tick)
    assert errors == ["this search is already running in another thread"]
    reference = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=False)
    assert (line is None, states) == (
        reference.run(_Budget(None, None), 5_000)[0] is None,
        reference.counter,
    )


@needs_compiled
def test_ctrl_c_stops_a_search_without_a_budget() -> None:
    """With no budget the search never calls back into Python, yet a signal (Ctrl-C, here an
    alarm whose handler raises) still stops it within a fraction of a second."""
    import signal

    class Alarm(Exception):
        pass

    def ring(signum: int, frame: object) -> None:
        raise Alarm

    game = ThreeTowers(level=9)
    p = _Problem(game, ((),) * game.spaces, game.deal(75))
    planner = _Planner(p, _goals(p)[0], list(p.start_towers), (4, 3), compiled=True)
    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        began = time.perf_counter()
        with pytest.raises(Alarm):
            planner.run(_Budget(None, None), 20_000_000)
        assert time.perf_counter() - began < 1.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert 0 < planner.counter < 20_000_000
