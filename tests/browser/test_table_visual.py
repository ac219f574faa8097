"""Visual regression of the player's page: the key states of every registered game (the start,
halfway to a win, won, lost), on a laptop and on a 360-px phone, against PNGs committed under
``tests/browser/baselines/``, with a tolerance (a pixel differs when one of its channels moves
by more than ``PIXEL_THRESHOLD``; a shot fails when more than ``MAX_RATIO`` of its pixels
differ). Motion is reduced, the seeds, viewports and scale are fixed, and the page must log no
error, so the shots are the same from run to run.

Update the baselines (after a deliberate change of the page; look at them before committing)::

    SKILLCHECK_UPDATE_BASELINES=1 python3 -m pytest tests/browser/test_table_visual.py

A failing comparison writes the new shot and a difference image (changed pixels in red) next
to the test's other screenshots (``$SKILLCHECK_SCREENSHOTS`` or the test's temporary folder).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser_support import Check, expect_check_shown, open_drawn_ahead
from PIL import Image
from playwright.sync_api import Page, expect

from skillcheck.engine import GAMES
from skillcheck.serialization import game_from_params

expect.set_options(timeout=8000)

BASELINES = Path(__file__).parent / "baselines"
UPDATE = os.environ.get("SKILLCHECK_UPDATE_BASELINES") == "1"
PIXEL_THRESHOLD = 48  # of 255, per channel: antialiasing noise stays under it
MAX_RATIO = 0.003  # of the shot's pixels (a card of the laptop's table is about 0.7 %)

#: Each game's parameters and seed for the shots: a deal its solver wins in a few dozen moves.
DEALS: dict[str, tuple[dict[str, Any], int]] = {
    "three-towers": ({"variant": {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}}, 4),
    "hanoy": ({"skill": 3}, 4),
    "tripeaks": ({}, 1),
}
VIEWPORTS = {
    "laptop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
}

NewCheck = Callable[..., Check]


def test_every_registered_game_has_a_deal_for_the_shots() -> None:
    assert set(DEALS) == set(GAMES), "add the new game's deal to DEALS (and its baselines)"


def winning_line(name: str) -> list[str]:
    params, seed = DEALS[name]
    game = game_from_params(name, params)
    solver = game.solver()
    assert solver is not None, f"{name} has no solver to find a winning line with"
    solution = solver.solve(game.new_state(seed), max_states=200_000, max_seconds=10)
    assert solution.result == "win", f"{name} seed {seed}: {solution.result}; choose another deal"
    return [m.code for m in solution.moves]


def compare(shot: bytes, name: str, shots: Path) -> None:
    """``shot`` (PNG) against ``baselines/<name>.png`` within the tolerance (or saved as it,
    when updating)."""
    baseline = BASELINES / f"{name}.png"
    if UPDATE:
        BASELINES.mkdir(parents=True, exist_ok=True)
        Image.open(io.BytesIO(shot)).convert("RGB").save(baseline, optimize=True)
        return
    (shots / f"{name}.png").write_bytes(shot)
    assert baseline.exists(), (
        f"no baseline {baseline.name}: make it with SKILLCHECK_UPDATE_BASELINES=1 "
        "python3 -m pytest tests/browser/test_table_visual.py (and look at it)"
    )
    new = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"), dtype=np.int16)
    old = np.asarray(Image.open(baseline).convert("RGB"), dtype=np.int16)
    assert new.shape == old.shape, (
        f"{name}: the page is {new.shape[1]}x{new.shape[0]} px, the baseline "
        f"{old.shape[1]}x{old.shape[0]} (see {shots / (name + '.png')})"
    )
    differs = np.abs(new - old).max(axis=2) > PIXEL_THRESHOLD
    ratio = float(differs.mean())
    if ratio > MAX_RATIO:
        marked = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB")).copy()
        marked[differs] = (255, 0, 0)
        Image.fromarray(marked).save(shots / f"{name}-diff.png")
    assert ratio <= MAX_RATIO, (
        f"{name}: {ratio:.2%} of the pixels differ from the baseline (at most {MAX_RATIO:.2%}); "
        f"see {shots / (name + '-diff.png')}"
    )


def settle(page: Page, version: int, over: bool) -> None:
    """Wait until the page shows ``version`` with its live status final and its fonts loaded."""
    expect_check_shown(page)
    expect(page.locator("#version")).to_have_text(str(version))
    expect(page.locator("#live")).to_have_attribute("data-mode", "stopped" if over else "stream")
    page.evaluate("document.fonts.ready.then(() => true)")
    # no hover or focus ring on the shot
    page.mouse.move(0, 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")


@pytest.mark.parametrize("size", sorted(VIEWPORTS))
@pytest.mark.parametrize("name", sorted(DEALS))
def test_key_states_look_as_they_did(
    browser: Any, server: str, new_check: NewCheck, shots: Path, name: str, size: str
) -> None:
    params, seed = DEALS[name]
    line = winning_line(name)
    halfway = len(line) // 2
    context = browser.new_context(
        **VIEWPORTS[size], device_scale_factor=1, reduced_motion="reduce", color_scheme="light"
    )
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
        page.on(
            "console",
            lambda message: (
                errors.append(f"console: {message.text}") if message.type == "error" else None
            ),
        )

        def shoot(check: Check, state: str, version: int) -> None:
            # (the table drawn as a page that had time to draw ahead draws it, card backs as
            # an image, whatever this machine's speed: the SVG backs they come from differ in
            # antialiasing at the edges)
            open_drawn_ahead(page, check.url(server), check.check_id)
            settle(page, version, over=state in ("won", "lost"))
            compare(page.screenshot(full_page=True), f"{name}-{size}-{state}", shots)

        start = new_check(seed=seed, params=params, game=name, label="Mira")
        shoot(start, "start", 0)
        for code in line[:halfway]:
            start.move(code)
        shoot(start, "middle", halfway)
        # lost: the same deal conceded halfway
        conceded = start.http.post(
            f"/v1/checks/{start.check_id}/concede", json={}, headers=start.auth()
        )
        assert conceded.status_code == 200, conceded.text
        shoot(start, "lost", halfway + 1)
        won = new_check(seed=seed, params=params, game=name, label="Mira")
        for code in line:
            view = won.move(code)
        assert view["status"] == "won"
        shoot(won, "won", len(line))
    finally:
        context.close()
    assert not errors, errors
