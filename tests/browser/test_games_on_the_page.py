"""The page as a shell for every game: each registered game played through it, the zone layouts
(slots placed by x, y, fans, rows, face-down piles, one-tap moves) drawn from a board, and a
game's own page module. Screenshots at desktop and phone widths go to ``$SKILLCHECK_SCREENSHOTS``
(or the test's temporary folder) for a person to look at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    Check,
    click_move,
    expect_check_shown,
    no_overlaps,
    open_door,
    page_cards,
    result_heading,
    shown_cards,
    snap,
    zone_card,
    zone_head,
)
from playwright.sync_api import Page, expect

from skillcheck.cards import DECKTET
from skillcheck.engine import GAMES
from skillcheck.serialization import game_from_params

expect.set_options(timeout=8000)

NewCheck = Callable[..., Check]
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}


def winning_line(name: str) -> tuple[dict[str, Any], int, list[str]] | None:
    """Parameters (one of the game's examples), a seed and the shortest winning line the
    game's solver finds for a few seeds (it knows the deal: the test chose the seed), or None
    when the game has no solver or none of them is won quickly."""
    best: tuple[dict[str, Any], int, list[str]] | None = None
    for params in GAMES[name].examples():
        game = game_from_params(name, params)
        solver = game.solver()
        if solver is None:
            return None
        for seed in range(12):
            solution = solver.solve(game.new_state(seed), max_states=50_000, max_seconds=2)
            if solution.result == "win" and (best is None or len(solution.moves) < len(best[2])):
                best = params, seed, [m.code for m in solution.moves]
    return best if best is not None and len(best[2]) <= 80 else None


def assert_shows(page: Any, view: dict[str, Any]) -> None:
    """The page draws ``view``'s board: the cards of each zone, the meters, the goal; and no card
    the board does not show is anywhere on the table."""
    assert page_cards(page) == shown_cards(view)
    expect(page.locator("#goal")).to_have_text(view["board"]["goal"])
    texts = page.eval_on_selector_all(".meter-text", "ms => ms.map(m => m.textContent)")
    assert texts == [m["text"] for m in view["board"]["meters"]]
    visible = {c for z in view["board"]["zones"] for c in z["cards"] if c is not None}
    drawn = page.eval_on_selector_all("#board [data-code]", "fs => fs.map(f => f.dataset.code)")
    assert set(drawn) <= visible


# ---- every registered game ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_is_played_through_the_page(
    page: Page, browser: Any, server: str, new_check: NewCheck, shots: Path, name: str
) -> None:
    """A check of each registered game, played to a win by tapping zones (from the view's
    moves, as a player would), with the board in step after every move; the page at phone
    width halfway through."""
    found = winning_line(name)
    if found is None:
        params, seed, line = GAMES[name].examples()[0], 1, []
    else:
        params, seed, line = found
    check = new_check(seed=seed, params=params, game=name, label="Mira")
    page.goto(check.url(server))
    expect_check_shown(page)
    expect(page.locator("#title")).to_have_text(f"{GAMES[name].title} check")
    view = check.view()
    assert_shows(page, view)
    snap(page, shots, f"{name}-desktop-start")
    halfway = len(line) // 2
    for played, code in enumerate(line or [m["code"] for m in view["moves"][:1]], 1):
        click_move(page, view, code)
        expect(page.locator("#version")).to_have_text(str(played))
        view = check.view()
        assert_shows(page, view)
        if played == halfway:
            snap(page, shots, f"{name}-desktop-middle")
            phone_context = browser.new_context(**PHONE)
            try:
                phone = phone_context.new_page()
                phone.goto(check.url(server, check.spectator))
                expect(phone.locator("#version")).to_have_text(str(played))
                width = phone.evaluate("document.documentElement.scrollWidth")
                assert width <= 360, f"the page is {width}px wide on a 360px screen"
                no_overlaps(phone)
                snap(phone, shots, f"{name}-phone-middle")
            finally:
                phone_context.close()
    if not line:
        pytest.skip(f"{name}: no solver line to win with; one move was played through the page")
    won = check.view()
    assert won["status"] == "won"
    expect(page.locator("#result-title")).to_have_text(result_heading(won))
    open_door(page, "verify")
    page.click("#show-record")
    expect(page.locator("#record")).to_be_visible()
    shown = page.eval_on_selector_all("#record-deal .face", "fs => fs.map(f => f.dataset.code)")
    assert shown == [
        c if isinstance(c, str) else json.dumps(c) for c in check.record()["record"]["deal"]
    ]
    snap(page, shots, f"{name}-desktop-won")


# ---- the layouts, from a board made up here ----------------------------------------------------

CODES = [c.code for c in DECKTET if c.rank is not None]


def peaks() -> list[dict[str, Any]]:
    """Two peaks of slots in half-card steps: each row's cards overlap the lower halves of the
    two above; the top rows face down."""
    rows = [(0, [2, 8]), (1, [1, 3, 7, 9]), (2, [0, 2, 4, 6, 8, 10])]
    zones = []
    used = iter(CODES[10:])
    for y, xs in rows:
        for x in xs:
            open_ = y == 2
            zones.append(
                {
                    "id": f"p{y}{x}", "label": f"Peak card {y}-{x}", "layout": "slot",
                    "cards": [next(used)] if open_ else [None], "count": 1, "accepts": False,
                    "x": x, "y": y, "extras": {"highlight": True} if (y, x) == (2, 4) else {},
                }
            )  # fmt: skip
    return zones


def made_up_board() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    zones = [
        {"id": "stock", "label": "Stock", "layout": "pile", "cards": [], "count": 20,
         "accepts": False, "x": None, "y": None, "extras": {}},
        {"id": "waste", "label": "Waste", "layout": "pile", "cards": [CODES[0]], "count": 3,
         "accepts": True, "x": None, "y": None, "extras": {}},
        *peaks(),
        {"id": "hand", "label": "Hand", "layout": "fan", "cards": CODES[1:5], "count": 4,
         "accepts": True, "x": None, "y": None, "extras": {"pure": True}},
        {"id": "row", "label": "Reserve", "layout": "row", "cards": CODES[5:8], "count": 3,
         "accepts": True, "x": None, "y": None, "extras": {"note": "two to go"}},
        {"id": "c1", "label": "Column 1", "layout": "stack", "cards": [None, None, CODES[8]],
         "count": 3, "accepts": True, "x": None, "y": None, "extras": {}},
        {"id": "c2", "label": "Column 2", "layout": "stack", "cards": [], "count": 0,
         "accepts": True, "x": None, "y": None, "extras": {}},
    ]  # fmt: skip
    board = {
        "layout": "rows",
        "goal": "Clear both peaks.",
        "zones": zones,
        "meters": [
            {"id": "cleared", "label": "Peaks cleared", "value": 1, "target": 2, "text": "1 of 2"},
            {"id": "score", "label": "Score", "value": 7, "target": None, "text": "7 points"},
        ],
    }
    moves = [
        {"code": "deal", "from": "stock", "to": None, "text": "Turn up the stock's top card"},
        {"code": "p20-w", "from": "p20", "to": "waste", "text": "The left card onto the waste"},
        {"code": "p24-w", "from": "p24", "to": "waste", "text": "The middle card onto the waste"},
        {"code": "p24-c2", "from": "p24", "to": "c2", "text": "The middle card onto column 2"},
        {"code": "h-c2", "from": "hand", "to": "c2", "text": "The hand's last card onto column 2"},
    ]  # fmt: skip
    return board, moves


@pytest.fixture
def made_up(page: Page, new_check: NewCheck) -> Iterator[tuple[Check, dict[str, Any], list[Any]]]:
    """A real check whose view, as the page receives it, carries the made-up board and moves;
    the moves the page sends are recorded (and answered with the same board)."""
    check = new_check(seed=21)
    view = check.view()
    board, moves = made_up_board()
    view.update(board=board, moves=moves)
    sent: list[Any] = []

    def answer(route: Any) -> None:
        request = route.request
        if request.method == "POST" and request.url.endswith("/moves"):
            sent.append(request.post_data_json)
            view["version"] += 1
        route.fulfill(status=200, content_type="application/json", body=json.dumps(view))

    page.route(re.compile(rf".*/v1/checks/{check.check_id}(/moves)?$"), answer)
    page.route("**/stream*", lambda route: route.fulfill(status=404, body="{}"))
    page.route(
        "**/events*",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body='{"events": [], "last_sequence": 0}'
        ),
    )
    yield check, view, sent


def open_with_view(context: Any, server: str, check: Check, view: dict[str, Any]) -> Page:
    """A new page of ``context`` showing ``check`` as ``view`` (no live feed), once drawn."""
    page = context.new_page()
    page.route(re.compile(rf".*/v1/checks/{check.check_id}$"), lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(view)))  # fmt: skip
    page.route("**/stream*", lambda route: route.fulfill(status=404, body="{}"))
    page.route("**/events*", lambda route: route.abort())
    page.goto(check.url(server))
    expect_check_shown(page)
    return page


@pytest.mark.console_errors(r"status of 404 .*/stream\?")  # the made-up board has no live feed
def test_layouts_draw_any_board(
    page: Page, browser: Any, server: str, made_up: Any, shots: Path
) -> None:
    check, view, sent = made_up
    page.goto(check.url(server))
    expect_check_shown(page)
    assert_shows(page, view)
    # Face-down cards are backs with no code; the stock shows one back and its count.
    expect(page.locator(".zone[data-zone='stock'] .back")).to_have_count(1)
    expect(page.locator(".zone[data-zone='stock'] .count")).to_have_text("19 face down under it")
    expect(page.locator(".zone[data-zone='c1'] .back")).to_have_count(2)
    # Meters: a bar where there is a target, the words always.
    expect(page.locator("[data-meter='cleared'] progress")).to_have_attribute("max", "2")
    expect(page.locator("[data-meter='score'] progress")).to_have_count(0)
    expect(page.locator("[data-meter='score']")).to_contain_text("7 points")
    # Extras: a true flag lights the zone and names itself; a note shows its words.
    expect(page.locator(".zone[data-zone='hand']")).to_have_class(re.compile(r"\bmark-pure\b"))
    expect(page.locator(".zone[data-zone='hand'] .zone-note")).to_have_text("★ pure")
    expect(page.locator(".zone[data-zone='row'] .zone-note")).to_have_text("★ two to go")
    expect(page.locator(".zone[data-zone='p24']")).to_have_class(re.compile(r"\bmarked\b"))

    # Slots lie by x, y in half-card steps: a row's neighbours side by side, the next row half
    # a card lower and half a card aside, overlapping.
    def box(zone: str) -> Any:
        found = page.locator(f".zone[data-zone='{zone}']").bounding_box()
        assert found is not None
        return found

    left, right, below = box("p20"), box("p22"), box("p11")
    assert abs(right["x"] - (left["x"] + left["width"])) < 2 and abs(right["y"] - left["y"]) < 1
    assert abs(below["y"] + below["height"] / 2 - left["y"]) < 2
    assert abs(below["x"] + below["width"] / 2 - left["x"] - left["width"]) < 2
    no_overlaps(page)
    snap(page, shots, "layouts-desktop")
    # A move that goes nowhere in particular is one tap on its source. (The request itself is
    # read: the route that records it in ``sent`` may not have run yet when it is seen.)
    shown = view["version"]
    with page.expect_request("**/moves") as deal:
        page.click(zone_card("stock"))
    assert deal.value.post_data_json == {"move": "deal", "expected_version": shown}
    # Otherwise: the source, then a lit target; a slot's card is its control.
    page.click(zone_card("p24"))
    targets = page.eval_on_selector_all(".zone.target", "zs => zs.map(z => z.dataset.zone)")
    assert set(targets) == {"waste", "c2"}
    expect(page.locator("#selection")).to_contain_text("It can go to Waste or Column 2")
    with page.expect_request("**/moves") as move:
        page.click(zone_head("c2"))
    assert move.value.post_data_json["move"] == "p24-c2"
    # A zone nothing can leave says so, and sends nothing.
    page.click(zone_card("p02"), position={"x": 8, "y": 8})  # its lower half lies under others
    expect(page.locator("#notice")).to_contain_text("Nothing can move from Peak card 0-2 now")
    assert len(sent) == 2
    phone_context = browser.new_context(**PHONE)
    try:
        phone = open_with_view(phone_context, server, check, view)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the page is {width}px wide on a 360px screen"
        no_overlaps(phone)
        card = phone.locator(zone_card("p24")).bounding_box()
        assert card is not None and card["width"] >= 30
        snap(phone, shots, "layouts-phone")
    finally:
        phone_context.close()


def stacks(n: int, first: int) -> list[dict[str, Any]]:
    """``n`` stacks side by side, two cards each."""
    return [
        {"id": f"s{i}", "label": f"Stack {i + 1}", "layout": "stack",
         "cards": CODES[first + 2 * i:first + 2 * i + 2], "count": 2, "accepts": True,
         "x": None, "y": None, "extras": {}}
        for i in range(n)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("zones", "small"),
    [
        pytest.param(lambda: stacks(3, 0), False, id="three-stacks"),
        pytest.param(lambda: stacks(7, 0), True, id="seven-stacks"),
        pytest.param(peaks, True, id="peaks"),
    ],
)
def test_narrow_cards_show_the_small_face(
    browser: Any, server: str, new_check: NewCheck, zones: Callable[[], Any], small: bool
) -> None:
    """On a phone, cards seven stacks across or in peaks are too narrow for their whole face and
    show the small one (rank and suits, large); three stacks across keep the whole face. The
    cards are measured only where five or more lie side by side (play.css, narrow-cards)."""
    check = new_check(seed=21)
    view = check.view()
    view.update(board={"layout": "rows", "goal": "", "zones": zones(), "meters": []}, moves=[])
    context = browser.new_context(**PHONE)
    try:
        phone = open_with_view(context, server, check, view)
        faces = phone.eval_on_selector_all(
            "#table .card:not(.face-down)",
            """cards => cards.map((card) => ({
                width: card.getBoundingClientRect().width,
                mini: getComputedStyle(card.querySelector('.card-mini')).display !== 'none',
                index: getComputedStyle(card.querySelector('.card-full')).display !== 'none',
            }))""",
        )
        assert faces
        for face in faces:
            assert face["mini"] is small and face["index"] is not small, face
            assert (face["width"] <= 58) is small, face
        # Carried out of its zone (drag.js clones it into the body), a card keeps its face.
        carried = phone.evaluate(
            """() => {
                const card = document.querySelector('#table .card:not(.face-down)');
                const ghost = card.cloneNode(true);
                ghost.classList.add('drag-ghost');
                ghost.style.width = `${card.getBoundingClientRect().width}px`;
                document.body.append(ghost);
                const mini = getComputedStyle(ghost.querySelector('.card-mini')).display;
                ghost.remove();
                return mini !== 'none';
            }"""
        )
        assert carried is small
    finally:
        context.close()


# ---- a game's own page module ------------------------------------------------------------------

MODULE = """
export function face(code, cards) {
  const face = document.createElement("span");
  face.className = "face module-face";
  face.dataset.code = code;
  face.textContent = `[${cards.info(code).short_name}]`;
  return face;
}
export const layouts = {
  rows(board, ctx) {
    const table = document.createElement("div");
    table.className = "module-table";
    for (const zone of [...board.zones].reverse()) table.append(ctx.zone(zone));
    return table;
  },
};
"""


def test_a_game_module_draws_its_own_faces_and_layout(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """The page imports the module ``data-games`` names for the check's game (api/pages.py
    lists api/static/games/), and uses the layouts and faces it exports."""
    check = new_check(seed=21)
    check.move("d1")
    game = check.view()["game"]

    def html(route: Any) -> None:
        got = route.fetch()
        body = got.text()
        games = json.loads(re.search(r'data-games="([^"]*)"', body)[1].replace("&quot;", '"'))
        games[game]["module"] = "games/made-up.js"
        attribute = json.dumps(games).replace('"', "&quot;")
        route.fulfill(
            response=got, body=re.sub(r'data-games="[^"]*"', f'data-games="{attribute}"', body)
        )

    page.route("**/play/*", html)
    page.route(
        "**/play-assets/*/games/made-up.js",
        lambda route: route.fulfill(status=200, content_type="text/javascript", body=MODULE),
    )
    page.goto(check.url(server))
    expect_check_shown(page)
    expect(page.locator(".module-table")).to_have_count(1)
    order = page.eval_on_selector_all(".module-table > .zone", "zs => zs.map(z => z.dataset.zone)")
    zones = [z["id"] for z in check.view()["board"]["zones"]]
    assert order == zones[::-1]
    view = check.view()
    top = view["board"]["zones"][1]["cards"][-1]
    expect(page.locator(f"{zone_card('t1')} .module-face")).to_have_attribute("data-code", top)
    # The shell still plays through the module's drawing.
    click_move(page, view, next(m["code"] for m in view["moves"]))
    expect(page.locator("#version")).to_have_text("2")
