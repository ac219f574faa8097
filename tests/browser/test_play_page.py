"""The player's page (api/pages.py, api/static/) in real Chromium against the real API.

Each test creates checks through the HTTP API with a GM key and a fixed seed, then drives the
page like a player: clicks, keys, the in-page dialog; and checks the server's state over HTTP.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser_support import (
    PARAMS,
    Check,
    click_move,
    expect_check_shown,
    no_overlaps,
    open_door,
    open_with_view_held,
    page_cards,
    result_heading,
    shown_cards,
    snap,
    zone_card,
    zone_head,
)
from playwright.sync_api import Page, expect

from skillcheck.cards import DECKS, card
from skillcheck.engine import GAMES

expect.set_options(timeout=8000)

NewCheck = Callable[..., Check]


def open_page(page: Page, server: str, check: Check, token: str | None = None) -> None:
    page.goto(check.url(server, token))
    expect_check_shown(page)


#: The deck's card (a button for the player) and a tower's head, in Three Towers' board.
DECK = zone_card("deck")


def tower(number: int | str) -> str:
    return zone_head(f"t{number}")


def wait_version(page: Page, version: int) -> None:
    expect(page.locator("#version")).to_have_text(str(version))


# ---- the page and its assets -----------------------------------------------------------------


def test_page_shows_the_observation(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=11, label="Mira")
    for code in ("d1", "d2", "d3"):
        check.move(code)
    view = check.view()
    response = page.goto(check.url(server))
    assert response is not None and response.ok
    headers = response.headers
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-cache"
    assert headers["content-type"].startswith("text/html")
    expect_check_shown(page)
    obs = view["observation"]
    assert page_cards(page) == shown_cards(view)
    assert [page_cards(page)[f"t{n}"] for n in range(1, 6)] == obs["towers"]
    top = obs["top_card"]
    expect(page.locator(f"{DECK} .face")).to_have_attribute("data-code", top)
    # the deck's top card is named where screen readers read it, on the control that holds it
    deck_top = page.locator(".zone[data-zone='deck'] .card")
    expect(deck_top).to_have_accessible_name(re.compile(re.escape(card(top).short_name)))
    # The board's meters: the quota's progress as a bar, and the cards left in the deck.
    expect(page.locator("[data-meter='cards'] .meter-text")).to_have_text(
        f"{obs['cards_left']} in the deck"
    )
    quota = page.locator("[data-meter='quota']")
    expect(quota).to_contain_text("Moons tower")
    meter = next(m for m in view["board"]["meters"] if m["id"] == "quota")
    expect(quota.locator(".meter-text")).to_have_text(meter["text"])
    expect(quota.locator("progress")).to_have_attribute("max", "3")
    expect(page.locator("#moves-made")).to_have_text("3")
    expect(page.locator("#version")).to_have_text("3")
    expect(page.locator("#status")).to_have_text("In progress")
    expect(page.locator("#label")).to_have_text("— Mira")
    expect(page.locator("#goal")).to_contain_text("a tower of 3 cards that all bear Moons")
    expect(page.locator("#goal")).to_have_text(view["board"]["goal"])
    expect(page.locator("#title")).to_have_text("Three Towers check")
    # A card reads as its name for screen readers, and shows its suits as symbols.
    first = obs["towers"][0][-1]
    button = page.locator(zone_card("t1"))
    expect(button).to_have_attribute("aria-label", re.compile(re.escape(card(first).name)))
    assert page.locator(f"{zone_card('t1')} .suit").count() == len(card(first).suits)
    # The strict policy travels in a <meta> element; nothing inline runs.
    policy = page.get_attribute("meta[http-equiv='Content-Security-Policy']", "content")
    assert policy is not None and "script-src 'self'" in policy and "unsafe" not in policy
    assert page.locator("script:not([src])").count() == 0


STATIC = Path(__file__).resolve().parents[2] / "api" / "static"


def _imported_modules(entry: str) -> set[str]:
    """The page modules ``entry`` imports, directly or not, read from the files themselves."""
    found: set[str] = set()
    pending = [entry]
    while pending:
        source = (STATIC / pending.pop()).read_text()
        for name in re.findall(r'^import [^;]*? from "\./([\w.-]+\.js)";', source, re.MULTILINE):
            if name not in found:
                found.add(name)
                pending.append(name)
    return found


def test_assets_are_served_with_types_and_cache_headers(http: Any, server: str) -> None:
    html = http.get("/play/anything").text
    links = re.findall(r'(?:src|href)="(/play-assets/[^"]+)"', html)
    names = {link.rsplit("/", 1)[1] for link in links}
    modules = _imported_modules("play.js")
    assert {"api.js", "cards.js", "drag.js", "motion.js"} <= modules
    assert names == {"play.css", "motion.css", "play.js"} | modules
    # Every module the page imports is preloaded, so none waits for the one that imports it;
    # so is the table of every registered game's deck, so it is in hand before the view.
    preload_module = r'<link rel="modulepreload" href="/play-assets/[^/]+/([^"]+)">'
    preloaded = set(re.findall(preload_module, html))
    assert preloaded == modules
    preload_deck = r'<link rel="preload" href="/v1/decks/([^"]+)" as="fetch" crossorigin>'
    decks = set(re.findall(preload_deck, html))
    assert decks == {cls.deck_name for cls in GAMES.values() if getattr(cls, "deck_name", None)}
    for link in links:
        got = http.get(link)
        assert got.status_code == 200
        assert got.headers["cache-control"] == "public, max-age=31536000, immutable"
    # The icon is not in the HTML (the page adds it once its table is on screen) but is served.
    build = links[0].split("/")[2]
    icon = http.get(f"/play-assets/{build}/icon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    js = http.get(next(link for link in links if link.endswith(".js")))
    assert js.headers["content-type"].startswith("text/javascript")
    stale = http.get("/play-assets/0000/play.js")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert http.get("/play-assets/0000/nothing.js").status_code == 404
    table = http.get("/v1/cards").json()
    assert len(table["cards"]) == 45
    assert {"code": "6MW", "name": "the Lunatic"}.items() <= table["cards"][18].items()
    # Every deck's table, for the page to draw any game's cards; an unknown deck is a problem.
    for name, deck in DECKS.items():
        got = http.get(f"/v1/decks/{name}")
        assert got.status_code == 200
        assert got.headers["cache-control"] == "public, max-age=86400"
        assert got.json() == deck.table()
    assert http.get("/v1/decks/decktet").json()["cards"][18]["name"] == "the Lunatic"
    missing = http.get("/v1/decks/tarot")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    assert missing.json()["code"] == "unknown-deck" and "decktet" in missing.json()["detail"]
    # The page's HTML names every registered game's deck (and page module, if it has one).
    games = json.loads(html_lib.unescape(re.search(r'data-games="([^"]*)"', html)[1]))
    assert set(games) == set(GAMES)
    for name, cls in GAMES.items():
        assert games[name]["deck"] == cls.deck_name and games[name]["title"] == cls.title
        module = games[name]["module"]
        if module is not None:
            got = http.get(f"/play-assets/{build}/{module}")
            assert got.status_code == 200 and got.headers["content-type"].startswith(
                "text/javascript"
            )


def test_the_page_uses_what_it_preloads(page: Page, server: str, new_check: NewCheck) -> None:
    """The deck tables and modules are each fetched once: the page's own requests are the
    preloads (same URL, mode and credentials), not second copies."""
    check = new_check(label="preloads")
    open_page(page, server, check)
    expect_check_shown(page)
    fetched = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => e.name.split('#')[0])"
    )
    decks = [url for url in fetched if "/v1/decks/" in url]
    assert sorted(decks) == sorted(set(decks)) and decks, fetched
    modules = [url for url in fetched if url.endswith(".js")]
    assert sorted(modules) == sorted(set(modules))
    assert len(modules) == 1 + len(_imported_modules("play.js"))


def test_the_icon_comes_after_the_table(page: Page, server: str, new_check: NewCheck) -> None:
    """A browser decodes an SVG icon on the page's main thread once the page has loaded, when
    the view tends to arrive on a phone's network: the page's icon is empty (so no
    /favicon.ico is asked for) until the first table is on screen (docs/performance.md)."""
    check = new_check(label="icon")
    asked: list[str] = []
    problems: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    release = open_with_view_held(page, check.url(server), check.check_id)
    page.wait_for_load_state("load")
    icon = page.locator("link[rel=icon]")
    expect(icon).to_have_attribute("href", "data:,")
    release()
    expect_check_shown(page)
    expect(icon).to_have_count(1)
    expect(icon).to_have_attribute("href", re.compile(r"icon\.svg$"))
    href = icon.evaluate("(link) => link.href")
    assert re.fullmatch(rf"{re.escape(server)}/play-assets/[^/]+/icon\.svg", href), href
    assert page.evaluate("(url) => fetch(url).then((r) => r.status)", href) == 200
    page.wait_for_timeout(300)
    assert not [url for url in asked if url.endswith("/favicon.ico")], asked
    assert problems == []


def test_the_page_is_unseen_and_inert_until_the_view(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """While the view is on its way the page's own parts are laid out but transparent and
    hidden from screen readers; a control pressed unseen sends nothing; the view shows them
    (docs/performance.md, "2026-12-03, second session")."""
    check = new_check(label="unseen")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method != "GET" else None)
    release = open_with_view_held(page, check.url(server), check.check_id)
    parts = ["#header", "#main", "#footer"]
    for part in parts:
        assert page.locator(part).evaluate("(e) => getComputedStyle(e).opacity") == "0", part
        expect(page.locator(part)).to_have_attribute("aria-hidden", "true")
    # nothing a screen reader is offered but the loading notice
    expect(page.get_by_role("button", name="Concede…")).to_have_count(0)
    expect(page.get_by_role("status")).to_have_text("Loading the check…")
    # pressed unseen (a blind tap, a stray key): nothing is asked of the server
    for control in ["#undo", "#concede"]:
        page.locator(control).dispatch_event("click")
    page.keyboard.press("u")
    assert not page.locator("#concede-dialog").evaluate("(d) => d.open")
    release()
    expect_check_shown(page)
    for part in parts:
        assert page.locator(part).evaluate("(e) => getComputedStyle(e).opacity") == "1", part
        expect(page.locator(part)).not_to_have_attribute("aria-hidden", "true")
    expect(page.get_by_role("button", name="Concede…")).to_be_visible()
    wait_version(page, 0)
    assert sent == []


def test_each_game_is_rehearsed_unseen_and_the_check_replaces_it(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """While the view is on its way the page draws every registered game's sample view (a
    made-up check, ``GET /v1/games/{name}/sample-view``) into the still unseen page and lays it
    out, so that the check's own table is quicker to draw (docs/performance.md, "2026-12-03,
    third session"). Nothing of it is seen, offered to a screen reader or sent, and the check's
    view replaces all of it."""
    check = new_check(seed=21, label="rehearsed")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method != "GET" else None)
    names = json.dumps(list(GAMES))
    rehearsed = (
        f"() => {names}.every((name) =>"
        " performance.getEntriesByName(`skillcheck:rehearsed:${name}`).length > 0)"
    )
    release = open_with_view_held(
        page, check.url(server), check.check_id, rehearsed, "every game's rehearsal"
    )
    assert page.locator("#table .zone").count() > 0, "no sample table was drawn"
    for part in ["#header", "#main", "#footer"]:
        assert page.locator(part).evaluate("(e) => getComputedStyle(e).opacity") == "0", part
        expect(page.locator(part)).to_have_attribute("aria-hidden", "true")
    expect(page.get_by_role("status")).to_have_text("Loading the check…")
    # the sample's controls are drawn, unseen: pressed, they still do nothing
    for control in ["#undo", "#concede"]:
        page.locator(control).dispatch_event("click")
    page.locator("#table .zone").first.dispatch_event("click")
    page.keyboard.press("u")
    assert not page.locator("#concede-dialog").evaluate("(d) => d.open")
    release()
    expect_check_shown(page)
    wait_version(page, 0)
    view = check.view()
    assert page_cards(page) == shown_cards(view)
    meters = page.eval_on_selector_all("#meters .meter-text", "ts => ts.map(t => t.textContent)")
    assert meters == [m["text"] for m in view["board"]["meters"]]
    expect(page.locator("#goal")).to_have_text(view["board"]["goal"])
    expect(page.locator("#label")).to_have_text("— rehearsed")
    expect(page.locator("#seed-fact")).to_be_visible()  # (this check's seed was chosen)
    assert sent == []


@pytest.mark.parametrize(
    ("hint", "first"),
    [
        pytest.param("three-towers", "three-towers", id="the-check's-game"),
        pytest.param("tripeaks", "tripeaks", id="another-game"),
        pytest.param("no-such-game", None, id="an-unknown-game"),
    ],
)
def test_the_game_the_link_names_is_prepared_first_and_the_view_decides(
    page: Page, server: str, new_check: NewCheck, hint: str, first: str | None
) -> None:
    """A link's ``?game=`` (the API's links carry it) is a hint: while the view is on its way
    the page draws ahead that game's deck and rehearses that game's table before any other
    game's deck or table. Without a hint (an unknown name is none) every deck is drawn ahead
    before any rehearsal. A wrong hint costs time, never the check: the view decides what is
    drawn (docs/play-page.md)."""
    check = new_check(seed=21)  # a Three Towers check
    done = (
        f"() => {json.dumps(list(GAMES))}.every((name) =>"
        " performance.getEntriesByName(`skillcheck:rehearsed:${name}`).length > 0)"
    )
    release = open_with_view_held(
        page, check.url(server, game=hint), check.check_id, done, "every game's rehearsal"
    )
    marks = page.evaluate(
        "() => performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])"
    )
    names = [name for name, _ in marks]
    assert len(names) == len(set(names)), f"a step was done twice: {names}"
    at = dict(marks)
    rehearsals = sorted(GAMES, key=lambda name: at[f"skillcheck:rehearsed:{name}"])
    decks = {cls.deck_name for cls in GAMES.values()}
    warmed = {deck: at[f"skillcheck:fonts-warmed:{deck}"] for deck in decks}
    if first is None:
        assert max(warmed.values()) < at[f"skillcheck:rehearsed:{rehearsals[0]}"]
    else:
        own = GAMES[first].deck_name
        assert rehearsals[0] == first
        assert warmed[own] < at[f"skillcheck:rehearsed:{first}"]
        # the hinted game's table is rehearsed before any other deck is drawn ahead
        assert all(at[f"skillcheck:rehearsed:{first}"] < warmed[d] for d in decks - {own})
    release()
    expect_check_shown(page)
    wait_version(page, 0)
    assert page_cards(page) == shown_cards(check.view())


@pytest.mark.console_errors(r"status of 40[14] .*/v1/checks/[^/ ]+\)$")  # the refused tokens
def test_missing_and_wrong_tokens_say_so(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check()
    page.goto(f"{server}/play/{check.check_id}")
    expect(page.locator("#fatal")).to_be_visible()
    # a problem on screen has its icon
    expect(page.locator("link[rel=icon]")).to_have_attribute("href", re.compile(r"icon\.svg$"))
    expect(page.locator("#fatal")).to_contain_text("no access token")
    page.goto(f"{server}/play/{check.check_id}#token=sc_play_wrong")
    expect(page.locator("#fatal")).to_contain_text("does not open a check")
    expect(page.locator("#game")).to_be_hidden()


# ---- playing ---------------------------------------------------------------------------------


def test_click_plays_a_legal_move(
    page: Page, server: str, new_check: NewCheck, shots: Path
) -> None:
    check = new_check(seed=21)
    open_page(page, server, check)
    before = check.view()
    page.click(DECK)
    expect(page.locator(DECK)).to_have_attribute("aria-pressed", "true")
    snap(page, shots, "three-towers-desktop-selected")
    legal = {m["to"] for m in before["moves"] if m["from"] == "deck"}
    targets = page.eval_on_selector_all(".zone.target", "zs => zs.map(z => z.dataset.zone)")
    assert set(targets) == legal
    with page.expect_request("**/moves") as sent:
        page.click(tower(2))
    # The move the view offers from the deck to tower 2, sent by its code.
    move = next(m for m in before["moves"] if m["from"] == "deck" and m["to"] == "t2")
    assert move["code"] == "d2"
    assert sent.value.post_data_json == {"move": "d2", "expected_version": 0}
    wait_version(page, 1)
    view = check.view()
    assert view["version"] == 1 and len(view["observation"]["towers"][1]) == 1
    assert page_cards(page) == shown_cards(view)
    expect(page.locator("#notice")).to_contain_text(move["text"])


def test_a_card_with_one_place_to_go_plays_on_one_tap(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """Tri Peaks' board says one_tap (every card goes to the waste): a tap on the stock, or on
    a card that can move, plays its move; it used to select it and wait for a tap on the waste."""
    check = new_check(seed=3, params={}, game="tripeaks")
    open_page(page, server, check)
    before = check.view()
    assert before["board"]["one_tap"] is True
    stock = next(m for m in before["moves"] if m["from"] == "stock")
    with page.expect_request("**/moves") as sent:
        page.click("[data-zone='stock']")
    assert sent.value.post_data_json == {"move": stock["code"], "expected_version": 0}
    wait_version(page, 1)


@pytest.mark.console_errors(r"status of 422 .*/moves\)$")  # the refused move
def test_illegal_attempt_is_refused_and_changes_nothing(
    page: Page, server: str, new_check: NewCheck
) -> None:
    check = new_check(seed=21)
    for code in ("d1", "d2", "d3", "d4", "d5"):
        view = check.move(code)
    legal = {m["to"] for m in view["moves"] if m["from"] == "deck"}
    number = next(n for n in range(1, 6) if f"t{n}" not in legal)
    open_page(page, server, check)
    posts: list[str] = []
    page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    # Tapping a place the card cannot go: the view's moves say so, and nothing is sent.
    page.click(DECK)
    page.click(tower(number))
    refusal = page.locator("#refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("Not a legal move")
    expect(refusal).to_contain_text(f"cannot go to Tower {number}")
    assert posts == []
    # Typed, the same move reaches the server, which refuses it with the rule it breaks.
    open_door(page, "keyboard")
    page.fill("#move-input", f"d{number}")
    page.press("#move-input", "Enter")
    expect(refusal).to_contain_text("Illegal move")
    expect(refusal).to_contain_text("cannot go on")
    assert check.view()["version"] == 5
    expect(page.locator("#version")).to_have_text("5")
    assert page_cards(page) == shown_cards(view)
    # A typed move that cannot be read is refused with the server's explanation too.
    page.fill("#move-input", "zz")
    page.press("#move-input", "Enter")
    expect(refusal).to_contain_text("Unreadable input")
    assert check.view()["version"] == 5


def test_a_move_typed_while_the_last_is_in_flight_goes_next(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """Typed fast, the second code is not lost while the first is being answered: it waits
    its turn and is sent on the new version (found in review: Enter did nothing while busy)."""
    check = new_check(seed=21, params={**PARAMS, "undo": "full"})
    open_page(page, server, check)
    open_door(page, "keyboard")
    release: list[Any] = []

    # hold the first move's answer back until the second code is typed
    def hold_the_first(route: Any) -> None:
        if release:
            route.continue_()
        else:
            release.append(route)

    page.route("**/moves", hold_the_first)
    page.fill("#move-input", "d3")
    page.press("#move-input", "Enter")
    for _ in range(100):  # until the first move is held
        if release:
            break
        page.wait_for_timeout(50)
    assert len(release) == 1
    page.fill("#move-input", "d4")
    page.press("#move-input", "Enter")
    expect(page.locator("#notice")).to_contain_text("d4 goes next")
    release[0].continue_()
    wait_version(page, 2)
    view = check.view()
    assert view["moves_made"] == 2
    assert view["observation"]["towers"][2] and view["observation"]["towers"][3]


def test_undo_and_keyboard_play(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=21, params={**PARAMS, "undo": "full"})  # deck moves too
    open_page(page, server, check)
    expect(page.locator("#undo")).to_be_disabled()
    open_door(page, "keyboard")
    text = next(m["text"] for m in check.view()["moves"] if m["code"] == "d3")
    page.fill("#move-input", " D3 ")  # typed in capitals: the move's sentence all the same
    page.press("#move-input", "Enter")
    wait_version(page, 1)
    expect(page.locator("#notice")).to_contain_text(f"Played: {text}")
    assert len(check.view()["observation"]["towers"][2]) == 1
    # Outside the box, "d" and a digit start a code; Enter plays it.
    page.locator("#board").focus()
    page.keyboard.type("d4")
    expect(page.locator("#move-input")).to_have_value("d4")
    page.keyboard.press("Enter")
    wait_version(page, 2)
    expect(page.locator("#undo")).to_be_enabled()
    page.click("#undo")
    wait_version(page, 3)
    view = check.view()
    assert view["moves_made"] == 1 and view["observation"]["towers"][3] == []
    assert page_cards(page) == shown_cards(view)
    # "u" undoes too; Escape clears a selection.
    page.locator("#board").focus()
    page.keyboard.press("u")
    wait_version(page, 4)
    assert check.view()["moves_made"] == 0
    page.click(DECK)
    expect(page.locator(".zone.target")).to_have_count(5)
    expect(page.locator("#selection")).to_contain_text("press Escape (or select it again)")
    page.keyboard.press("Escape")
    expect(page.locator(".zone.target")).to_have_count(0)


def test_a_greyed_undo_says_why(page: Page, server: str, new_check: NewCheck) -> None:
    """Under the default safe undo a deck move turns a card up and cannot be taken back. The
    greyed Undo can still be pressed: it then says why beside it, in the server's own words (a
    touch screen shows no tooltip), and sends nothing. Nothing appears unasked, so no layout
    moves after a move; the words go once Undo works again."""
    check = new_check(seed=21)  # undo: safe
    open_page(page, server, check)
    undo, note = page.locator("#undo"), page.locator("#undo-note")
    expect(undo).to_be_disabled()
    check.move("d3")
    wait_version(page, 1)
    expect(undo).to_be_disabled()
    expect(undo).to_have_attribute("aria-disabled", "true")
    expect(note).to_be_hidden()
    why = check.view()["undo_refusal"]
    assert why and "hidden card" in why
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.method == "POST" else None)
    undo.click(force=True)  # (Playwright waits for an aria-disabled button; a finger does not)
    expect(note).to_have_text(f"{why[0].upper()}{why[1:]}.")
    expect(undo).to_have_attribute("aria-describedby", "undo-note")
    page.keyboard.press("u")  # the key says the same, and sends nothing either
    expect(note).to_be_visible()
    page.wait_for_timeout(200)
    assert asked == [] and check.view()["version"] == 1
    tower = next((m for m in check.view()["moves"] if m["from"] != "deck"), None)
    assert tower is not None, "seed 21 has a tower move after d3"
    check.move(tower["code"])  # a tower move reveals nothing: Undo works, and says nothing
    wait_version(page, 2)
    expect(undo).to_be_enabled()
    expect(undo).to_have_attribute("aria-disabled", "false")
    expect(note).to_be_hidden()
    expect(undo).not_to_have_attribute("aria-describedby", "undo-note")


def test_a_move_undo_cannot_take_back_says_so_at_once(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """Undo greyed after a deck move with no word why until it was pressed: the move's own
    notice now says it (once, not again while the reason stays the same). Ctrl+Z undoes, as in
    every program with an undo, except in a text field."""
    check = new_check(seed=21)  # undo: safe
    open_page(page, server, check)
    notice = page.locator("#notice")
    click_move(page, check.view(), "d3")
    wait_version(page, 1)
    why = check.view()["undo_refusal"]
    assert why and "hidden card" in why
    expect(notice).to_contain_text(f"Undo is off for now: {why.split(';')[0]}.")
    tower = next(m for m in check.view()["moves"] if m["from"] != "deck")
    click_move(page, check.view(), tower["code"])  # reveals nothing: Undo works again
    wait_version(page, 2)
    expect(notice).not_to_contain_text("Undo is off")
    expect(page.locator("#undo")).to_be_enabled()
    open_door(page, "keyboard")
    page.locator("#move-input").focus()
    page.keyboard.press("Control+z")  # a text field keeps its own undo
    page.wait_for_timeout(200)
    assert check.view()["version"] == 2
    page.locator("#board").focus()
    page.keyboard.press("Control+z")
    wait_version(page, 3)
    assert check.view()["moves_made"] == 1


def test_a_plain_loss_is_not_said_twice(page: Page, server: str, new_check: NewCheck) -> None:
    """"Check lost" already says failure: the heading adds a tier only when it says more."""
    check = new_check(seed=21, tiers={"critical_success": 100, "critical_failure": -100})
    check.move("d1")
    open_page(page, server, check)
    page.click("#concede")
    page.click("#concede-confirm")
    expect(page.locator("#result")).to_be_visible()
    assert check.view()["tier_text"] == "Failure"
    expect(page.locator("#result-title")).to_have_text("✘ Check lost")


def test_concede_asks_in_a_dialog(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=21)
    check.move("d1")
    open_page(page, server, check)
    page.click("#concede")
    dialog = page.locator("#concede-dialog")
    expect(dialog).to_be_visible()
    page.click("#concede-cancel")
    expect(dialog).to_be_hidden()
    assert check.view()["status"] == "in_progress"
    page.click("#concede")
    page.click("#concede-confirm")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result-reason")).to_have_text("you conceded")  # the player reads it
    view = check.view()
    assert view["status"] == "lost" and view["outcome"]["reason"] == "conceded"
    # The tier in words (a quota of 3 missed by 2 or more: a critical failure).
    assert view["tier_text"] == "Critical failure"
    expect(page.locator("#result-title")).to_have_text("✘ Check lost: critical failure")
    expect(page.locator("#result-degree")).to_contain_text(str(view["degree"]))
    expect(page.locator(f"{DECK}.card-button")).to_have_count(0)
    # The controls that no longer apply are gone, not greyed out.
    for control in ("#play", "#undo", "#concede", "#move-input", "#keyboard"):
        expect(page.locator(control)).to_be_hidden()


@pytest.mark.console_errors(
    r"net::ERR_FAILED .*/(stream|events)\?",  # no live feed
    r"status of 409 .*/moves\)$",  # the move sent on the old version
)
def test_version_conflict_reloads_the_view(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=21)
    # Cut the live updates so the page does not hear of the move made behind its back.
    page.route("**/stream*", lambda route: route.abort())
    page.route("**/events*", lambda route: route.abort())
    open_page(page, server, check)
    shown = check.view()
    check.move("d1")
    with page.expect_response("**/moves") as answered:
        click_move(page, shown, "d2")
    assert answered.value.status == 409
    wait_version(page, 1)
    expect(page.locator("#notice")).to_contain_text("changed elsewhere")
    assert page_cards(page) == shown_cards(check.view())
    click_move(page, check.view(), "d2")
    wait_version(page, 2)


# ---- a whole game, hidden cards ------------------------------------------------------------------


def _hidden_patterns(codes: list[str]) -> list[re.Pattern[str]]:
    patterns = []
    for code in codes:
        patterns.append(re.compile(rf"(?<![0-9A-Z]){code}(?![A-Z])"))
        patterns.append(re.compile(rf"\b{re.escape(card(code).short_name)}\b"))
    return patterns


def _leaks(text: str, codes: list[str]) -> list[str]:
    return [p.pattern for p in _hidden_patterns(codes) if p.search(text)]


@pytest.mark.console_errors(r"status of 404 .*/stream\?")  # polling
def test_whole_game_by_clicking_without_showing_hidden_cards(
    page: Page, server: str, new_check: NewCheck, winning: tuple[int, list[str]]
) -> None:
    seed, line = winning
    check = new_check(seed=seed, label="Mira")
    bodies: list[tuple[str, str]] = []

    def finished(request: Any) -> None:
        response = request.response()
        if response is None or "/v1/decks/" in request.url or "/sample-view" in request.url:
            return  # a public card table, or a made-up check's view: the same for every check
        try:
            bodies.append((request.url, response.text()))
        except Exception:  # a body Chromium did not keep (e.g. a redirect)
            return

    page.on("requestfinished", finished)
    # Live updates by polling: a stream still open when the page stops following it at the end
    # is cut off, and Playwright keeps no body of a cut request; /events carries the same JSON.
    page.route("**/stream*", lambda route: route.fulfill(status=404, body="{}"))
    open_page(page, server, check)
    snapshots: list[tuple[int, str]] = [(0, page.content())]
    deck_moves = 0
    view = check.view()
    for number, code in enumerate(line, 1):
        click_move(page, view, code)
        wait_version(page, number)
        deck_moves += next(m for m in view["moves"] if m["code"] == code)["from"] == "deck"
        snapshots.append((deck_moves, page.content()))
        view = check.view()
    expect(page.locator("#result")).to_be_visible()
    final = check.view()
    assert final["status"] == "won" and final["tier_text"] in ("Success", "Critical success")
    expect(page.locator("#result-title")).to_have_text(result_heading(final))
    expect(page.locator("#status")).to_have_text("✔ Won")
    # The degree, and the game's own words for the outcome (for a quota check the degree is
    # the cards to spare: the summary says so).
    expect(page.locator("#result-degree")).to_have_text(str(final["degree"]))
    expect(page.locator("#result-reason")).to_have_text("the goal was reached")
    expect(page.locator("#result-commitment")).to_have_text(check.commitment)
    expect(page.locator("#result-summary")).to_contain_text("reached the quota of 3")
    expect(page.locator("#result-summary")).to_contain_text(f"with {final['degree']} card")
    # the heading says "won: success"; the sentence goes on from there, not "Success: ..." again
    expect(page.locator("#result-summary")).to_have_text(re.compile(r"^A tower of "))
    page.wait_for_timeout(300)  # let the last responses land in `bodies`
    # The deal, top first: after n deck moves the top card is deal[n]; deal[n+1:] is unseen.
    deal = check.record()["record"]["deal"]
    for placed, html in snapshots:
        assert not _leaks(html, deal[placed + 1 :]), f"hidden card in the DOM after {placed}"
    assert bodies, "no network bodies were recorded"
    # An answer that carries the `ended` event carries the revealed record, as it should (a poll
    # that lands after the last move, as on a loaded machine): the deal is public by then.
    bodies = [(url, text) for url, text in bodies if '"kind":"ended"' not in text]
    network = "\n".join(text for _, text in bodies)
    assert not _leaks(network, deal[deck_moves + 1 :]), "hidden card in a response"
    answers = "\n".join(text for url, text in bodies if "/v1/checks/" in url)
    assert '"towers"' in answers and '"events"' in answers
    assert '"seed"' not in answers and '"deal"' not in answers and '"salt"' not in answers
    # After the end the record is one click away (behind "Verify this deal"), with its deal
    # and commitment.
    open_door(page, "verify")
    page.click("#show-record")
    expect(page.locator("#record")).to_be_visible()
    expect(page.locator("#record-seed")).to_have_text(str(seed))
    expect(page.locator("#record-moves")).to_have_text(" ".join(line))
    expect(page.locator("#record-check")).to_contain_text("published when the check was created")
    shown = page.eval_on_selector_all("#record-deal .face", "fs => fs.map(f => f.dataset.code)")
    assert shown == deal
    href = page.get_attribute("#record-download", "href")
    assert href is not None and href.startswith("blob:")


# ---- spectators and live updates ---------------------------------------------------------------


@pytest.mark.parametrize(
    "transport",
    [
        "stream",
        pytest.param(
            "polling",
            marks=[pytest.mark.slow, pytest.mark.console_errors(r"status of 404 .*/stream\?")],
        ),
    ],
)
def test_spectator_sees_moves_live(
    page: Page, server: str, new_check: NewCheck, transport: str
) -> None:
    check = new_check(seed=21)
    if transport == "polling":  # as when the server has no stream endpoint
        page.route("**/stream*", lambda route: route.fulfill(status=404, body="{}"))
    open_page(page, server, check, check.spectator)
    expect(page.locator("#role")).to_contain_text("Spectator")
    expect(page.locator("#controls")).to_be_hidden()
    expect(page.locator(f"{DECK}.card-button")).to_have_count(0)
    expect(page.locator(".zone button")).to_have_count(0)
    expect(page.locator("#live")).to_have_attribute("data-mode", transport)
    before = check.view()
    view = check.move("d4")
    wait_version(page, 1)
    assert page_cards(page) == shown_cards(view)
    # The spectator hears the move in the words the view offered it in.
    said = next(m["text"] for m in before["moves"] if m["code"] == "d4")
    assert "tower 4" in said
    expect(page.locator("#notice")).to_contain_text(said)
    check.move("d1")
    wait_version(page, 2)
    conceded = check.http.post(
        f"/v1/checks/{check.check_id}/concede", json={}, headers=check.auth()
    )
    assert conceded.status_code == 200
    expect(page.locator("#result-title")).to_have_text(result_heading(conceded.json()))
    expect(page.locator("#live")).to_have_attribute("data-mode", "stopped")


def test_stream_messages_are_parsed_across_chunks(page: Page, server: str) -> None:
    """The SSE reader of api.js, fed awkward chunks in the browser itself."""
    page.goto(f"{server}/play/none")
    script = page.get_attribute("script[type=module]", "src")
    assert script is not None
    messages = page.evaluate(
        """async (url) => {
            const { SseParser } = await import(url.replace('play.js', 'api.js'));
            const got = [];
            const parser = new SseParser((m) => got.push(m));
            const chunks = [': keepalive\\n\\n', 'id: 4\\r', '\\nevent: moved\\r\\ndata: {"a"',
                            ':1}\\r\\n\\r\\nid:5\\nevent: ended\\ndata: x\\ndata: y\\n', '\\n'];
            for (const chunk of chunks) parser.push(chunk);
            return got;
        }""",
        script,
    )
    assert messages == [
        {"id": "4", "event": "moved", "data": '{"a":1}'},
        {"id": "5", "event": "ended", "data": "x\ny"},
    ]


# ---- embedding and small screens ------------------------------------------------------------


def test_page_works_in_an_iframe_on_another_origin(
    page: Page, server: str, vtt: str, new_check: NewCheck
) -> None:
    check = new_check(seed=21)
    page.goto(f"{vtt}/table?src={quote(check.url(server), safe='')}")
    frame = page.frame_locator("iframe")
    expect_check_shown(frame)
    frame.locator(DECK).click()
    frame.locator(tower(3)).click()
    expect(frame.locator("#version")).to_have_text("1")
    assert check.view()["observation"]["towers"][2] != []
    # The in-page dialog works where window.confirm may be blocked.
    frame.locator("#concede").click()
    frame.locator("#concede-confirm").click()
    expect(frame.locator("#result-title")).to_contain_text("✘ Check lost")
    ended = check.view()  # read once the page shows the end: the server has it
    expect(frame.locator("#result-title")).to_have_text(result_heading(ended))


def test_page_is_refused_in_a_frame_on_an_unlisted_origin(
    context: Any, server: str, vtt: str, vtt_port: int, new_check: NewCheck
) -> None:
    check = new_check(seed=21)
    page = context.new_page()  # not the `page` fixture: this CSP report is the expected one
    reports: list[str] = []
    page.on("console", lambda message: reports.append(message.text))
    unlisted = f"http://127.0.0.1:{vtt_port}"  # the same stand-in VTT, another origin
    page.goto(f"{unlisted}/table?src={quote(check.url(server), safe='')}")
    page.wait_for_load_state()
    frame = next(f for f in page.frames if f != page.main_frame)
    expect(page.locator("iframe")).to_be_visible()
    page.wait_for_timeout(300)
    assert not frame.url.startswith(server)
    assert any("frame-ancestors" in text for text in reports), reports


def test_phone_layout_fits_without_sideways_scrolling(
    browser: Any, server: str, new_check: NewCheck, shots: Path
) -> None:
    check = new_check(seed=21)
    for code in ("d1", "d2", "d3", "d4", "d5"):
        check.move(code)
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    try:
        phone = context.new_page()
        open_page(phone, server, check)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the page is {width}px wide on a 360px screen"
        box = phone.locator(DECK).bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44
        for head in phone.locator(".zone button.zone-head").all():
            box = head.bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44
        no_overlaps(phone)
        phone.locator(DECK).tap()
        expect(phone.locator(DECK)).to_have_attribute("aria-pressed", "true")
        # a touch screen has no Escape key: the words say to tap the card again
        expect(phone.locator("#selection")).to_contain_text("tap it again to choose another")
        expect(phone.locator("#selection")).not_to_contain_text("Escape")
        snap(phone, shots, "three-towers-phone-selected")
    finally:
        context.close()


def test_focus_is_visible_on_controls(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=21)
    open_page(page, server, check)
    page.locator(DECK).focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    outline = page.evaluate(
        "getComputedStyle(document.activeElement).outlineStyle + ' ' + "
        "getComputedStyle(document.activeElement).outlineWidth"
    )
    assert outline.startswith("solid") and outline != "solid 0px"
    names = page.eval_on_selector_all(
        "button:not([hidden])",
        "bs => bs.filter(b => b.offsetParent).map(b => b.textContent"
        ".trim() || b.getAttribute('aria-label'))",
    )
    assert all(names), "every visible button has a name"
    # Buttons all the way: Enter on the deck's card, then on a tower, plays; the focus stays put.
    page.locator(DECK).focus()
    page.keyboard.press("Enter")
    expect(page.locator(DECK)).to_have_attribute("aria-pressed", "true")
    page.locator(tower(5)).focus()
    page.keyboard.press("Enter")
    wait_version(page, 1)
    # (A live event may show version 1 before the move's answer re-enables the controls.)
    expect(page.locator(tower(5))).to_be_focused()
    assert len(check.view()["observation"]["towers"][4]) == 1
