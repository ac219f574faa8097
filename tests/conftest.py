"""Shared helpers for the Three Towers tests, offered as fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from skillcheck import Status, ThreeTowersState, TowerMove

Solver = Callable[[ThreeTowersState], list[TowerMove] | None]


def find_winning_line(state: ThreeTowersState, max_nodes: int = 200_000) -> list[TowerMove] | None:
    """A line of legal moves from ``state`` that the library scores as WON, or None.

    A plain depth-first search over ``state.legal_moves`` with a set of visited positions (the
    towers and the remaining deck; the move counter is left out). It works on copies, so the
    given state is not changed. Small levels (2..4) are searched to the end quickly.
    """
    seen: set[tuple[object, ...]] = set()
    # Each frame: (state, iterator over its legal moves, the move that led to it).
    stack: list[tuple[ThreeTowersState, list[TowerMove], TowerMove | None]] = [
        (state, list(state.legal_moves), None)
    ]
    nodes = 0
    while stack:
        current, pending, _ = stack[-1]
        if not pending:
            stack.pop()
            continue
        move = pending.pop(0)
        child = current.copy()
        child.push(move)
        nodes += 1
        if nodes > max_nodes:
            return None
        if child.outcome is not None:
            if child.outcome.status is Status.WON:
                return [m for _, _, m in stack[1:] if m is not None] + [move]
            continue
        key = (child.towers, child.remaining_deck)
        if key in seen:
            continue
        seen.add(key)
        stack.append((child, list(child.legal_moves), move))
    return None


@pytest.fixture
def solve() -> Solver:
    return find_winning_line


# ---- the browser -------------------------------------------------------------------------------
# Playwright's sync API keeps an asyncio loop running in the test process while it is open: a
# second sync Playwright, or asyncio.run() (the webhook and fault tests), then fails in that
# process. So every test that drives Chromium takes this fixture, and it lives for one module:
# pytest closes it before the next module's tests run in the same xdist worker.

#: Debian's Chromium (.ci/run installs it); the browser tests and the Foundry harness test use it.
CHROMIUM = os.environ.get("SKILLCHECK_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: install Debian's package "
            "(apt-get install chromium; .ci/run does it) — the browser tests need a real browser",
            pytrace=False,
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        pytest.fail(f"playwright is not installed (pip install -e '.[test]'): {exc}", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        try:
            yield launched
        finally:
            launched.close()


# ---- quick twins -------------------------------------------------------------------------------
# A property test may come twice: a quick run for `-m "not slow"` and a long, slow-marked run of
# the same check with more examples. When both are collected (CI runs everything) the quick twin
# adds nothing the long one does not check, so it is deselected.


@pytest.hookimpl(trylast=True)  # after -m and -k have chosen what runs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    collected = {(item.path, item.name) for item in items}
    quick, kept = [], []
    for item in items:
        marker = item.get_closest_marker("quick_twin_of")
        twin = None
        if marker is not None:
            test = item.name.split("[", 1)[0]
            twin = item.name.replace(test, marker.args[0], 1)
        (quick if twin is not None and (item.path, twin) in collected else kept).append(item)
    if quick:
        config.hook.pytest_deselected(items=quick)
        items[:] = kept
