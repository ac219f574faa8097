"""Hints and "Finish for me" on the player's page (api/static/assist.js) against the real API:
a hint lights its move's two places and says it in words, is counted on the page, for a
spectator and in the record, and the player can drag it; a check without hints offers none;
once the win is certain the page offers to finish it and the check ends won."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browser_support import Check, snap
from motion_support import (
    Console,
    console_fixture,  # noqa: F401  (the fixtures console, hand, hand_context)
    drag_move,
    hand_context_fixture,  # noqa: F401
    hand_fixture,  # noqa: F401
    is_post,
    settle,
    wait_shows,
)
from playwright.sync_api import Page, expect

from skillcheck import make_game

expect.set_options(timeout=8000)

NewCheck = Callable[..., Check]


def lit(page: Page, name: str) -> list[str]:
    zones: list[str] = page.eval_on_selector_all(
        f".{name}[data-zone]", "zs => [...new Set(zs.map(z => z.dataset.zone))]"
    )
    return zones


def test_a_hint_lights_its_move_says_it_and_is_counted(
    hand: Page, hand_context: Any, server: str, new_check: NewCheck, console: Console, shots: Path
) -> None:
    check = new_check(seed=21, hints=True)
    watcher = console.watch(hand_context.browser.new_context().new_page())
    try:
        watcher.goto(check.url(server, check.spectator))
        hand.goto(check.url(server))
        frame = hand.main_frame
        wait_shows(frame, check.view())
        expect(hand.locator("#hints-used")).to_have_text("Hints used: 0")
        expect(watcher.locator("#hint")).to_be_hidden()  # a spectator cannot ask
        with hand.expect_response(is_post("/hint")) as answered:
            hand.click("#hint")
        hint = answered.value.json()["hint"]
        text = hand.locator("#hint-text")
        expect(text).to_be_visible()
        expect(text).to_contain_text(f"Hint: {hint['text']}")
        expect(hand.locator("#hints-used")).to_have_text("Hints used: 1")
        assert lit(hand, "hint-from") == [hint["from"]]
        assert lit(hand, "hint-to") == ([hint["to"]] if hint["to"] else [])
        expect(hand.locator("#hint")).to_be_focused()
        view = check.view()
        assert view["hints_used"] == 1 and view["moves_made"] == 0
        # The spectator hears of it live.
        expect(watcher.locator("#hints-used")).to_have_text("Hints used: 1")
        settle(frame)
        snap(hand, shots, "motion-hint")
        # Choosing a card redraws the table: the hint stays lit.
        hand.locator(f"[data-zone='{hint['from']}'] [data-action='card']").last.click()
        assert lit(hand, "hint-from") == [hint["from"]]
        hand.keyboard.press("Escape")
        # Played (by dragging), the hint has done its work: it goes.
        with hand.expect_response(is_post("/moves")):
            drag_move(hand, frame, view, hint["code"])
        expect(text).to_be_hidden()
        expect(hand.locator(".hint-from, .hint-to")).to_have_count(0)
        assert check.view()["moves_made"] == 1
        # The record counts it.
        hand.click("#concede")
        hand.click("#concede-confirm")
        expect(hand.locator("#result")).to_be_visible()
        assert check.record()["hints_used"] == 1
    finally:
        watcher.context.close()


def test_no_hint_is_offered_when_the_gm_did_not_allow_them(
    hand: Page, server: str, new_check: NewCheck
) -> None:
    check = new_check(seed=21)
    hand.goto(check.url(server))
    wait_shows(hand.main_frame, check.view())
    expect(hand.locator("#assist")).to_be_visible()
    expect(hand.locator("#hint")).to_be_hidden()
    expect(hand.locator("#hints-used")).to_be_hidden()
    expect(hand.locator("#finish")).to_be_hidden()


def test_a_certain_win_is_finished_for_the_player(
    hand: Page, server: str, new_check: NewCheck, shots: Path
) -> None:
    game = make_game("three-towers")
    state = game.new_state(1)
    solver = game.solver()
    assert solver is not None
    line = [m.code for m in solver.solve(state).moves]
    # Where the win becomes certain (every card seen, a win proved), worked out here.
    ready = 0
    while state.finishing_line() is None:
        state.push_code(line[ready])
        ready += 1
    assert 0 < ready < len(line), "the line reaches no finishable position before its end"
    check = new_check(seed=1, params={})
    for code in line[: ready - 1]:
        check.move(code)
    hand.goto(check.url(server))
    frame = hand.main_frame
    view = check.view()
    wait_shows(frame, view)
    assert view["can_finish"] is False
    expect(hand.locator("#finish")).to_be_hidden()
    with hand.expect_response(is_post("/moves")):
        drag_move(hand, frame, view, line[ready - 1])
    expect(hand.locator("#finish")).to_be_visible()
    expect(hand.locator("#finish-note")).to_be_visible()
    # (a phone shows the button alone: its note is what it is described by)
    expect(hand.locator("#finish")).to_have_accessible_description(
        re.compile("The win is certain from here")
    )
    assert check.view()["can_finish"] is True
    settle(frame)
    snap(hand, shots, "motion-finish-offered")
    # From here, frames are held (requestAnimationFrame callbacks wait), and every version the
    # page draws is recorded (render() writes #version each time).
    hand.evaluate(
        """() => {
          window.drawn = [];
          window.heldFrames = [];
          window.requestAnimationFrame = (callback) => window.heldFrames.push(callback);
          new MutationObserver((records) => {
            for (const record of records) {
              for (const node of record.addedNodes) window.drawn.push(node.textContent);
            }
          }).observe(document.getElementById("version"), {childList: true});
        }"""
    )
    shown = str(check.view()["version"])
    with hand.expect_response(is_post("/finish")) as answered:
        hand.click("#finish")
    assert answered.value.status == 200
    expect(hand.locator("#result")).to_be_visible()
    expect(hand.locator("#result-title")).to_contain_text("Check won")
    expect(hand.locator("#assist")).to_be_hidden()
    done = check.view()
    assert done["status"] == "won" and done["moves_made"] > ready
    wait_shows(frame, done)
    snap(hand, shots, "motion-finished")
    # The finish's moves reach the page as a burst of live events, a view in each: the page
    # draws the newest once a frame, not each one. With frames held, it drew only the finish's
    # answer (a redraw per event took 26 s for these moves on a slow CPU).
    drawn = [version for version in hand.evaluate("window.drawn") if version != shown]
    assert list(dict.fromkeys(drawn)) == [str(done["version"])]
    hand.evaluate("() => window.heldFrames.splice(0).forEach((run) => run(performance.now()))")
    expect(hand.locator("#version")).to_have_text(str(done["version"]))
