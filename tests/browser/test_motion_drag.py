"""Playing by hand (api/static/drag.js, motion.js): every registered game won by dragging cards
with a real mouse, an illegal drop refused, a touch drag, a spectator following a player who
drags, the page dragged inside a cross-origin iframe, and the keyboard focus after a move.
Every page here fails the test on any console error."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser_support import PARAMS, Check, expect_check_shown, open_door, snap
from motion_support import (
    RECORDER,
    Console,
    card_point,
    console_fixture,  # noqa: F401  (the fixtures console, hand, hand_context)
    drag_move,
    hand_context_fixture,  # noqa: F401
    hand_fixture,  # noqa: F401
    is_post,
    mouse_drag,
    move_of,
    pen_drag,
    pointer_kinds,
    record_pointer_kinds,
    settle,
    touch_drag,
    wait_shows,
    winning_line,
    zone_point,
)
from playwright.sync_api import Page, expect

from skillcheck.cards import DECKTET
from skillcheck.engine import GAMES

expect.set_options(timeout=8000)

NewCheck = Callable[..., Check]


def is_move(response: Any) -> bool:
    return bool(response.request.method == "POST" and "/moves" in response.url)


def posts(page: Any) -> list[str]:
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    return sent


def play_line(page: Any, frame: Any, check: Check, line: list[str], touch: bool = False) -> None:
    """Plays ``line`` by hand, each move once the page shows the view before it."""
    for played, code in enumerate(line, 1):
        view = check.view()
        with page.expect_response(is_move) as got:
            drag_move(page, frame, view, code, touch=touch)
        assert got.value.status == 200, got.value.text()
        after = check.view()
        assert after["moves_made"] == played
        wait_shows(frame, after)


# ---- every registered game, won by dragging ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_is_won_by_dragging(
    hand: Page, server: str, new_check: NewCheck, shots: Path, name: str
) -> None:
    params, seed, line = winning_line(name, GAMES[name].examples())
    check = new_check(seed=seed, params=params, game=name)
    hand.goto(check.url(server))
    expect_check_shown(hand)
    frame = hand.main_frame
    wait_shows(frame, check.view())
    play_line(hand, frame, check, line)
    won = check.view()
    assert won["status"] == "won", won["status"]
    expect(hand.locator("#result")).to_be_visible()
    settle(frame)
    snap(hand, shots, f"motion-{name}-won-by-dragging")


# ---- an illegal drop -----------------------------------------------------------------------


def test_an_illegal_drop_flies_back_says_why_and_sends_nothing(
    hand: Page, server: str, new_check: NewCheck, shots: Path
) -> None:
    check = new_check(seed=21)
    for code in ("d1", "d2", "d3", "d4", "d5"):
        view = check.move(code)
    legal = {m["to"] for m in view["moves"] if m["from"] == "deck"}
    wrong = next(f"t{n}" for n in range(1, 6) if f"t{n}" not in legal)
    hand.add_init_script(RECORDER)
    hand.goto(check.url(server))
    frame = hand.main_frame
    wait_shows(frame, view)
    settle(frame)
    sent = posts(hand)
    card = hand.locator("[data-zone='deck'] [data-action='card']").last
    where = (
        "c => { const r = c.getBoundingClientRect(), t = document.getElementById('board')"
        ".getBoundingClientRect(); return [r.left - t.left, r.top - t.top, r.width, r.height]; }"
    )
    before = card.evaluate(where)
    start, end = card_point(frame, "deck"), zone_point(frame, wrong)
    # Carried over the table: the places it may go are lit, and only those.
    hand.mouse.move(*start)
    hand.mouse.down()
    hand.mouse.move(*end, steps=6)
    lit = hand.eval_on_selector_all(".drop-target", "zs => zs.map(z => z.dataset.zone)")
    assert set(lit) == legal
    expect(hand.locator(".drag-ghost")).to_have_count(1)
    # the card in the hand is a card: nothing under it shows through
    assert hand.locator(".drag-ghost").evaluate("g => getComputedStyle(g).opacity") == "1"
    snap(hand, shots, "motion-carrying-a-card")
    hand.mouse.up()
    # It flies back (an animation of the carried card), then the card is where it was.
    backs = hand.evaluate(
        "() => window.animations.filter(a => a.id === 'skillcheck-back')"
        ".map(a => a.effect.getTiming().duration)"
    )
    assert backs and all(150 <= d <= 250 for d in backs), backs
    refusal = hand.locator("#refusal")
    expect(refusal).to_be_visible()
    name = next(z for z in view["board"]["zones"] if z["id"] == wrong)["label"]
    expect(refusal).to_contain_text(f"cannot go to {name}: it can go only to")
    settle(frame)
    expect(hand.locator(".drag-ghost")).to_have_count(0)
    expect(hand.locator(".drop-target")).to_have_count(0)
    assert card.evaluate(where) == before  # in its place on the table (the words above it)
    snap(hand, shots, "motion-illegal-drop-refused")
    # Nothing was sent, nothing changed.
    assert sent == []
    assert check.view()["version"] == 5
    wait_shows(frame, view)
    # Dropped back where it came from, or off the table: nothing happens either.
    start = card_point(frame, "deck")  # the words above the table moved it down
    mouse_drag(hand, start, (start[0] + 40, start[1] + 5))
    settle(frame)
    mouse_drag(hand, start, (5, 5))
    settle(frame)
    expect(hand.locator("#notice")).to_contain_text("Nothing moved")
    assert sent == [] and check.view()["version"] == 5
    # Escape puts a carried card back; its release then is no tap.
    start = card_point(frame, "deck")
    hand.mouse.move(*start)
    hand.mouse.down()
    hand.mouse.move(*zone_point(frame, wrong), steps=4)
    expect(hand.locator(".drag-ghost")).to_have_count(1)
    hand.keyboard.press("Escape")
    hand.mouse.up()
    settle(frame)
    expect(hand.locator(".drag-ghost")).to_have_count(0)
    expect(card).to_have_attribute("aria-pressed", "false")
    assert sent == []
    # A tap on the card still selects it (a click without movement is a tap).
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true")


# ---- a pen -----------------------------------------------------------------------------------


def test_a_pen_drags_a_card(hand: Page, server: str, new_check: NewCheck) -> None:
    """Issue 12: drag and drop with pointer events, mouse, touch and pen."""
    check = new_check(seed=21)
    hand.goto(check.url(server))
    frame = hand.main_frame
    view = check.view()
    wait_shows(frame, view)
    record_pointer_kinds(hand)
    code = next(m["code"] for m in view["moves"] if m["from"] == "deck" and m["to"])
    settle(frame)
    start, end = card_point(frame, "deck"), zone_point(frame, move_of(view, code)["to"])
    with hand.expect_response(is_move):
        pen_drag(hand, start, end)
    assert pointer_kinds(hand) == ["pen"]
    after = check.view()
    assert after["moves_made"] == 1 and after["board"] != view["board"]
    wait_shows(frame, after)


# ---- touch ---------------------------------------------------------------------------------


def test_a_finger_drags_a_card_without_scrolling_the_page(
    browser: Any, server: str, new_check: NewCheck, console: Console, shots: Path
) -> None:
    phone = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    try:
        page = console.watch(phone.new_page())
        check = new_check(seed=21)
        page.goto(check.url(server))
        frame = page.main_frame
        view = check.view()
        wait_shows(frame, view)
        record_pointer_kinds(page)
        code = next(m["code"] for m in view["moves"] if m["from"] == "deck" and m["to"])
        move = move_of(view, code)
        settle(frame)
        page.locator(f"[data-zone='{move['to']}']").first.scroll_into_view_if_needed()
        scrolled = page.evaluate("() => window.scrollY")
        start, end = card_point(frame, "deck"), zone_point(frame, move["to"])
        with page.expect_response(is_move):
            touch_drag(page, start, end)
        assert pointer_kinds(page) == ["touch"]
        assert page.evaluate("() => window.scrollY") == scrolled
        after = check.view()
        assert after["moves_made"] == 1 and after["board"] != view["board"]
        wait_shows(frame, after)
        # No focus ring was put on the table for a finger.
        assert page.evaluate("() => document.activeElement.closest('#board') === null")
        snap(page, shots, "motion-touch-drag-phone")
    finally:
        phone.close()


def test_a_card_held_at_the_screen_edge_scrolls_the_table_to_its_place(
    browser: Any, server: str, new_check: NewCheck, console: Console, shots: Path
) -> None:
    """On a short screen the towers lie below the deck: holding the card near the foot of the
    table in sight (just above the controls' bar stuck to the screen's foot) scrolls the page
    until the place shows, and the drop there plays the move."""
    short = browser.new_context(viewport={"width": 360, "height": 420}, reduced_motion="reduce")
    try:
        page = console.watch(short.new_page())
        check = new_check(seed=21)
        page.goto(check.url(server))
        frame = page.main_frame
        view = check.view()
        wait_shows(frame, view)
        code = next(m["code"] for m in view["moves"] if m["from"] == "deck" and m["to"])
        move = move_of(view, code)
        start = card_point(frame, "deck")
        bar = page.locator(".control-bar").bounding_box()
        assert bar and bar["y"] + bar["height"] >= 419, "the controls are not at the foot"
        foot = bar["y"]  # where the table stops showing
        assert start[1] < foot, "the card lies under the controls"
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(start[0] + 4, start[1] + 4)
        top = page.evaluate("() => window.scrollY")
        place = f"[data-zone='{move['to']}'] .cards"
        place_top = f'document.querySelector("{place}").getBoundingClientRect().top'
        assert page.evaluate(f"() => {place_top}") > foot - 30, "the place showed already"
        page.mouse.move(start[0], foot - 8, steps=5)  # near the table's foot, and held there
        # held until the place shows (the page scrolls on as long as the card is held there)
        page.wait_for_function(f"() => {place_top} < 200")
        assert page.evaluate("() => window.scrollY") > top + 50
        # away from the edge the page stops; then onto the place as it lies now
        page.mouse.move(start[0], 160, steps=2)
        end = zone_point(frame, move["to"])
        assert 0 < end[1] < foot, "the place scrolled out of sight"
        with page.expect_response(is_move):
            page.mouse.move(*end, steps=3)
            page.mouse.up()
        after = check.view()
        assert after["moves_made"] == 1 and after["board"] != view["board"]
        snap(page, shots, "motion-drag-autoscroll")
    finally:
        short.close()


# ---- a spectator, an iframe ------------------------------------------------------------------


def test_a_spectator_follows_a_player_who_drags(
    hand: Page, hand_context: Any, server: str, new_check: NewCheck, console: Console
) -> None:
    params, seed, line = winning_line("three-towers", [])
    check = new_check(seed=seed, params=params)
    watcher = console.watch(hand_context.browser.new_context().new_page())
    try:
        watcher.goto(check.url(server, check.spectator))
        hand.goto(check.url(server))
        for code in line[:3]:
            view = check.view()
            with hand.expect_response(is_move):
                drag_move(hand, hand.main_frame, view, code)
            after = check.view()
            wait_shows(watcher.main_frame, after)
            expect(watcher.locator("#notice")).to_contain_text(move_of(view, code)["text"])
        # The spectator's page has nothing to pick up.
        expect(watcher.locator(".draggable")).to_have_count(0)
    finally:
        watcher.context.close()


def test_a_card_is_dragged_inside_a_cross_origin_iframe(
    hand: Page, server: str, vtt: str, new_check: NewCheck, shots: Path
) -> None:
    check = new_check(seed=21)
    hand.goto(f"{vtt}/table?src={quote(check.url(server), safe='')}")
    frame = hand.wait_for_selector("iframe").content_frame()
    assert frame is not None and frame.url.startswith(server) and not hand.url.startswith(server)
    view = check.view()
    wait_shows(frame, view)
    code = next(m["code"] for m in view["moves"] if m["from"] == "deck" and m["to"])
    with hand.expect_response(is_move):
        drag_move(hand, frame, view, code)
    after = check.view()
    assert after["moves_made"] == 1
    wait_shows(frame, after)
    snap(hand, shots, "motion-dragged-in-an-iframe")
    # The concede dialog still puts the focus on "Keep playing" (without the autofocus attribute
    # that Chromium reports as an error in a cross-origin frame).
    frame.locator("#concede").click()
    expect(frame.locator("#concede-cancel")).to_be_focused()
    frame.locator("#concede-cancel").click()
    expect(frame.locator("#concede-dialog")).to_be_hidden()


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_plays_in_a_360px_frame_on_another_origin(
    hand: Page, server: str, vtt: str, new_check: NewCheck, shots: Path, name: str
) -> None:
    """Issue 12: the page runs in a 360-px iframe (a VTT's narrow popout, as Owlbear's popover
    or a Foundry window): it fits without sideways scrolling, a card is dragged to its place,
    and nothing is logged as an error (the ``hand`` page fails the test on any)."""
    check = new_check(seed=5, params=GAMES[name].examples()[0], game=name)
    hand.goto(f"{vtt}/table?src={quote(check.url(server), safe='')}&w=360&h=640")
    frame = hand.wait_for_selector("iframe").content_frame()
    assert frame is not None and frame.url.startswith(server) and not hand.url.startswith(server)
    view = check.view()
    wait_shows(frame, view)
    assert frame.evaluate("document.documentElement.clientWidth") == 360
    wide = frame.evaluate("document.documentElement.scrollWidth")
    assert wide <= 360, f"{name}'s page is {wide}px wide in a 360px frame"
    settle(frame)
    snap(hand, shots, f"motion-{name}-in-a-360px-frame")
    # a move with a place to go is dragged there; one without (turning a card up) is tapped
    move = next((m for m in view["moves"] if m["to"] is not None), view["moves"][0])
    with hand.expect_response(is_move):
        drag_move(hand, frame, view, move["code"])
    after = check.view()
    assert after["moves_made"] == 1 and after["version"] == 1
    wait_shows(frame, after)
    assert frame.evaluate("document.documentElement.scrollWidth") <= 360


# ---- the keyboard after a move -------------------------------------------------------------


def test_after_a_move_the_keys_act_on_the_table(
    hand: Page, server: str, new_check: NewCheck
) -> None:
    check = new_check(seed=21, params={**PARAMS, "undo": "full"})
    hand.goto(check.url(server))
    view = check.view()
    wait_shows(hand.main_frame, view)
    code = next(m for m in view["moves"] if m["from"] == "deck" and m["to"])
    open_door(hand, "keyboard")
    hand.fill("#move-input", code["code"])
    with hand.expect_response(is_post("/moves")):
        hand.press("#move-input", "Enter")
    after = check.view()
    assert after["moves_made"] == 1
    wait_shows(hand.main_frame, after)
    # The focus left the move box for the moved card's new place.
    focused = hand.evaluate(
        "() => document.activeElement.closest('[data-zone]')?.dataset.zone ?? null"
    )
    assert focused == code["to"]
    hand.keyboard.press("u")
    expect(hand.locator("#move-input")).to_have_value("")
    undone = eventually(check, lambda v: v["moves_made"] == 0)
    wait_shows(hand.main_frame, undone)


def eventually(check: Check, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The check's view once ``test`` holds for it (within 5 s)."""
    deadline = time.monotonic() + 5
    while True:
        view = check.view()
        if test(view) or time.monotonic() > deadline:
            assert test(view), view
            return view
        time.sleep(0.05)


