"""The GM's page (``/gm``, api/static/gm.*) in real Chromium against the real API.

A GM signs in, creates a quota check from the form built from the game's parameters, copies
the player's link; a second browser context plays the check to its end through the player's
page (the test reads the seed from the server's database and solves the deal with the
library); the GM's list shows the result live; a re-issued link locks the old one out. The QR
codes are decoded from screenshots with zxing-cpp.
"""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from browser_support import GM_KEY, expect_check_shown, open_door, parse_link, snap
from playwright.sync_api import Page, expect

from api.app import create_app
from api.pages import BUILD
from api.settings import Settings
from skillcheck.games.three_towers import ThreeTowers
from skillcheck.games.three_towers.solver import solve
from skillcheck.serialization import game_from_params

expect.set_options(timeout=10000)

LABEL = "Mira picks the lock"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def gm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The API served by uvicorn in a thread on a SQLite file this test may read (the seed)."""
    database = tmp_path_factory.mktemp("gm-page") / "skillcheck.sqlite3"
    settings = Settings(database_url=f"sqlite+aiosqlite:///{database}", gm_keys=(GM_KEY,))
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings), host="127.0.0.1", port=_free_port(), log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, name="uvicorn-gm-page", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the API did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{server.config.port}", database
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def decode_qr(png: bytes) -> str:
    import zxingcpp
    from PIL import Image

    found = zxingcpp.read_barcodes(Image.open(BytesIO(png)))
    assert found, "no QR code found in the screenshot"
    assert found[0].format == zxingcpp.BarcodeFormat.QRCode
    text: str = found[0].text
    return text


def sign_in(page: Page, base: str, key: str = GM_KEY) -> None:
    page.goto(f"{base}/gm")
    page.locator("#gm-key").focus()
    page.keyboard.type(key)
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_be_visible()


def fill_moons_check(page: Page, *, level: int, skill: int, quota: int) -> None:
    """Fill the form in for a Three Towers quota check of Moons."""
    page.select_option("#param-variant", "quota")
    page.select_option("#param-suit", "moons")
    page.fill("#param-level", str(level))
    page.fill("#param-skill", str(skill))
    page.fill("#param-quota", str(quota))


def click_create(page: Page) -> None:
    """Create the check once the odds are shown, so that the check is made with them in view
    (the test also waits for the page to settle under a loaded machine)."""
    expect(page.locator("#odds-words")).to_contain_text("%", timeout=60_000)
    expect(page.locator("#odds")).not_to_have_attribute("aria-busy", "true")
    page.click("#create-check")


def create_with_label(page: Page, base: str, label: str) -> str:
    """Sign in, create the form's check with ``label``, and give the new check's id (read from
    the player's link the page shows)."""
    sign_in(page, base)
    page.fill("#check-label", label)
    click_create(page)
    expect(page.locator("#created")).to_be_visible()
    link = page.locator("#created .link[data-role='player'] input").input_value()
    return link.split("/play/")[1].split("?")[0]


def line_for(database: Path, check_id: str) -> list[str]:
    """The solver's winning line for the check's deal, read from the server's database (a test
    may; the page never sees the seed before the end). Empty if the deal cannot be won."""
    with sqlite3.connect(database) as conn:
        seed, config = conn.execute(
            "SELECT seed, config FROM checks WHERE id = ?", (check_id,)
        ).fetchone()
    game = game_from_params("three-towers", json.loads(config)["params"])
    assert isinstance(game, ThreeTowers)
    deal = game.new_state(int(seed)).deal
    assert deal is not None
    solution = solve(game, deal)
    return [m.code for m in solution.moves] if solution.result == "win" else []


def test_a_gm_runs_a_check_from_the_page(
    browser: Any, gm_server: tuple[str, Path], shots: Path
) -> None:
    base, database = gm_server
    gm_context = browser.new_context(viewport={"width": 1280, "height": 900})
    gm_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    gm_context.set_default_timeout(10000)
    player_context = browser.new_context(viewport={"width": 1000, "height": 900})
    errors: list[str] = []
    try:
        gm = gm_context.new_page()
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.on("dialog", lambda dialog: dialog.accept())
        # A wrong key is refused in plain words; the right one opens the page.
        gm.goto(f"{base}/gm")
        expect(gm.locator("#signin")).to_be_visible()
        gm.fill("#gm-key", "not-a-key")
        gm.click("#sign-in")
        expect(gm.locator("#signin-problem")).to_contain_text("not a GM key")
        # a key no header can carry is refused as a key, not blamed on the network
        gm.fill("#gm-key", "wrong-key ✓")
        gm.click("#sign-in")
        expect(gm.locator("#signin-problem")).to_contain_text("That is not a GM key")
        sign_in(gm, base)
        assert GM_KEY not in gm.url
        assert gm.evaluate("sessionStorage.getItem('skillcheck.gm.key')") == GM_KEY
        # The form comes from the game's parameters; the odds follow the choices.
        expect(gm.locator("#param-variant")).to_be_visible()
        gm.select_option("#game", "three-towers")
        fill_moons_check(gm, level=6, skill=5, quota=2)
        expect(gm.locator("#odds-words")).to_contain_text("%", timeout=120_000)
        gm.click("#odds-details summary")
        expect(gm.locator("#odds-table tbody tr").first).to_be_visible()
        # one row per player profile (the shipped level-6 cell has all three), never one per
        # method cell of the answer
        expect(gm.locator("#odds-table tbody th")).to_have_text(
            ["A careful player", "A casual player", "The ceiling (perfect play)"]
        )
        gm.fill("#check-label", LABEL)
        gm.fill("#character", "Mira")
        snap(gm, shots, "gm-laptop-form")
        click_create(gm)
        expect(gm.locator("#created")).to_be_visible()
        expect(gm.locator("#created-what")).to_contain_text(LABEL)
        player_box = gm.locator("#created .link[data-role='player']")
        player_link = player_box.locator("input").input_value()
        _id, game, token = parse_link(player_link)
        assert game == "three-towers" and token.startswith("sc_play_")
        player_box.locator("button.copy").click()
        expect(player_box.locator(".link-status")).to_have_text("Copied.")
        copied = gm.evaluate("navigator.clipboard.readText()")
        assert copied == player_link
        check_id = parse_link(player_link)[0]
        # The QR code of the link decodes to the link.
        player_box.locator("button.show-qr").click()
        qr = player_box.locator("svg.qr")
        expect(qr).to_be_visible()
        assert decode_qr(qr.screenshot()) == player_link
        item = gm.locator(f"li[data-check='{check_id}']")
        expect(item.locator(".status")).to_have_text("In progress")
        expect(item.locator(".check-title")).to_contain_text(LABEL)
        expect(item.locator(".check-title")).to_contain_text("Mira")
        snap(gm, shots, "gm-laptop-created")

        # The player opens the copied link in another browser and plays the check to its end.
        player = player_context.new_page()
        player.on("pageerror", lambda error: errors.append(str(error)))
        player.goto(copied)
        expect_check_shown(player)
        line = line_for(database, check_id)
        if line:
            open_door(player, "keyboard")
        for number, code in enumerate(line, 1):
            player.fill("#move-input", code)
            player.press("#move-input", "Enter")
            expect(player.locator("#version")).to_have_text(str(number))
            # (the live event may show the move before its answer frees the controls)
            if number < len(line):
                expect(player.locator("#play")).to_be_enabled()
            if number == 1:  # the GM's list follows the moves live
                expect(item.locator(".moves")).to_contain_text("1 move")
        if not line:  # an unwinnable deal (rare with these parameters): the player concedes
            player.click("#concede")
            player.click("#concede-confirm")
        outcome = "Succeeded" if line else "Failed"
        expect(player.locator("#result")).to_be_visible()
        # The GM's list shows the result without a reload, with the tier when the server has one.
        expect(item.locator(".status")).to_have_text(outcome)
        final = httpx.get(
            f"{base}/v1/checks/{check_id}", headers={"Authorization": f"Bearer {GM_KEY}"}
        ).json()
        words = final.get("tier_text") or ("Success" if line else "Failure")
        expect(item.locator(".result-words")).to_contain_text(words)
        expect(gm.locator("#announce")).to_contain_text(outcome)
        # The revealed record: the page checks the commitment itself.
        item.locator(".record-button").click()
        verdict = item.locator(".verdict")
        expect(verdict).to_contain_text("Commitment verified")
        expect(verdict).to_have_attribute("data-verified", "true")
        snap(gm, shots, "gm-laptop-ended")

        # Re-issuing the player's link: the new link works, the old one is locked out at once.
        player_box.locator("button.renew").click()
        expect(player_box.locator(".link-status")).to_contain_text("old one no longer works")
        new_link = player_box.locator("input").input_value()
        assert new_link != player_link and parse_link(new_link)[2].startswith("sc_play_")
        player.goto("about:blank")
        player.goto(player_link)
        expect(player.locator("#fatal")).to_be_visible()
        old = httpx.get(
            f"{base}/v1/checks/{check_id}",
            headers={"Authorization": f"Bearer {parse_link(player_link)[2]}"},
        )
        assert old.status_code == 401
        player.goto("about:blank")
        player.goto(new_link)
        expect_check_shown(player)
        assert not errors, errors
    finally:
        gm_context.close()
        player_context.close()


def test_cancel_filter_and_watch_from_the_list(
    browser: Any, gm_server: tuple[str, Path], shots: Path
) -> None:
    base, _ = gm_server
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        errors: list[str] = []
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.on("dialog", lambda dialog: dialog.accept())
        check_id = create_with_label(gm, base, "Bram climbs the wall")
        item = gm.locator(f"li[data-check='{check_id}']")
        # Filters: the label filter hides what does not match, the status filter too.
        gm.fill("#filter-label", "bram")
        expect(item).to_be_visible()
        expect(gm.locator(".check")).to_have_count(1)
        gm.fill("#filter-label", "nobody-has-this-label")
        expect(gm.locator(".check")).to_have_count(0)
        gm.fill("#filter-label", "")
        gm.select_option("#filter-status", "in_progress")
        expect(item).to_be_visible()
        # Watch: the spectators' link this page made at creation opens the spectator's view.
        with context.expect_page() as opened:
            item.locator("a.watch").click()
        watcher = opened.value
        expect(watcher.locator("#role")).to_contain_text("watching")
        watcher.close()
        # Cancel from the list, with a reason, in a dialog; the status filter then hides it.
        item.locator("button.cancel").click()
        expect(gm.locator("#cancel-dialog")).to_be_visible()
        gm.fill("#cancel-reason", "the party ran away")
        gm.click("#cancel-confirm")
        expect(item).to_have_count(0)  # no longer in progress
        gm.select_option("#filter-status", "cancelled")
        expect(item.locator(".status")).to_have_text("Cancelled")
        item.locator(".record-button").click()
        expect(item.locator(".verdict")).to_contain_text("Commitment verified")
        # Signing in again in a new tab of the same session: the key is not asked again.
        gm.reload()
        expect(gm.locator("#app")).to_be_visible()
        assert not errors, errors
    finally:
        context.close()


#: The GM's two screens of the finding the tests below come from: a laptop and a 360 px phone.
DEVICES: dict[str, dict[str, Any]] = {
    "laptop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 360, "height": 740},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
}

#: What makes a control look like its neighbours: the Watch link and the Links button beside it
#: must agree on each (the height is compared apart, from the boxes).
LOOKS = (
    "border-top-width", "border-right-width", "border-bottom-width", "border-left-width",
    "border-top-style", "border-right-style", "border-bottom-style", "border-left-style",
    "border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
    "border-top-left-radius", "border-bottom-right-radius", "padding-top", "padding-right",
    "padding-bottom", "padding-left", "font-family", "font-size", "font-weight", "line-height",
    "color", "background-color", "box-shadow", "text-decoration-line", "cursor",
)  # fmt: skip
RING = ("outline-style", "outline-width", "outline-color", "outline-offset")


def looks(control: Any, properties: tuple[str, ...] = LOOKS) -> dict[str, Any]:
    """The computed ``properties`` of a control, and its height."""
    seen: dict[str, Any] = control.evaluate(
        "(el, names) => { const style = getComputedStyle(el);"
        " return Object.fromEntries(names.map((n) => [n, style.getPropertyValue(n)])); }",
        list(properties),
    )
    box = control.bounding_box()
    assert box is not None
    seen["height"] = box["height"]
    return seen


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_watch_looks_and_answers_like_the_buttons_beside_it(
    browser: Any, gm_server: tuple[str, Path], shots: Path, device: str
) -> None:
    """In the tab that made a check its Watch is a link (it opens the spectators' view in a
    new tab, as a link does); beside its Links and Cancel buttons it looked like plain text: no
    border, normal weight, no shadow, no hover. (gm.css drew its border in a colour no
    stylesheet defines any more, and left out the buttons' weight, shadow and hover.) It now
    matches the Links button in both colour schemes: border, height, font, padding, the hover
    border and the keyboard focus ring."""
    base, _ = gm_server
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        check_id = create_with_label(gm, base, "Corvin watches the gate")
        item = gm.locator(f"li[data-check='{check_id}']")
        watch = item.locator("a.watch")
        links = item.locator(".actions button", has_text="Links")
        expect(watch).to_be_visible()
        expect(item.locator(".watch-new")).to_be_hidden()
        item.scroll_into_view_if_needed()
        for scheme in ("light", "dark"):
            gm.emulate_media(color_scheme=scheme)
            gm.mouse.move(0, 0)  # (nothing hovered)
            item.screenshot(path=str(shots / f"gm-{device}-{scheme}-watch.png"))
            assert looks(watch) == looks(links), scheme
            # the pointer over it: the buttons' hover border
            watch.hover()
            hovered = looks(watch, ("border-top-color",))["border-top-color"]
            links.hover()
            assert hovered == looks(links, ("border-top-color",))["border-top-color"], scheme
            # the keyboard on it: the buttons' focus ring
            gm.mouse.move(0, 0)
            links.focus()
            gm.keyboard.press("Tab")
            expect(watch).to_be_focused()
            ring = looks(watch, RING)
            gm.keyboard.press("Shift+Tab")
            expect(links).to_be_focused()
            assert ring == looks(links, RING), scheme
            assert ring["outline-style"] != "none", ring
    finally:
        context.close()


def test_every_colour_gm_css_uses_is_defined(page: Page, gm_server: tuple[str, Path]) -> None:
    """A custom property gm.css uses that no stylesheet defines makes its whole declaration
    void: the Watch link and every text box of the form lost their borders so when play.css
    stopped defining ``--card-line``."""
    base, _ = gm_server
    page.goto(f"{base}/gm")
    expect(page.locator("#signin")).to_be_visible()
    css = httpx.get(f"{base}/play-assets/{BUILD}/gm.css").text
    used = sorted(set(re.findall(r"var\(\s*(--[\w-]+)", css)))
    assert "--line" in used
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        missing = page.evaluate(
            "(names) => names.filter((n) =>"
            " !getComputedStyle(document.documentElement).getPropertyValue(n).trim())",
            used,
        )
        assert missing == [], scheme
        border = page.locator("#gm-key").evaluate(
            "(el) => [getComputedStyle(el).borderTopStyle, getComputedStyle(el).borderTopWidth]"
        )
        assert border == ["solid", "1px"], scheme


def test_a_check_the_live_list_shows_first_still_knows_its_links(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """The live list can show a new check before the creating request answers; its entry then
    offered "make a new spectators' link" (breaking the one just handed out) instead of Watch.
    The answer is held back here until the list has shown the check."""
    base, _ = gm_server
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        sign_in(gm, base)
        label = "Ysolde reads the runes"
        entry = gm.locator(".check", has_text=label)

        def hold_the_answer(route: Any) -> None:
            if route.request.method != "POST":
                route.fallback()
                return
            answer = route.fetch()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not gm.evaluate(
                "(label) => [...document.querySelectorAll('.check')]"
                ".some((li) => li.textContent.includes(label))",
                label,
            ):
                time.sleep(0.05)
            route.fulfill(response=answer)

        gm.route("**/v1/checks", hold_the_answer)
        gm.fill("#check-label", label)
        click_create(gm)
        expect(gm.locator("#created")).to_be_visible()
        expect(entry.locator("a.watch")).to_be_visible()
        expect(entry.locator(".watch-new")).to_be_hidden()
    finally:
        context.close()


def test_phone_layout_fits(browser: Any, gm_server: tuple[str, Path], shots: Path) -> None:
    base, _ = gm_server
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True
    )
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        gm.on("dialog", lambda dialog: dialog.accept())
        gm.goto(f"{base}/gm")
        snap(gm, shots, "gm-phone-signin")
        sign_in(gm, base)
        gm.fill("#check-label", "Mira picks the lock")
        click_create(gm)
        expect(gm.locator("#created")).to_be_visible()
        gm.locator("#created .link[data-role='spectator'] button.show-qr").click()
        expect(gm.locator("#created svg.qr")).to_be_visible()
        width = gm.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the page is {width} px wide on a 360 px phone"
        snap(gm, shots, "gm-phone")
        link = gm.locator("#created .link[data-role='spectator'] input").input_value()
        assert decode_qr(gm.locator("#created svg.qr").screenshot()) == link
    finally:
        context.close()


def test_on_a_phone_the_create_button_stays_put_while_the_odds_come(
    browser: Any, gm_server: tuple[str, Path], shots: Path
) -> None:
    """On a phone the odds sit above the Create button. Their arriving, growing (a careful
    player's offer, the calibration box) or shrinking never moves the button on the screen, so
    a tap aimed at it lands on it; and the button is in reach without scrolling."""
    base, _ = gm_server
    context = browser.new_context(
        viewport={"width": 360, "height": 740},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        sign_in(gm, base)
        gm.select_option("#game", "three-towers")
        button = gm.locator("#create-check")
        expect(gm.locator("#param-level")).to_be_visible()
        where = button.bounding_box()
        assert where is not None and where["y"] + where["height"] <= 740, where
        offered: set[bool] = set()  # whether the careful player was offered, as sampled

        def change_level_and_watch(level: str, where: dict[str, float]) -> None:
            # (set from a script: filling the field would scroll it into view; here the odds
            # change while the GM looks elsewhere, as when they arrive after a scroll)
            gm.evaluate(
                "(level) => { const field = document.querySelector('#param-level');"
                " field.value = level;"
                " field.dispatchEvent(new Event('change', { bubbles: true })); }",
                level,
            )
            for _ in range(30):  # sampled while the odds are worked out and shown
                assert button.bounding_box() == where
                offered.add(gm.locator("#careful-line").is_visible())
                gm.wait_for_timeout(50)
            expect(gm.locator("#odds-words")).to_contain_text("%", timeout=60_000)
            expect(gm.locator("#odds")).not_to_have_attribute("aria-busy", "true")
            assert button.bounding_box() == where

        # At the top of the form the button waits at the foot of the screen.
        for level in ("7", "9"):
            change_level_and_watch(level, where)
        # (level 9 offers the careful player, level 7 does not: what the box holds changed)
        assert offered == {True, False}, "the odds never changed: nothing was tested"
        # Scrolled down to the odds, the button rests at the end of the form, and odds that
        # need less room and then more leave it there: the box keeps the room it has needed.
        gm.evaluate("document.querySelector('#odds').scrollIntoView({ block: 'start' })")
        rest = button.bounding_box()
        assert rest is not None and rest["y"] >= 0 and rest["y"] + rest["height"] <= 740, rest
        for level in ("7", "9"):
            change_level_and_watch(level, rest)
        snap(gm, shots, "gm-phone-odds")
        button.tap()
        expect(gm.locator("#created")).to_be_visible()
    finally:
        context.close()


NOTE = "You can create the check now: the odds will keep coming."


def set_level(gm: Page, level: str) -> None:
    """Change the level from a script, as a GM's typing does (filling the field would scroll
    it into view and move the phone's page under the button)."""
    gm.evaluate(
        "(level) => { const field = document.querySelector('#param-level');"
        " field.value = level;"
        " field.dispatchEvent(new Event('change', { bubbles: true })); }",
        level,
    )


def gap_between(a: dict[str, float], b: dict[str, float]) -> float:
    """How far apart two boxes are (negative: they overlap by that much)."""
    return max(
        b["x"] - (a["x"] + a["width"]),
        a["x"] - (b["x"] + b["width"]),
        b["y"] - (a["y"] + a["height"]),
        a["y"] - (b["y"] + b["height"]),
    )


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_while_the_odds_are_worked_out_create_says_it_need_not_wait(
    browser: Any, gm_server: tuple[str, Path], shots: Path, device: str
) -> None:
    """Odds outside the shipped tables take half a minute; Create stays enabled meanwhile (a
    check is what the form says, not its odds), and the GM did not know whether to wait. Now,
    while the odds are worked out (the server's 202, held here for as long as the test wants),
    a note beside the button says the check can be made now: it comes with the progress, goes
    when the odds come or are given up for other choices, and never moves the button. The
    button names it as its description, for a screen reader."""
    base, _ = gm_server
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(10000)
    working = {"now": True}

    def odds(route: Any) -> None:
        if working["now"]:
            route.fulfill(
                status=202,
                headers={"Retry-After": "0.5"},
                json={"status": "running", "done": 40, "total": 200},
            )
        else:
            route.fulfill(
                json={
                    "game": "three-towers", "cells": [],
                    "summary": "A casual player is likely to succeed (66 %)",
                }
            )  # fmt: skip

    try:
        gm = context.new_page()
        errors: list[str] = []
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.route("**/v1/odds?*", odds)
        sign_in(gm, base)
        gm.select_option("#game", "three-towers")
        button = gm.locator("#create-check")
        note = gm.locator("#create-note")
        expect(gm.locator("#odds-progress-text")).to_contain_text("40 of 200 test deals")
        expect(note).to_have_text(NOTE)
        expect(note).to_be_visible()
        expect(button).to_be_enabled()
        expect(button).to_have_attribute("aria-describedby", "create-note")
        expect(note).to_have_attribute("aria-live", "polite")
        button.scroll_into_view_if_needed()  # (a laptop's form is taller than its screen)
        where, said = button.bounding_box(), note.bounding_box()
        assert where is not None and said is not None
        # beside the button, in sight with it, over nothing of it
        assert -0.5 <= gap_between(where, said) <= 24, (where, said)
        height = DEVICES[device]["viewport"]["height"]
        assert said["y"] >= 0 and said["y"] + said["height"] <= height, said
        snap(gm, shots, f"gm-{device}-odds-working")
        # Choices the page refuses give the odds up: the note and the progress go with them.
        set_level(gm, "99")
        expect(gm.locator("#odds-words")).to_contain_text("Level must be at most")
        expect(note).to_be_hidden()
        expect(note).to_be_empty()
        expect(gm.locator("#odds-progress-line")).to_be_hidden()
        expect(gm.locator("#odds")).not_to_have_attribute("aria-busy", "true")
        assert button.bounding_box() == where
        # Other choices being worked out: the note is back; the odds come: it goes.
        set_level(gm, "7")
        expect(note).to_have_text(NOTE)
        assert button.bounding_box() == where
        working["now"] = False
        expect(gm.locator("#odds-words")).to_have_text(
            "A casual player is likely to succeed (66 %)"
        )
        expect(note).to_be_hidden()
        expect(gm.locator("#odds-progress-line")).to_be_hidden()
        assert button.bounding_box() == where
        # A check made while the odds are worked out is made (with what the form says), and
        # the odds keep coming.
        working["now"] = True
        set_level(gm, "8")
        expect(note).to_have_text(NOTE)
        assert button.bounding_box() == where
        gm.fill("#check-label", "Mira does not wait")
        with gm.expect_request("**/v1/checks") as posted:
            button.click()
        assert json.loads(posted.value.post_data or "{}")["params"]["level"] == 8
        expect(gm.locator("#created")).to_be_visible()
        expect(note).to_have_text(NOTE)
        expect(gm.locator("#odds-progress-line")).to_be_visible()
        working["now"] = False
        expect(gm.locator("#odds-words")).to_contain_text("66 %")
        expect(note).to_be_hidden()
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("length", [1, 14, 15, 60, 106, 122, 123, 152, 180, 213])
def test_the_qr_encoder_round_trips_through_a_reader(
    page: Page, gm_server: tuple[str, Path], length: int
) -> None:
    """Texts at and across the version boundaries (level M: 14 bytes in version 1, 213 in
    version 10), with non-ASCII characters, decode to themselves."""
    base, _ = gm_server
    page.goto(f"{base}/gm")
    stem = f"https://table.example/play/ünï#token={'x' * 300}"
    text = stem.encode()[:length].decode("utf-8", errors="ignore")
    version = page.evaluate(
        """async ([url, text]) => {
            const { qrSvg } = await import(url);
            const svg = qrSvg(text, "test");
            svg.id = "qr-under-test";
            document.body.prepend(svg);
            return Number(svg.dataset.version);
        }""",
        [f"{base}/play-assets/{BUILD}/qr.js", text],
    )
    assert 1 <= version <= 10
    assert decode_qr(page.locator("#qr-under-test").screenshot()) == text


def test_the_page_is_served_like_the_players(gm_server: tuple[str, Path]) -> None:
    base, _ = gm_server
    response = httpx.get(f"{base}/gm")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert response.headers["referrer-policy"] == "no-referrer"
    assert f"/play-assets/{BUILD}/gm.js" in response.text
    for name in ("gm.js", "gm.css", "qr.js"):
        asset = httpx.get(f"{base}/play-assets/{BUILD}/{name}")
        assert asset.status_code == 200, name
    # the page uses only documented endpoints: every /v1 path it names is in the OpenAPI document
    script = httpx.get(f"{base}/play-assets/{BUILD}/gm.js").text
    paths = json.loads(httpx.get(f"{base}/schema/openapi.json").text)["paths"]
    for used in ("/v1/checks", "/v1/checks/stream", "/v1/games", "/v1/games/{name}",
                 "/v1/odds", "/v1/checks/{check_id}/cancel", "/v1/checks/{check_id}/record",
                 "/v1/checks/{check_id}/tokens/player",
                 "/v1/checks/{check_id}/tokens/spectator"):  # fmt: skip
        assert used in paths, used
    # calibration is offered when the API's index links it (asked, not probed: no request the
    # browser would log as an error)
    assert '"/v1"' in script and "links?.calibrate" in script
    index = httpx.get(f"{base}/v1").json()
    assert index["links"]["calibrate"]["href"] == "/v1/calibrate"


def test_a_tampered_record_does_not_match(browser: Any, gm_server: tuple[str, Path]) -> None:
    """The page recomputes the commitment itself: a record whose salt was altered on the way
    (the answer rewritten in the browser) is reported as not matching."""
    base, _ = gm_server
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        gm.on("dialog", lambda dialog: dialog.accept())
        check_id = create_with_label(gm, base, "A tampered record")
        cancelled = httpx.post(
            f"{base}/v1/checks/{check_id}/cancel",
            json={"reason": "test"},
            headers={"Authorization": f"Bearer {GM_KEY}"},
        )
        assert cancelled.status_code == 200
        item = gm.locator(f"li[data-check='{check_id}']")
        expect(item.locator(".status")).to_have_text("Cancelled")  # live, from the stream

        def altered(route: Any) -> None:
            response = route.fetch()
            record = response.json()
            record["salt"] = "0" * 32
            route.fulfill(response=response, json=record)

        gm.route(f"**/v1/checks/{check_id}/record", altered)
        item.locator(".record-button").click()
        expect(item.locator(".verdict")).to_contain_text("Does not match")
        expect(item.locator(".verdict")).to_have_attribute("data-verified", "false")
    finally:
        context.close()


def test_odds_in_the_contracts_shape_with_progress_and_calibration(
    browser: Any, gm_server: tuple[str, Path], shots: Path
) -> None:
    """The odds contract of issue 11 (202 with progress while computing, then profiles,
    observed and a summary; GET /v1/calibrate) before the server that speaks it is merged:
    the answers are those the contract describes, served in the browser in place of the
    server's /v1/odds and /v1/calibrate."""
    base, _ = gm_server
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10000)
    polls: list[str] = []
    cell = {
        "params": {}, "method": "fast", "successes": 132, "trials": 200, "undecided": 0,
        "rate": 0.66, "ci95_low": 0.59, "ci95_high": 0.72,
        "profiles": [
            {"profile": "careful", "name": "A careful player", "rate": 0.8, "low": 0.74,
             "high": 0.85, "deals": 200, "words": "likely"},
            {"profile": "casual", "name": "A casual player", "rate": 0.66, "low": 0.59,
             "high": 0.72, "deals": 200, "words": "likely"},
            {"profile": "ceiling", "name": "The ceiling (perfect play)", "rate": 1.0,
             "low": 0.98, "high": 1.0, "deals": 200, "words": "almost sure"},
        ],
        "observed": {"checks": 5, "successes": 3, "rate": 0.6, "low": 0.23, "high": 0.88},
    }  # fmt: skip

    def odds(route: Any) -> None:
        polls.append(route.request.url)
        if route.request.headers.get("authorization") != f"Bearer {GM_KEY}":
            route.fulfill(status=401, json={"title": "Unauthorized"})
        elif len(polls) % 3:
            route.fulfill(
                status=202,
                headers={"Retry-After": "0.5"},
                json={"status": "running", "done": 60 * (len(polls) % 3), "total": 200},
            )
        else:
            route.fulfill(
                json={
                    "game": "three-towers", "cells": [cell],
                    "summary": "A casual player is likely to succeed (66 %)",
                }
            )  # fmt: skip

    calibrations: list[str] = []

    def calibrate(route: Any) -> None:
        calibrations.append(route.request.url)
        route.fulfill(
            json={
                "parameter": "quota", "best": 3,
                "choices": [
                    {"value": 2, "rate": 0.8, "low": 0.7, "high": 0.9, "words": "likely"},
                    {"value": 3, "rate": 0.61, "low": 0.5, "high": 0.7, "words": "even"},
                ],
            }
        )  # fmt: skip

    try:
        gm = context.new_page()
        gm.route("**/v1/odds?*", odds)
        gm.route("**/v1/calibrate?*", calibrate)
        sign_in(gm, base)
        expect(gm.locator("#odds-progress-text")).to_contain_text("of 200 test deals")
        expect(gm.locator("#odds-words")).to_have_text(
            "A casual player is likely to succeed (66 %)"
        )
        gm.click("#odds-details summary")
        rows = gm.locator("#odds-table tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.nth(0)).to_contain_text("A careful player")
        expect(rows.nth(0)).to_contain_text("likely")
        expect(gm.locator("#odds-observed")).to_contain_text("3 of 5 finished checks")
        assert all("game=three-towers" in url for url in polls)
        snap(gm, shots, "gm-laptop-odds-contract")
        # calibrate: offered because the server's index links it; it fills in the difficulty
        # it found, and /v1/calibrate was asked only then, with a target
        expect(gm.locator("#calibrate")).to_be_visible()
        assert calibrations == []
        gm.click("#calibrate-run")
        expect(gm.locator("#calibrate-result")).to_contain_text("Set Quota to 3")
        expect(gm.locator("#param-quota")).to_have_value("3")
        assert calibrations and all("target=" in url for url in calibrations), calibrations
    finally:
        context.close()


@pytest.mark.parametrize("has_it", [True, False], ids=["calibrates", "does-not"])
def test_calibrate_is_offered_only_where_the_server_has_it(
    browser: Any, gm_server: tuple[str, Path], has_it: bool
) -> None:
    """The page offers calibration when the API's index (GET /v1) links /v1/calibrate, and
    hides it on a server whose index does not (its answer rewritten in the browser). It learns
    this by asking, so signing in asks /v1/calibrate nothing and logs no error."""
    base, _ = gm_server
    assert "calibrate" in httpx.get(f"{base}/v1").json()["links"]
    context = browser.new_context()
    context.set_default_timeout(10000)
    try:
        gm = context.new_page()
        asked: list[str] = []
        errors: list[str] = []
        gm.on("request", lambda request: asked.append(request.url))
        gm.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        if not has_it:

            def without_calibrate(route: Any) -> None:
                index = route.fetch().json()
                del index["links"]["calibrate"]
                route.fulfill(json=index)

            gm.route(re.compile(r".*/v1$"), without_calibrate)
        sign_in(gm, base)
        expect(gm.locator("#param-variant")).to_be_visible()
        gm.wait_for_timeout(500)
        if has_it:
            expect(gm.locator("#calibrate")).to_be_visible()
        else:
            expect(gm.locator("#calibrate")).to_be_hidden()
        assert not [url for url in asked if "/v1/calibrate" in url], asked
        assert errors == []
    finally:
        context.close()


def new_laptop(browser: Any) -> tuple[Any, Page, list[str]]:
    """A laptop-sized context and page, and the page errors seen."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10000)
    errors: list[str] = []
    gm = context.new_page()
    gm.on("pageerror", lambda error: errors.append(str(error)))
    return context, gm, errors


def signed_in_laptop(browser: Any, base: str) -> tuple[Any, Page, list[str]]:
    """A laptop-sized context signed in, with Three Towers chosen, and the page errors seen."""
    context, gm, errors = new_laptop(browser)
    sign_in(gm, base)
    gm.select_option("#game", "three-towers")
    return context, gm, errors


def test_a_gm_asks_for_the_careful_player_and_gets_its_row(
    browser: Any, gm_server: tuple[str, Path], shots: Path
) -> None:
    """Parameters the shipped tables have no careful player for (level 9): the page offers
    to compute it, shows the progress, and adds the careful row beside the shipped ones."""
    base, _ = gm_server
    context, gm, errors = signed_in_laptop(browser, base)
    try:
        fill_moons_check(gm, level=9, skill=2, quota=1)
        expect(gm.locator("#odds-words")).to_contain_text("%", timeout=60_000)
        gm.click("#odds-details summary")
        expect(gm.locator("#odds-table tbody th")).to_have_text(
            ["A casual player", "The ceiling (perfect play)"]
        )
        expect(gm.locator("#careful-line")).to_be_visible()
        gm.click("#careful-run")
        expect(gm.locator("#odds-table tbody th")).to_have_text(
            ["A careful player", "A casual player", "The ceiling (perfect play)"],
            timeout=240_000,
        )
        expect(gm.locator("#careful-line")).to_be_hidden()
        row = gm.locator("#odds-table tbody tr").first
        expect(row.locator("td").nth(2)).to_have_text("10")  # the slow method's 10 deals
        snap(gm, shots, "gm-laptop-careful")
        assert errors == []
    finally:
        context.close()


def test_the_form_shows_only_the_options_of_the_chosen_variant(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """A quota check's suit, skill and quota hide when the GM goes back to the standard game
    (the API's ``applies_if``), are not sent, and come back as they were; the odds answer at
    once. (Before, they stayed filled in and every odds request was refused until the GM
    emptied them by hand.)"""
    base, _ = gm_server
    context, gm, errors = signed_in_laptop(browser, base)
    try:
        gm.select_option("#param-variant", "standard")
        for name in ("suit", "skill", "quota", "suited_cards"):
            expect(gm.locator(f"[data-param='{name}']")).to_be_hidden()
        fill_moons_check(gm, level=6, skill=3, quota=2)
        expect(gm.locator("[data-param='quota']")).to_be_visible()
        expect(gm.locator("#odds-words")).to_contain_text("%", timeout=60_000)
        gm.select_option("#param-variant", "ivory")
        expect(gm.locator("[data-param='suit']")).to_be_visible()
        expect(gm.locator("[data-param='quota']")).to_be_hidden()
        expect(gm.locator("#odds-words")).to_contain_text("%", timeout=60_000)
        expect(gm.locator("#odds-words")).not_to_contain_text("No odds")
        gm.select_option("#param-variant", "standard")
        expect(gm.locator("[data-param='suit']")).to_be_hidden()
        expect(gm.locator("#odds-words")).to_contain_text("%", timeout=60_000)
        expect(gm.locator("#odds-words")).not_to_contain_text("No odds")
        gm.fill("#check-label", "Mira picks the lock")
        with gm.expect_request("**/v1/checks") as posted:
            click_create(gm)
        sent = json.loads(posted.value.post_data or "{}")
        assert sent["params"].get("variant") == {"kind": "standard"}
        assert sent["label"] == "Mira picks the lock"
        expect(gm.locator("#created")).to_be_visible()
        expect(gm.locator("#check-label")).to_have_value("")  # the next check is another one
        gm.select_option("#param-variant", "quota")
        expect(gm.locator("#param-quota")).to_have_value("2")  # kept while hidden
        assert errors == []
    finally:
        context.close()


def test_calibrating_leaves_out_what_it_chooses_from_the_first_request(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """The odds answer names the option calibrating chooses (``difficulty``), so the page asks
    /v1/calibrate once, without the quota the GM had typed. (Before, it sent the quota, was
    refused with 422 and asked again: a console error each time.)"""
    base, _ = gm_server
    context, gm, errors = signed_in_laptop(browser, base)
    asked: list[str] = []
    gm.on("request", lambda r: asked.append(r.url) if "/v1/calibrate?" in r.url else None)
    try:
        fill_moons_check(gm, level=6, skill=3, quota=2)
        expect(gm.locator("#odds-words")).to_contain_text("%", timeout=60_000)
        gm.click("#calibrate-run")
        # every quota of a 3-card skill at level 6 is 99-100 %: the answer says 60 % is out of reach
        expect(gm.locator("#calibrate-result")).to_contain_text(
            "No quota gives 60 %: the closest is 3", timeout=60_000
        )
        assert len(asked) == 1 and "quota=" not in asked[0] and "skill=3" in asked[0], asked
        # an answer for this check says nothing of another: it goes when the form changes
        gm.fill("#param-level", "7")
        expect(gm.locator("#calibrate-result")).to_be_empty()
        gm.click("#calibrate-run")
        expect(gm.locator("#calibrate-result")).to_contain_text("Quota", timeout=60_000)
        gm.select_option("#game", "hanoy")
        expect(gm.locator("#calibrate-result")).to_be_empty()
        assert errors == []
    finally:
        context.close()


def test_a_gm_allows_hints_and_the_list_counts_them(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """The Allow hints box creates the check with hints; a hint the player takes shows in the
    GM's list live ("1 hint")."""
    import httpx

    base, _ = gm_server
    context, gm, errors = signed_in_laptop(browser, base)
    try:
        gm.fill("#check-label", "Bram reads the runes")
        gm.check("#allow-hints")
        click_create(gm)
        box = gm.locator("#created .link[data-role='player']")
        expect(box).to_be_visible()
        link = box.locator("input").input_value()
        check_id, _game, token = parse_link(link)
        player = {"Authorization": f"Bearer {token}"}
        view = httpx.get(f"{base}/v1/checks/{check_id}", headers=player)
        assert view.json()["hints"] is True
        hint = httpx.post(f"{base}/v1/checks/{check_id}/hint", headers=player)
        assert hint.status_code == 200, hint.text
        item = gm.locator(f"li[data-check='{check_id}']")
        expect(item).to_contain_text("0 moves, 1 hint")
        assert errors == []
    finally:
        context.close()


def test_a_game_chosen_while_the_first_still_loads_keeps_the_form(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """The first game's fields are late (its GET /v1/games/{name} is held back): Create waits
    for fields, the GM picks another game meanwhile, and when the late answer comes it changes
    nothing. (Before, it drew the first game's fields under the other game's name, and a
    Create pressed before any fields came threw in the page.)"""
    base, _ = gm_server
    context, gm, errors = new_laptop(browser)
    held: list[Any] = []
    try:
        gm.route("**/v1/games/three-towers", lambda route: held.append(route))
        sign_in(gm, base)
        expect(gm.locator("#game option")).not_to_have_count(0)
        deadline = time.monotonic() + 10  # (the page asks for them just after the list)
        while not held:
            assert time.monotonic() < deadline, "the first game's fields were not asked for"
            gm.wait_for_timeout(20)
        expect(gm.locator("#create-check")).to_be_disabled()
        gm.select_option("#game", "hanoy")
        expect(gm.locator("#param-cards")).to_be_visible()
        expect(gm.locator("#create-check")).to_be_enabled()
        with gm.expect_response("**/v1/games/three-towers"):
            held[0].continue_()
        # (the page has read the late answer: its body came, and a few tasks ran after it)
        gm.wait_for_function(
            """() => performance.getEntriesByType("resource")
                .some((e) => e.name.endsWith("/v1/games/three-towers") && e.responseEnd > 0)"""
        )
        gm.evaluate("() => new Promise((done) => setTimeout(done, 200))")
        assert gm.locator("#game").input_value() == "hanoy"
        expect(gm.locator("#param-cards")).to_be_visible()
        expect(gm.locator("#param-variant")).to_have_count(0)
        expect(gm.locator("#create-check")).to_be_enabled()
        assert errors == []
    finally:
        context.close()


def test_a_refused_parameter_is_named_as_the_form_names_it(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """A number past its range is caught on the page ("Quota must be at most 8."); one the
    server refuses because of another (quota above skill) comes back with the form's label,
    not the parameter's path ("variant.quota"). Either way the field is marked and no check
    is made."""
    base, _ = gm_server
    context, gm, errors = signed_in_laptop(browser, base)
    try:
        fill_moons_check(gm, level=6, skill=3, quota=9)
        # (the list is in: before, an empty list still loading made `before` 0)
        expect(gm.locator("#check-list")).to_have_attribute("aria-busy", "false")
        before = gm.locator("#check-list li").count()
        gm.click("#create-check")
        expect(gm.locator("#create-problem")).to_have_text("Quota must be at most 8.")
        expect(gm.locator("#param-quota")).to_have_attribute("aria-invalid", "true")
        gm.fill("#param-quota", "5")
        expect(gm.locator("#create-check")).to_be_enabled(timeout=60_000)
        gm.click("#create-check")
        problem = gm.locator("#create-problem")
        expect(problem).to_contain_text("The check was not created: ")
        expect(problem).to_contain_text("quota 5 is larger than skill 3")
        assert "variant." not in problem.inner_text()
        expect(gm.locator("#param-quota")).to_have_attribute("aria-invalid", "true")
        expect(gm.locator("#created")).to_be_hidden()
        assert gm.locator("#check-list li").count() == before
        assert errors == []
    finally:
        context.close()


def test_the_api_docs_page_asks_for_nothing_missing(
    browser: Any, gm_server: tuple[str, Path]
) -> None:
    """/schema carries the service's icon inline: it asks for no /favicon.ico (which was a
    404 in the console), and every request it makes is answered."""
    base, _ = gm_server
    context = browser.new_context()
    try:
        page = context.new_page()
        answers: list[tuple[str, int]] = []
        page.on("response", lambda r: answers.append((r.url, r.status)))
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{base}/schema")
        expect(page.locator("link[rel=icon]")).to_have_attribute(
            "href", re.compile(r"^data:image/svg\+xml,")
        )
        page.wait_for_load_state("networkidle")
        assert all(status < 400 for _, status in answers), answers
        assert not any(url.endswith("/favicon.ico") for url, _ in answers), answers
        assert errors == []
    finally:
        context.close()
