"""Animations and sound on the player's page (api/static/motion.js, sound.js): with the default
motion setting the deal, a move and a card turning up animate for 150-250 ms, read from the
page's own ``getAnimations()``; with ``prefers-reduced-motion: reduce`` nothing animates at all;
neither shifts the layout. Sound is off until switched on, then remembered, and each kind of
event plays its own synthesised notes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from browser_support import Check, click_move
from motion_support import (
    RECORDER,
    VIEWPORT,
    Console,
    card_point,
    console_fixture,  # noqa: F401  (the fixtures console, hand, hand_context)
    drag_move,
    hand_context_fixture,  # noqa: F401
    hand_fixture,  # noqa: F401
    mouse_drag,
    settle,
    wait_shows,
    winning_line,
    zone_point,
)
from playwright.sync_api import Page, expect

from skillcheck.engine import GAMES

expect.set_options(timeout=8000)

NewCheck = Callable[..., Check]

#: Counts audio contexts and records each note (waveform, frequency) as it starts.
EAR = """
window.contexts = 0;
window.notes = [];
const Context = window.AudioContext;
window.AudioContext = class extends Context {
  constructor(...args) { super(...args); window.contexts += 1; }
};
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.notes.push([this.type, this.frequency.value]);
  return start.apply(this, args);
};
"""


def is_move(response: Any) -> bool:
    return bool(response.request.method == "POST" and "/moves" in response.url)


def first_drag(view: dict[str, Any]) -> str:
    """A move of ``view`` that goes somewhere (dragged, not tapped)."""
    return next(m["code"] for m in view["moves"] if m["to"] is not None)


def illegal_drop(view: dict[str, Any]) -> tuple[str, str]:
    """A zone a move starts from, and another zone none of its moves goes to."""
    for source in dict.fromkeys(m["from"] for m in view["moves"] if m["to"] is not None):
        targets = {m["to"] for m in view["moves"] if m["from"] == source}
        for zone in view["board"]["zones"]:
            if zone["id"] != source and zone["id"] not in targets:
                return source, zone["id"]
    raise AssertionError("every zone is a legal target here")


def drop(page: Page, source: str, target: str) -> None:
    settle(page.main_frame)
    mouse_drag(page, card_point(page.main_frame, source), zone_point(page.main_frame, target))


def test_moves_deals_and_flips_animate_for_150_to_250_ms(
    hand: Page, server: str, new_check: NewCheck
) -> None:
    hand.add_init_script(RECORDER)
    check = new_check(seed=21)
    hand.goto(check.url(server))
    view = check.view()
    frame = hand.main_frame
    wait_shows(frame, view)
    # The deal: every card on the table (face up or down) comes in, one after another, each
    # unseen until its turn.
    cards = hand.eval_on_selector_all("#table [data-code], #table .face-down", "cs => cs.length")
    hand.wait_for_function("(cards) => window.animated.length >= cards", arg=cards)
    hand.wait_for_function("() => !document.querySelector('.undealt')")
    dealt = hand.evaluate("() => window.animated")
    assert len(dealt) >= cards and all(150 <= d <= 250 for d in dealt), dealt
    settle(frame)
    shifts = hand.evaluate("() => { window.animations = []; return window.shifts.length; }")
    # A move: the card glides to its tower and the deck's next card turns face up.
    code = first_drag(view)
    with hand.expect_response(is_move):
        drag_move(hand, frame, view, code)
    running = hand.wait_for_function(
        "() => { const a = window.animations.filter(a => a.id === 'skillcheck-card')"
        ".map(a => ({ duration: a.effect.getTiming().duration,"
        " flip: String(a.effect.getKeyframes()[0].transform).includes('rotateY') }));"
        " return a.length ? a : null; }"
    ).json_value()
    assert all(150 <= a["duration"] <= 250 for a in running), running
    assert any(not a["flip"] for a in running), running  # the moved card
    assert any(a["flip"] for a in running), running  # the deck's new top card
    after = check.view()
    wait_shows(frame, after)
    settle(frame)
    # Only transforms moved: nothing was laid out elsewhere.
    assert hand.evaluate("() => window.shifts.length") == shifts
    # Every animation the page started lasted 150-250 ms.
    assert all(150 <= d <= 250 for d in hand.evaluate("() => window.animated"))


#: Records, from the view's arrival (then the page deals its first table), each read of an
#: element's place and each animation started, in order.
DEAL_ORDER = """
window.dealOrder = [];
const dealing = () => performance.getEntriesByName("skillcheck:view").length > 0;
const rect = Element.prototype.getBoundingClientRect;
Element.prototype.getBoundingClientRect = function () {
  if (dealing()) window.dealOrder.push("read");
  return rect.call(this);
};
const start = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  if (dealing()) window.dealOrder.push("animate");
  return start.apply(this, args);
};
const mark = performance.mark;
performance.mark = function (name, ...rest) {
  if (name === "skillcheck:painted") window.dealOrder.push("painted");
  return mark.call(this, name, ...rest);
};
"""


@pytest.mark.parametrize("game", ["three-towers", "tripeaks"])
def test_the_deal_reads_every_place_before_it_starts_an_animation(
    hand: Page, server: str, new_check: NewCheck, game: str
) -> None:
    # A read after an animation has started styles and lays the page out again, once per card:
    # that made a slow phone's first table up to 190 ms later (docs/performance.md).
    hand.add_init_script(DEAL_ORDER)
    check = new_check(seed=21, game=game, params=GAMES[game].examples()[0])
    view = check.view()
    for _ in range(6):  # a few moves in: more cards on the table to deal
        if view["status"] == "in_progress" and view["moves"]:
            view = check.move(view["moves"][0]["code"])
    hand.goto(check.url(server))
    wait_shows(hand.main_frame, check.view())
    cards = hand.eval_on_selector_all("#table [data-code], #table .face-down", "cs => cs.length")
    hand.wait_for_function(
        "(cards) => window.dealOrder.filter((c) => c === 'animate').length >= cards", arg=cards
    )
    order = hand.evaluate("() => window.dealOrder")
    assert cards >= 5 and order.count("animate") >= cards, order
    first = order.index("animate")
    assert "read" not in order[first:], order
    assert order.count("read") >= cards, order  # each card's place, read before
    # The frame that first shows the table starts no deal: the deal begins in the next frame,
    # so the first table costs a slow phone no more with motion than without.
    assert "painted" in order[:first], order


#: Records, while ``window.recording`` is set, each read of an element's place and each
#: animation started, in order.
GLIDE_ORDER = """
window.glideOrder = [];
window.recording = false;
const rect = Element.prototype.getBoundingClientRect;
Element.prototype.getBoundingClientRect = function () {
  if (window.recording) window.glideOrder.push("read");
  return rect.call(this);
};
const start = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  if (window.recording) window.glideOrder.push("animate");
  return start.apply(this, args);
};
"""


@pytest.mark.parametrize("game", ["three-towers", "tripeaks"])
def test_a_move_reads_every_place_before_it_starts_a_glide(
    hand: Page, server: str, new_check: NewCheck, game: str
) -> None:
    # The same as the deal's order, for a move's glides and flips (motion.js, after): each card
    # read after another's animation has started would style and lay the page out again.
    hand.add_init_script(GLIDE_ORDER)
    check = new_check(seed=21, game=game, params=GAMES[game].examples()[0])
    view = check.view()
    hand.goto(check.url(server))
    frame = hand.main_frame
    wait_shows(frame, view)
    settle(frame)
    code = first_drag(view)
    hand.evaluate("() => { window.recording = true; }")
    with hand.expect_response(is_move):
        click_move(hand, view, code)
    wait_shows(frame, check.view())
    hand.wait_for_function("() => window.glideOrder.includes('animate')")
    settle(frame)
    order = hand.evaluate("() => { window.recording = false; return window.glideOrder; }")
    first = order.index("animate")
    assert "read" not in order[first:], order
    face_up = hand.eval_on_selector_all("#table [data-code]", "cs => cs.length")
    assert order[:first].count("read") >= face_up, order  # each face-up card's new place


def test_reduced_motion_animates_nothing(
    browser: Any, server: str, new_check: NewCheck, console: Console
) -> None:
    context = browser.new_context(viewport=VIEWPORT, reduced_motion="reduce")
    try:
        page = console.watch(context.new_page())
        page.add_init_script(RECORDER)
        check = new_check(seed=21)
        page.goto(check.url(server))
        view = check.view()
        wait_shows(page.main_frame, view)
        with page.expect_response(is_move):
            drag_move(page, page.main_frame, view, first_drag(view))
        view = check.view()
        wait_shows(page.main_frame, view)
        # An illegal drop: the card is simply back, without flying.
        source, target = illegal_drop(view)
        drop(page, source, target)
        expect(page.locator("#refusal")).to_be_visible()
        expect(page.locator(".drag-ghost")).to_have_count(0)
        assert page.evaluate("() => window.animated") == []
        assert page.evaluate("() => document.getAnimations().length") == 0
    finally:
        context.close()


def test_sound_is_off_until_switched_on_then_remembered(
    hand: Page, server: str, new_check: NewCheck
) -> None:
    hand.add_init_script(EAR)
    params, seed, line = winning_line("three-towers", [])
    check = new_check(seed=seed, params=params)
    hand.goto(check.url(server))
    frame = hand.main_frame
    view = check.view()
    wait_shows(frame, view)
    toggle = hand.locator("#sound")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    with hand.expect_response(is_move):
        drag_move(hand, frame, view, line[0])
    wait_shows(frame, check.view())
    # Off: no audio at all (not even an audio context).
    assert hand.evaluate("() => [window.contexts, window.notes.length]") == [0, 0]
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_text("Sound: on")
    assert hand.evaluate("() => localStorage.getItem('skillcheck.sound')") == "on"
    hand.reload()
    view = check.view()
    wait_shows(frame, view)
    expect(toggle).to_have_attribute("aria-pressed", "true")

    def heard() -> list[list[Any]]:
        notes: list[list[Any]] = hand.evaluate(
            "() => window.notes.splice(0).map(([w, f]) => [w, Math.round(f * 10) / 10])"
        )
        return notes

    # A refusal: two low square notes.
    source, target = illegal_drop(view)
    drop(hand, source, target)
    expect(hand.locator("#refusal")).to_be_visible()
    hand.wait_for_function("() => window.notes.length >= 2")
    assert [n[0] for n in heard()] == ["square", "square"]
    # A move: a short high note; the win: four rising notes.
    for code in line[1:]:
        view = check.view()
        with hand.expect_response(is_move):
            drag_move(hand, frame, view, code)
        wait_shows(frame, check.view())
        if code != line[-1]:
            hand.wait_for_function("() => window.notes.length > 0")
            assert heard()[0] == ["triangle", 660]
    assert check.view()["status"] == "won"
    hand.wait_for_function("() => window.notes.length >= 4")
    assert [n[1] for n in heard()] == [523.3, 659.3, 784.0, 1046.5]
    lost = new_check(seed=21)
    hand.goto(lost.url(server))
    wait_shows(frame, lost.view())
    hand.click("#concede")
    hand.click("#concede-confirm")
    expect(hand.locator("#result")).to_be_visible()
    hand.wait_for_function("() => window.notes.length >= 3")
    assert [n[1] for n in heard()] == [392, 311.1, 261.6]  # the loss: three falling notes
    expect(hand.locator("#assist")).to_be_hidden()  # nothing of it applies after the end
    # Switched off, it stays off.
    hand.goto(new_check(seed=22).url(server))
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert hand.evaluate("() => localStorage.getItem('skillcheck.sound')") is None
    hand.reload()
    expect(toggle).to_have_attribute("aria-pressed", "false")