# ---- any board: slots, several moves between two places, one-tap moves ----------------------


def made_up(codes: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A board of overlapping slots over a stock and a waste, with moves the page must handle:
    one from a slot to the waste, two between the same pair of places, one that goes nowhere."""

    def zone(id: str, label: str, layout: str, cards: list[Any], **more: Any) -> dict[str, Any]:
        base = {"id": id, "label": label, "layout": layout, "cards": cards, "count": len(cards),
                "accepts": False, "x": None, "y": None, "extras": {}}  # fmt: skip
        return {**base, **more}

    zones = [
        zone("a", "Left card", "slot", [codes[0]], x=0, y=0),
        zone("b", "Right card", "slot", [codes[1]], x=2, y=0),
        zone("c", "Lower card", "slot", [codes[2]], x=1, y=1),
        zone("stock", "Stock", "pile", [], count=9),
        zone("waste", "Waste", "pile", [codes[3]], accepts=True),
    ]
    board = {"layout": "rows", "goal": "Clear the cards.", "zones": zones, "meters": []}
    moves = [
        {"code": "c-w", "from": "c", "to": "waste", "text": "The lower card onto the waste"},
        {"code": "a-w1", "from": "a", "to": "waste", "text": "The left card, face up"},
        {"code": "a-w2", "from": "a", "to": "waste", "text": "The left card, face down"},
        {"code": "deal", "from": "stock", "to": None, "text": "Turn up the stock's top card"},
    ]
    return board, moves


def test_drags_on_any_board(hand: Page, server: str, new_check: NewCheck, shots: Path) -> None:
    check = new_check(seed=21)
    view = check.view()
    codes = [c.code for c in DECKTET if c.rank is not None][6:10]
    board, moves = made_up(codes)
    view.update(board=board, moves=moves)
    sent: list[Any] = []

    def answer(route: Any) -> None:
        if route.request.method == "POST":
            sent.append(route.request.post_data_json["move"])
            view["version"] += 1
        route.fulfill(status=200, content_type="application/json", body=json.dumps(view))

    hand.route(re.compile(rf".*/v1/checks/{check.check_id}(/moves)?$"), answer)
    # (The real stream stays: the real check never changes, so it brings nothing.)
    hand.goto(check.url(server))
    frame = hand.main_frame
    wait_shows(frame, view)
    # Only cards with somewhere to go can be picked up; the stock is tapped.
    draggable = hand.eval_on_selector_all(
        ".draggable", "cs => cs.map(c => c.closest('[data-zone]').dataset.zone)"
    )
    assert sorted(draggable) == ["a", "c"]
    # A slot's card dragged to the waste plays its one move.
    with hand.expect_response("**/moves"):
        drag_move(hand, frame, view, "c-w")
    assert sent == ["c-w"]
    # Two moves join the left card and the waste: the drop asks which, and sends nothing yet.
    settle(frame)
    mouse_drag(hand, card_point(frame, "a"), zone_point(frame, "waste"))
    choice = hand.locator("#selection button[data-action='move']")
    expect(choice).to_have_count(2)
    expect(choice.first).to_have_text("The left card, face up")
    assert sent == ["c-w"]
    snap(hand, shots, "motion-drop-asks-which-move")
    with hand.expect_response("**/moves"):
        choice.last.click()
    assert sent == ["c-w", "a-w2"]
    # A move that goes nowhere in particular: one tap.
    with hand.expect_response("**/moves"):
        drag_move(hand, frame, view, "deal")
    assert sent == ["c-w", "a-w2", "deal"]
