"""The player's table in real Chromium: every card of every deck drawn whole (names fit, nothing
outside the card, no ellipsis), words for every card and zone, the suit legend, plain words
on the page (the jargon behind "Verify this deal"), the end without controls and with the
winning place lit, and no layout shift while the page loads and the player plays."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from browser_support import (
    Check,
    click_move,
    expect_check_shown,
    open_door,
    open_drawn_ahead,
    open_with_view_held,
    result_heading,
    zone_card,
    zone_head,
)
from playwright.sync_api import Page, expect
from test_table_visual import DEALS, VIEWPORTS, winning_line

from api.make_glyphs import OUT
from skillcheck.cards import DECKS
from skillcheck.engine import GAMES
from skillcheck.serialization import game_from_params

expect.set_options(timeout=8000)

NewCheck = Callable[..., Check]
QUOTA = {"level": 6, "variant": {"kind": "quota", "suit": "knots", "skill": 3, "quota": 2}}

#: Records every layout shift (docs/performance.md); injected before the page's own scripts.
SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__shifts.push({
      value: entry.value, recent: entry.hadRecentInput,
      sources: (entry.sources || []).map((s) => s.node ? (s.node.id || s.node.className ||
        s.node.nodeName) : "?"),
    });
  }
}).observe({ type: "layout-shift", buffered: true });
"""


def describe(deck: str, code: str) -> str:
    """What the page should say of a card (cards.js, describe)."""
    table = DECKS[deck].table()
    card = next(c for c in table["cards"] if c["code"] == code)
    suits = {s["letter"]: s["name"] for s in table["suits"]}
    names = [suits[s] for s in card["suits"]]
    listed = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)
    plain = len(names) == 1 and card["short_name"] == f"{card['rank']} of {names[0]}"
    if not card["rank"] or not names or plain:
        return str(card["name"])
    return f"{card['name']}, {card['rank']}, {listed}"


def cards_module(page: Page, server: str) -> str:
    """Opens a player's page (of no check) and returns the address of its cards.js."""
    page.goto(f"{server}/play/none")
    script = page.get_attribute("script[type=module]", "src")
    assert script is not None
    return script.replace("play.js", "cards.js")


@pytest.mark.parametrize("deck", sorted(DECKS))
@pytest.mark.parametrize("width", [112, 66])
def test_every_card_is_drawn_whole(page: Page, server: str, deck: str, width: int) -> None:
    """Each card of the deck, drawn by the page's own cards.js at a laptop's and a phone's card
    width: every text (index, pips, name) lies inside the card, the name is printed in full
    and nothing is cut with an ellipsis."""
    found = page.evaluate(
        """async ([url, deck, width]) => {
            const { CardTable } = await import(url);
            const cards = await CardTable.load('', deck);
            const shelf = document.createElement('div');
            shelf.style.cssText = 'display:flex;flex-wrap:wrap;gap:4px';
            document.body.replaceChildren(shelf);
            for (const code of cards.cards.keys()) {
              const card = document.createElement('div');
              card.className = 'card';
              card.style.width = width + 'px';
              card.append(cards.face(code));
              shelf.append(card);
            }
            const out = [];
            for (const card of shelf.children) {
              const face = card.firstChild;
              const svg = face.querySelector('svg');
              const box = svg.getBoundingClientRect();
              // (words are paths drawn from the outlines, their words in data-text)
              const words = (t) => t.dataset.text ?? t.textContent;
              const texts = [...svg.querySelectorAll('text, path[data-text]')]
                .filter((t) => t.getClientRects().length && getComputedStyle(t).display !== 'none')
                .map((t) => { const r = t.getBoundingClientRect();
                  return { cls: t.getAttribute('class'), text: words(t),
                           out: r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
                                r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5 }; });
              out.push({ code: face.dataset.code, texts,
                         name: svg.querySelector('.card-name')
                           ? words(svg.querySelector('.card-name')) : null,
                         drawnAsText: svg.querySelectorAll('text').length,
                         ellipsis: getComputedStyle(card).textOverflow });
            }
            return out;
        }""",
        [cards_module(page, server), deck, width],
    )
    table = DECKS[deck].table()
    assert [f["code"] for f in found] == [c["code"] for c in table["cards"]]
    small = width < 60
    for face, card in zip(found, table["cards"], strict=True):
        outside = [t for t in face["texts"] if t["out"]]
        assert not outside, f"{card['code']} at {width}px: {outside} lies outside the card"
        assert face["ellipsis"] != "ellipsis"
        assert all("…" not in t["text"] for t in face["texts"])
        if not small and face["name"] is not None:
            assert face["name"] == card["short_name"], f"{card['code']}: the whole name"
        assert face["drawnAsText"] == 0, f"{card['code']}: every word drawn from the outlines"
    if deck == "decktet":  # cards with names of their own show them ("the Chance Meeting")
        named = {f["code"]: f["name"] for f in found}
        assert named["7ML"] == "Chance Meeting" and named["PSWK"] == "Light Keeper"
        assert named["AM"] is None  # the Ace of Moons is said by its index alone


#: The fonts (family, size, weight, style) of the laid-out elements holding text, each with the
#: characters outside ASCII drawn in it (they may need a fallback font): ``[scope]`` limits it.
FONTS_IN_USE = """(scope) => {
  const found = {};
  for (const el of document.querySelectorAll(scope)) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join("");
    if (!text.trim() || !el.checkVisibility()) continue; // (invisible counts: it is laid out)
    const s = getComputedStyle(el);
    const key = [s.fontFamily, s.fontSize, s.fontWeight, s.fontStyle].join(" | ");
    found[key] = [...new Set([...(found[key] || []), ...[...text].filter((c) => c > "~")])];
  }
  return found;
}"""


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_tables_words_find_their_fonts_made_before_the_view(
    browser: Any, server: str, new_check: NewCheck, name: str, width: int
) -> None:
    """Every font the first table's words use (zones, markers, counts, meters, the legend's
    symbols, the check's label) was already laid out while the view was on its way: the unseen
    words of play.html (class table-warmup) and the page's own text. A font first met in the
    table's layout is a synchronous call to the browser process (docs/performance.md)."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        check = new_check(seed=4, params=GAMES[name].examples()[0], game=name, label="Mira")
        # (the rehearsal's sample views are held: it would draw its tables over the unseen
        # words before they are read; the fonts it meets are laid out ahead all the same)
        samples: list[Any] = []
        page.route("**/sample-view", lambda route: samples.append(route))
        symbols_in = (  # every deck's symbols laid out ahead
            "() => [...document.querySelectorAll('.warmup-symbols')]"
            ".every((e) => e.textContent.length > 0)"
        )
        release = open_with_view_held(
            page, check.url(server), check.check_id, symbols_in, "every deck's symbols"
        )
        before = page.evaluate(FONTS_IN_USE, "body *")
        release()
        expect(page.locator("#table .zone").first).to_be_visible()
        assert page.locator(".table-warmup").count() == 0, "the unseen words are removed"
        after = page.evaluate(FONTS_IN_USE, "header *, #game *")
        new = {
            font: [c for c in chars if c not in before.get(font, [])] or "new font"
            for font, chars in after.items()
            if font not in before or not set(chars) <= set(before[font])
        }
        assert not new, f"the table's words meet fonts not laid out ahead: {new}"
    finally:
        context.close()


@pytest.mark.parametrize("deck", sorted(DECKS))
def test_the_faces_fonts_are_laid_out_before_the_view(page: Page, server: str, deck: str) -> None:
    """Drawing a deck's faces ahead ends by laying out, unseen, one line per font the faces use
    with every character drawn in it (CardTable.warmFonts), so the first table after the view
    makes no font of its own; nothing of it stays in the document."""
    found = page.evaluate(
        """async ([url, deck]) => {
            const { CardTable } = await import(url);
            const cards = await CardTable.load('', deck);
            const before = document.body.childElementCount;
            const mark = `skillcheck:fonts-warmed:${deck}`;
            const fontAttributes = ['font-family', 'font-size', 'font-weight', 'font-style'];
            cards.prepare();
            const until = performance.now() + 5000;
            while (!performance.getEntriesByName(mark).length && performance.now() < until) {
              await new Promise((done) => setTimeout(done, 10));
            }
            const warmed = performance.getEntriesByName(mark).length > 0;
            const runs = cards.fontRuns();
            const missing = [];
            for (const face of cards.drawn.values()) {
              for (const text of face.querySelectorAll('text')) {
                const run = runs.find((r) => fontAttributes.every(
                  (name) => (r.font[name] ?? null) === text.getAttribute(name)));
                const absent = [...text.textContent].filter((c) => !run || !run.text.includes(c));
                if (absent.length) missing.push(`${face.dataset.code}: ${text.textContent}`);
              }
            }
            return { warmed, faces: cards.drawn.size, runs: runs.length, missing,
                     left: document.querySelectorAll('.font-warmup').length,
                     added: document.body.childElementCount - before };
        }""",
        [cards_module(page, server), deck],
    )
    assert found["warmed"], "the fonts were laid out once the faces were drawn"
    assert found["faces"] == len(DECKS[deck].table()["cards"])
    assert found["missing"] == [], "every font and character of every face is warmed"
    # the built-in decks' words are all drawn from the outlines (glyphs.js): no font to make
    assert found["runs"] == 0
    assert found["left"] == 0 and found["added"] == 0


def test_a_character_without_an_outline_is_drawn_as_text_and_its_font_warmed(
    page: Page, server: str
) -> None:
    """A deck (a plug-in's, say) whose suit symbol is not in glyphs.js: that symbol is drawn as
    SVG text in the faces' font, and warmed; the rank beside it is still a path."""
    found = page.evaluate(
        """async ([url]) => {
            const { CardTable } = await import(url);
            const cards = new CardTable({ deck: 'swords', suits: [
                { letter: 'X', name: 'Swords', symbol: '\u2694' } ], cards: [
                { code: '3X', name: 'the Duel', short_name: 'Duel', rank: 3, value: 3,
                  suit: 'X' } ] });
            const face = cards.face('3X');
            const texts = [...face.querySelectorAll('text')].map((t) => t.textContent);
            const paths = [...face.querySelectorAll('path[data-text]')].map((p) => p.dataset.text);
            cards.drawn.set('3X', face);
            cards.warmFonts();
            const mark = 'skillcheck:fonts-warmed:swords';
            return { texts, paths, runs: cards.fontRuns().map((r) => r.text),
                     warmed: performance.getEntriesByName(mark).length };
        }""",
        [cards_module(page, server)],
    )
    assert found["texts"] and all(t == "⚔" for t in found["texts"])
    # the rank (both corners, one path) and the name are still drawn from the outlines
    assert "3 3" in found["paths"] and "Duel" in found["paths"]
    assert found["runs"] and all(set(run) == {"⚔"} for run in found["runs"])
    assert found["warmed"] == 1


def test_every_card_and_zone_says_what_it_is(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=11, label="Mira")
    for code in ("d1", "d2", "d3"):
        check.move(code)
    view = check.view()
    page.goto(check.url(server))
    expect_check_shown(page)
    for zone in view["board"]["zones"]:
        element = page.locator(f".zone[data-zone='{zone['id']}']")
        label = element.get_attribute("aria-label") or ""
        assert label.startswith(f"{zone['label']}, {zone['count']} card"), label
        cards = element.locator(".cards > li > .card")
        shown = zone["cards"][-1:] if zone["layout"] == "pile" else zone["cards"]
        assert cards.count() == max(1, len(shown)) if zone["count"] else cards.count() == 0
        for index, code in enumerate(shown):
            words = cards.nth(index).get_attribute("aria-label") or ""
            top = index == len(shown) - 1
            nth = f"{index + 1}{ {0: 'st', 1: 'nd', 2: 'rd'}.get(index, 'th') }"
            where = f"top of {zone['label']}" if top else f"{nth} from the bottom of "
            where += "" if top else zone["label"]
            assert words.startswith(f"{describe('decktet', code)}, {where}"), words
    # e.g. "the Forest, 5, Moons and Leaves, top of Tower 2"
    assert re.fullmatch(r"the [A-Z][a-z ]+, \d, \w+ and \w+", describe("decktet", "5ML"))
    # The legend names every suit of the deck by its symbol, always on show.
    legend = page.locator("#legend li")
    suits = DECKS["decktet"].table()["suits"]
    expect(legend).to_have_count(len(suits))
    for item, suit in zip(legend.all(), suits, strict=True):
        expect(item).to_have_text(f"{suit['symbol']}{suit['name']}")
        expect(item).to_be_visible()


def test_face_down_cards_say_where_they_lie(page: Page, server: str, new_check: NewCheck) -> None:
    check = new_check(seed=1, params={}, game="tripeaks")
    page.goto(check.url(server))
    expect_check_shown(page)
    view = check.view()
    stock = next(z for z in view["board"]["zones"] if z["id"] == "stock")
    expect(page.locator(".zone[data-zone='stock'] .card")).to_have_attribute(
        "aria-label", re.compile(rf"^a face-down card, top of Stock, {stock['count'] - 1} more")
    )
    hidden = next(z for z in view["board"]["zones"] if z["cards"] == [None])
    expect(page.locator(f".zone[data-zone='{hidden['id']}'] .card")).to_have_attribute(
        "aria-label", re.compile(rf"^a face-down card, {re.escape(hidden['label'])}")
    )


def test_face_down_cards_are_one_element_with_the_back_drawn_ahead_as_an_image(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """The card back is drawn once as a bitmap while the view is on its way (cards.js,
    drawBackImage): each face-down card of the first table is then one element showing that
    image (a PNG in a blob), sized 5 : 7 like the SVG it is drawn from, and still says what it
    is."""
    check = new_check(seed=1, params={}, game="tripeaks")
    open_drawn_ahead(page, check.url(server), check.check_id)
    expect_check_shown(page)
    backs = page.locator("#table .face[data-back]")
    zones = check.view()["board"]["zones"]
    # the peaks' hidden cards, and a pile the view gives only as a count (the stock)
    face_down = sum(z["cards"].count(None) for z in zones)
    face_down += sum(1 for z in zones if z["count"] and not z["cards"])
    assert face_down > 10 and backs.count() == face_down
    found = backs.evaluate_all(
        """(backs) => backs.map((back) => ({
            image: back.hasAttribute('data-image'),
            inside: back.children.length,
            background: getComputedStyle(back).backgroundImage,
            label: back.closest('.card').getAttribute('aria-label'),
        }))"""
    )
    assert all(b["image"] and b["inside"] == 0 for b in found), found
    assert {b["background"] for b in found} == {found[0]["background"]}
    url = re.fullmatch(r'url\("(blob:[^"]+)"\)', found[0]["background"])
    assert url, found[0]["background"]
    assert all(b["label"].startswith("a face-down card") for b in found), found
    size = page.evaluate(
        """async (url) => {
            const image = new Image();
            image.src = url;
            await image.decode();
            return [image.naturalWidth, image.naturalHeight];
        }""",
        url.group(1),
    )
    # a bitmap at two or more pixels per unit of the 100 x 140 drawing (an SVG image would
    # have the drawing's own size)
    assert size[0] >= 200 and size[0] * 7 == size[1] * 5, size


def test_plain_words_until_the_verify_door(page: Page, server: str, new_check: NewCheck) -> None:
    """No version, move code, commitment or seed on the page until "Verify this deal" is
    opened, where each is explained; the end removes the controls and lights the winning
    tower."""
    check = new_check(seed=3, params=QUOTA, label="Mira")
    page.goto(check.url(server))
    expect_check_shown(page)
    line = _line(QUOTA, 3)
    click_move(page, check.view(), line[0])
    expect(page.locator("#version")).to_have_text("1")
    seen = page.locator("body").inner_text()
    assert check.commitment not in seen and check.commitment[:12] not in seen
    assert "Version" not in seen and "version" not in seen
    assert not re.search(r"\bcommitment\b", seen, re.IGNORECASE)
    # (codes of digits alone cannot be told from the counts on the page)
    codes = {m["code"] for m in check.view()["moves"] if re.search("[a-z]", m["code"])}
    assert codes
    shown = [c for c in codes if re.search(rf"(?<!\w){re.escape(c)}(?!\w)", seen)]
    assert not shown, (shown, seen)
    open_door(page, "verify")
    expect(page.locator("#verify")).to_contain_text("A fingerprint of the shuffled deck")
    expect(page.locator("#result-commitment")).to_be_visible()
    expect(page.locator("#result-commitment")).to_have_text(check.commitment)
    expect(page.locator("#version")).to_be_visible()
    # Won: the tower that reached the quota is lit and says so; no control is left.
    for code in line[1:]:
        check.move(code)
    final = check.view()
    assert final["status"] == "won"
    expect(page.locator("#result")).to_be_visible()
    winner = next(z for z in final["board"]["zones"] if z["extras"].get("won"))
    zone = page.locator(f".zone[data-zone='{winner['id']}']")
    expect(zone).to_have_class(re.compile(r"\bmark-won\b"))
    expect(zone.locator(".zone-progress")).to_have_text("2 of 2")
    expect(zone).to_have_attribute("aria-label", re.compile("the winning place"))
    for control in ("#controls", "#keyboard", "#selection", "#undo", "#concede", "#move-input"):
        expect(page.locator(control)).to_be_hidden()
    expect(page.locator("#board button")).to_have_count(0)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_ends_in_plain_words(
    page: Page, server: str, new_check: NewCheck, name: str
) -> None:
    """Every game, played to a win while its page follows: no version, commitment or move code
    on the page while it is played; at the end the result and its tier in words, the winning
    place lit and named, and no control left (issue 12, "The end" and "Jargon")."""
    from motion_support import winning_line

    params, seed, line = winning_line(name, GAMES[name].examples())
    check = new_check(seed=seed, params=params, game=name)
    page.goto(check.url(server))
    expect_check_shown(page)
    check.move(line[0])
    expect(page.locator("#moves-made")).to_have_text("1")
    seen = page.locator("body").inner_text()
    assert check.commitment[:12] not in seen
    assert not re.search(r"\bversion\b|\bcommitment\b", seen, re.IGNORECASE), seen
    codes = {m["code"] for m in check.view()["moves"]}
    assert codes
    lettered = [c for c in codes if re.search("[a-z]", c)]
    shown = [c for c in lettered if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", seen)]
    assert not shown, (shown, seen)
    # Codes of digits alone (Tower of Hanoy's "12") cannot be told from numbers in a sentence:
    # no word of the page outside its folded panels is one on its own.
    words = page.eval_on_selector_all(
        "#game *:not(#keyboard, #keyboard *, #verify, #verify *)",
        "els => els.filter((e) => !e.children.length).map((e) => e.textContent.trim())",
    )
    assert not codes & set(words), sorted(codes & set(words))
    for code in line[1:]:
        check.move(code)
    final = check.view()
    assert final["status"] == "won"
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result-title")).to_have_text(result_heading(final))
    winners = [z["id"] for z in final["board"]["zones"] if z["extras"].get("won")]
    assert winners, f"{name} marks no winning place"
    for zone_id in winners:
        zone = page.locator(f".zone[data-zone='{zone_id}']")
        expect(zone).to_have_class(re.compile(r"\bmark-won\b"))
        expect(zone).to_have_attribute("aria-label", re.compile("the winning place"))
    for control in ("#controls", "#keyboard", "#selection", "#undo", "#concede", "#move-input"):
        expect(page.locator(control)).to_be_hidden()
    expect(page.locator("#board button")).to_have_count(0)


def _line(params: dict[str, Any], seed: int) -> list[str]:
    from skillcheck.serialization import game_from_params

    game = game_from_params("three-towers", params)
    solver = game.solver()
    assert solver is not None
    first = game.new_state(seed)
    solution = solver.solve(first, max_states=50_000, max_seconds=5)
    assert solution.result == "win"
    return [m.code for m in solution.moves]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_layout_shift_while_loading_and_playing(
    browser: Any, server: str, new_check: NewCheck, name: str
) -> None:
    """Cumulative layout shift 0 from the first paint to a drawn table, and through the
    player's moves (shifts right after the player's own input do not count, as the Layout
    Instability API defines)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    try:
        context.add_init_script(SHIFTS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        check = new_check(seed=4, params=GAMES[name].examples()[0], game=name)
        page.goto(check.url(server))
        expect_check_shown(page)
        expect(page.locator("#live")).to_have_attribute("data-mode", "stream")
        for played in (1, 2):
            view = check.view()
            click_move(page, view, view["moves"][0]["code"])
            expect(page.locator("#version")).to_have_text(str(played))
        page.wait_for_timeout(200)
        shifts = page.evaluate("window.__shifts")
        counted = [s for s in shifts if not s["recent"]]
        assert sum(s["value"] for s in counted) == 0, counted
        assert not errors, errors
    finally:
        context.close()


def phone_showing(browser: Any, server: str, check: Check) -> tuple[Any, Page]:
    """A 360-px touch phone (motion reduced) showing ``check``: its context (the test closes
    it) and page."""
    context = browser.new_context(**VIEWPORTS["phone"], reduced_motion="reduce")
    page = context.new_page()
    page.goto(check.url(server))
    expect_check_shown(page)
    return context, page


def on_a_phone(
    browser: Any, server: str, new_check: NewCheck, name: str
) -> tuple[Any, Page, Check]:
    """A phone (``phone_showing``) showing a new check of ``name`` (seed 4, the game's first
    example): its context (the test closes it), page and check."""
    check = new_check(seed=4, params=GAMES[name].examples()[0], game=name)
    context, page = phone_showing(browser, server, check)
    return context, page, check


#: The top-left corner of every place's cards on the page (scrolling aside), to see none move.
PLACES = """() => Object.fromEntries([...document.querySelectorAll('.zone[data-zone]')].map(z => {
  const r = (z.querySelector('.cards') || z).getBoundingClientRect();
  return [z.dataset.zone, [Math.round(r.left), Math.round(r.top + scrollY)]];
}))"""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_what_the_page_says_never_moves_the_table_on_a_phone(
    browser: Any, server: str, new_check: NewCheck, name: str
) -> None:
    """The place the player taps next must stay under the finger: a selection's words, a
    refusal, its dismissal, and the words of a move played leave every place where it was
    (these shifts follow the player's input, so the Layout Instability API's score ignores
    them). The selection line said every target by name and grew to four lines; the refusal
    and the notice stood above the table and pushed it down."""
    context, page, check = on_a_phone(browser, server, new_check, name)
    try:
        places = page.evaluate(PLACES)
        view = check.view()
        going = [m for m in view["moves"] if m["to"] is not None]
        move = max(going, key=lambda m: sum(n["from"] == m["from"] for n in going))
        page.locator(zone_card(move["from"])).click()
        if "Selected" in (page.locator("#selection").text_content() or ""):
            assert page.evaluate(PLACES) == places, "selecting a card moved the table"
            # the line the eye reads fits its slot: a third line covered the heads below it
            expect(page.locator("#selection")).not_to_have_class(re.compile(r"\bspills\b"))
            target = page.locator(zone_head(move["to"]))
            if target.count() == 0:  # a slot has no head: its card or empty place is the target
                target = page.locator(f".zone[data-zone='{move['to']}'] li.top > *")
            target.click()
        # else one tap played the card's only move (the board's one_tap)
        expect(page.locator("#version")).to_have_text("1")
        expect(page.locator("#notice")).not_to_be_empty()
        assert page.evaluate(PLACES) == places, "playing a move moved the table"
        open_door(page, "keyboard")
        page.locator("#move-input").fill("zz9")
        page.locator("#play").click()
        expect(page.locator("#refusal")).to_be_visible()
        assert page.evaluate(PLACES) == places, "a refusal moved the table"
        typed = page.locator("#move-input").bounding_box()
        refusal = page.locator("#refusal").bounding_box()
        assert typed and refusal and typed["y"] + typed["height"] <= refusal["y"]  # still in sight
        page.locator("#refusal").click()  # a tap anywhere on it puts it away
        expect(page.locator("#refusal")).to_be_hidden()
        assert page.evaluate(PLACES) == places, "dismissing a refusal moved the table"
    finally:
        context.close()


#: Whether the point at the centre of ``selector`` on screen is that element (nothing over it).
UNCOVERED = """s => { const e = document.querySelector(s), r = e.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return Boolean(at && e.contains(at)); }"""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_on_a_phone_undo_and_concede_stay_in_reach(
    browser: Any, server: str, new_check: NewCheck, name: str
) -> None:
    """Tri Peaks' table put Undo and Concede under a phone's fold. While the check is played
    their bar sticks to the foot of the screen; scrolled to the end it rests under the table,
    covering none of it; once the check is over it is gone with its controls."""
    context, page, check = on_a_phone(browser, server, new_check, name)
    try:
        foot = page.viewport_size["height"]
        shown = [b for b in ("#undo", "#concede") if page.locator(b).is_visible()]
        assert "#concede" in shown
        for button in shown:
            box = page.locator(button).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= foot, (button, box)
            assert page.evaluate(UNCOVERED, button), f"{button} is covered"
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        bar = page.locator(".control-bar").bounding_box()
        board = page.locator("#board").bounding_box()
        assert bar and board and bar["y"] >= board["y"] + board["height"]
        concede = f"/v1/checks/{check.check_id}/concede"
        ended = check.http.post(concede, json={}, headers=check.auth())
        assert ended.status_code == 200, ended.text
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator(".control-bar")).to_have_css("position", "static")
    finally:
        context.close()


def test_on_a_phone_a_refusal_stands_above_the_controls(
    browser: Any, server: str, new_check: NewCheck
) -> None:
    """The refusal stands at the screen's foot, where a phone's controls are: it stands above
    them, so Undo can still be pressed while it is said."""
    check = new_check(seed=21)
    for code in ("d1", "d2", "d3", "d4", "d5"):
        view = check.move(code)
    legal = {m["to"] for m in view["moves"] if m["from"] == "deck"}
    wrong = next(f"t{n}" for n in range(1, 6) if f"t{n}" not in legal)
    context, page = phone_showing(browser, server, check)
    try:
        page.locator(zone_card("deck")).click()
        page.locator(zone_head(wrong)).click()
        refusal = page.locator("#refusal")
        expect(refusal).to_contain_text("Not a legal move")
        bar = page.locator(".control-bar").bounding_box()
        box = refusal.bounding_box()
        foot = page.viewport_size["height"]
        assert bar and box and bar["y"] + bar["height"] >= foot - 1  # the bar is at the foot
        assert box["y"] + box["height"] <= bar["y"], (box, bar)
        assert page.evaluate(UNCOVERED, "#undo")
    finally:
        context.close()


def test_on_a_phone_the_notice_keeps_no_empty_slot_and_steps_aside(
    browser: Any, server: str, new_check: NewCheck
) -> None:
    """Two empty lines were kept above a phone's table for the notice ("Played: ..."). It now
    lies over the table's first line (the selection line's slot), above every card, for a few
    seconds, and steps aside at once when a card is selected (the selection line then speaks)."""
    check = new_check(seed=21)
    context, page = phone_showing(browser, server, check)
    try:
        goal = page.locator("#goal").bounding_box()
        board = page.locator("#board").bounding_box()
        assert goal and board and board["y"] - (goal["y"] + goal["height"]) < 16, (goal, board)
        notice = page.locator("#notice")
        click_move(page, check.view(), "d1")
        expect(page.locator("#version")).to_have_text("1")
        expect(notice).to_be_visible()
        expect(notice).to_be_in_viewport()
        said = notice.bounding_box()
        board = page.locator("#board").bounding_box()
        cards = page.eval_on_selector_all(
            "#table .zone .cards", "cs => Math.min(...cs.map(c => c.getBoundingClientRect().top))"
        )
        assert said and board and board["y"] - 1 <= said["y"], (said, board)
        assert said["y"] + said["height"] <= cards, (said, cards)
        expect(notice).to_be_hidden(timeout=8000)  # stepped aside (NOTICE_MS in play.js)
        expect(notice).not_to_be_empty()  # still there for a screen reader's review
        click_move(page, check.view(), "d2")
        expect(page.locator("#version")).to_have_text("2")
        expect(notice).to_be_visible()
        page.locator(zone_card("deck")).click()
        expect(page.locator("#selection")).to_contain_text("Selected")
        expect(notice).to_be_hidden()
    finally:
        context.close()


#: The games whose board lays cards in slots (peaks), from their first example.
SLOT_GAMES = [
    name
    for name in sorted(GAMES)
    if any(
        zone.layout == "slot"
        for zone in game_from_params(name, GAMES[name].examples()[0]).new_state(4).board().zones
    )
]


@pytest.mark.parametrize("viewport", ["laptop", "phone"])
@pytest.mark.parametrize("name", SLOT_GAMES)
def test_a_table_of_slots_fits_the_screen(
    browser: Any, server: str, new_check: NewCheck, name: str, viewport: str
) -> None:
    """Tri Peaks' stock and waste lay under a 1280 x 800 laptop's fold (and Undo with them),
    and a phone's controls' bar covered them. Every card of the table, and Undo, is now in
    sight from the start."""
    params = GAMES[name].examples()[0]
    check = new_check(seed=4, params=params, game=name, label="Mira picks the lock")
    context = browser.new_context(**VIEWPORTS[viewport], reduced_motion="reduce")
    try:
        page = context.new_page()
        page.goto(check.url(server))
        expect_check_shown(page)
        bar = page.locator(".control-bar").bounding_box()
        assert bar
        foot = bar["y"] if viewport == "phone" else page.viewport_size["height"]
        cards = page.eval_on_selector_all(
            "#table .zone .cards", "cs => cs.map(c => c.getBoundingClientRect().bottom)"
        )
        assert cards and max(cards) <= foot + 1, (max(cards), foot)
        undo = page.locator("#undo").bounding_box()
        assert undo and undo["y"] + undo["height"] <= page.viewport_size["height"], undo
    finally:
        context.close()


def test_on_a_phone_a_name_beside_its_pile_has_no_frame(
    browser: Any, server: str, new_check: NewCheck
) -> None:
    """A phone puts a pile's name beside its cards. The waste's name kept the dashed frame of a
    place, and beside the waste's card it looked like a second, empty place. It has no frame
    there, and still lights up when a card may go to it."""
    check = new_check(seed=4, params=GAMES["tripeaks"].examples()[0], game="tripeaks")
    context = browser.new_context(**VIEWPORTS["phone"], reduced_motion="reduce")
    try:
        page = context.new_page()
        page.goto(check.url(server))
        expect_check_shown(page)
        head = page.locator('#table [data-zone="waste"] .zone-head')
        assert head.evaluate("h => h.tagName") == "BUTTON"  # a place that can be tapped
        colour = "h => getComputedStyle(h).borderTopColor"
        assert head.evaluate(colour) == "rgba(0, 0, 0, 0)"
        page.locator('#table [data-zone="waste"]').evaluate("z => z.classList.add('target')")
        assert head.evaluate(colour) != "rgba(0, 0, 0, 0)"
    finally:
        context.close()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_result_comes_into_sight_when_the_check_ends(
    browser: Any, server: str, new_check: NewCheck, name: str
) -> None:
    """The result stands above the table, and a player on a phone is often scrolled down to the
    table's foot when the last move is made: it appeared out of sight above the screen (its top
    at -150 to -290 px), the player left looking at a table that no longer moved."""
    params, seed = DEALS[name]
    line = winning_line(name)
    check = new_check(seed=seed, params=params, game=name)
    for code in line[:-1]:
        check.move(code)
    context, page = phone_showing(browser, server, check)
    try:
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        assert page.evaluate("scrollY") > 100, "the page does not scroll: nothing to see"
        check.move(line[-1])  # (from the player's other device: the page follows live)
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#result")).to_be_focused()
        expect(page.locator("#result")).to_be_in_viewport()
        hud = page.locator(".hud").bounding_box()
        result = page.locator("#result").bounding_box()
        assert hud and result and result["y"] >= hud["y"] + hud["height"] - 1  # not under the bar
    finally:
        context.close()


def test_a_place_brought_into_view_clears_the_sticky_progress_bar(
    browser: Any, server: str, new_check: NewCheck
) -> None:
    """Focus (a key, a hint, a move played from the list) scrolls a place into view from
    below; it used to land under the progress bar, which stays at the top of the screen."""
    context, page, _check = on_a_phone(browser, server, new_check, "three-towers")
    try:
        page.set_viewport_size({"width": 360, "height": 520})  # a phone's screen less its browser
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        first = page.locator(".zone[data-zone] button").first  # the deck's card
        hud = page.locator(".hud").evaluate("e => e.getBoundingClientRect().bottom")
        assert first.evaluate("e => e.getBoundingClientRect().top") < hud  # under the bar
        first.evaluate("e => e.focus()")
        assert first.evaluate("e => e.getBoundingClientRect().top") >= hud - 1
    finally:
        context.close()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_tapping_another_movable_card_says_why_the_first_did_not_go(
    page: Page, server: str, new_check: NewCheck, name: str
) -> None:
    """With a card selected, a tap on another card that can move selects it instead: the page
    says so, and why (the selection alone moved and read as nothing happening)."""
    check = new_check(seed=4, params=GAMES[name].examples()[0], game=name)
    view = check.view()
    if view["board"].get("one_tap"):
        return  # (Tri Peaks: a card's one move plays at one tap; no card stays selected)

    def pairs(view: dict[str, Any]) -> list[tuple[str, str]]:
        moves = view["moves"]
        going = {m["from"] for m in moves if m["to"] is not None}
        return sorted(
            (a, b) for a in going for b in going
            if a != b and not any(m["from"] == a and m["to"] == b for m in moves)
        )  # fmt: skip

    for _ in range(12):  # play on until two cards can move and one cannot go onto the other
        if pairs(view) or view["status"] != "in_progress":
            break
        view = check.move(view["moves"][0]["code"])
    assert pairs(view), f"{name}: no two movable cards in 12 moves"
    first, second = pairs(view)[0]
    page.goto(check.url(server))
    expect_check_shown(page)
    page.locator(zone_card(first)).click()
    page.locator(zone_card(second)).click()
    expect(page.locator("#notice")).to_contain_text("cannot go to")
    expect(page.locator("#notice")).to_contain_text("is selected instead")
    expect(page.locator("#selection")).to_contain_text("Selected:")


def test_five_meters_fit_a_phone(browser: Any, server: str, new_check: NewCheck) -> None:
    """TriTowers has five meters (cards, peaks, stock, score, run): in one row on a 360-px
    phone, "0 of 28 cleared" spilled out of its box. Four or more wrap to rows of three."""
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    try:
        page = context.new_page()
        params = {"rules": "tritowers", "target": 20, "redeals": 1}
        page.goto(new_check(seed=4, params=params, game="tripeaks").url(server))
        expect_check_shown(page)
        expect(page.locator(".meter")).to_have_count(5)
        spills = page.eval_on_selector_all(
            ".meter",
            "ms => ms.filter(m => m.scrollWidth > m.clientWidth + 1).map(m => m.dataset.meter)",
        )
        assert spills == []
    finally:
        context.close()


def test_a_spent_allowance_is_not_shown_as_reached_on_a_lost_check(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """Tower of Hanoy's moves meter fills as the allowance is spent: full, the check is lost,
    and the page painted it green like a goal reached."""
    check = new_check(seed=3, params={"cards": 9, "skill": 0}, game="hanoy")
    view = check.view()
    while view["status"] == "in_progress":
        view = check.move(view["moves"][-1]["code"])
    assert view["status"] == "lost"
    meters = {m["id"]: m for m in view["board"]["meters"]}
    assert any(m["target"] and m["value"] >= m["target"] for m in meters.values()), meters
    page.goto(check.url(server))
    expect_check_shown(page)
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator(".meter.met")).to_have_count(0)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_boards_mark_the_place_that_counts_and_the_winner(name: str) -> None:
    """The extras the table lights (docs/play-page.md): while playing, the zone that counts
    towards the goal is `lead` with its `progress` (where a game has one such zone); at a win,
    some zone is `won`, and none before."""
    from test_table_visual import DEALS, winning_line

    from skillcheck.serialization import game_from_params

    params, seed = DEALS[name]
    state = game_from_params(name, params).new_state(seed)
    line = winning_line(name)
    for code in line[: len(line) // 2]:
        state.push_code(code)
    board = state.board()
    assert not any(z.extras.get("won") for z in board.zones)
    leads = [z for z in board.zones if z.extras.get("lead")]
    if name != "tripeaks":  # Tri Peaks' goal lies in no one zone
        assert len(leads) == 1 and re.fullmatch(r"\d+ of \d+", leads[0].extras["progress"])
    for code in line[len(line) // 2 :]:
        state.push_code(code)
    assert state.outcome is not None and state.outcome.status.value == "won"
    assert any(z.extras.get("won") for z in state.board().zones)


def absolute_points(d: str) -> list[tuple[str, float, float]]:
    """Each point of an SVG path of M, L, Q and Z commands (absolute or relative), absolute:
    (command, x, y); a Z is the point it returns to."""
    points: list[tuple[str, float, float]] = []
    x = y = start_x = start_y = 0.0
    for command, numbers in re.findall(r"([MLQZmlqz])([^MLQZmlqz]*)", d):
        values = [float(n) for n in re.findall(r"-?\d*\.?\d+", numbers)]
        upper = command.upper()
        if upper == "Z":
            x, y = start_x, start_y
            points.append(("Z", x, y))
            continue
        from_x, from_y = (x, y) if command.islower() else (0.0, 0.0)
        for i in range(0, len(values), 2):
            points.append((upper, from_x + values[i], from_y + values[i + 1]))
        x, y = points[-1][1], points[-1][2]
        if upper == "M":
            start_x, start_y = x, y
    return points


def expected_points(
    font: dict[str, Any], text: str, x: float, y: float, size: float, anchor: str,
    spacing: float, turn: tuple[float, float] | None,
) -> list[tuple[str, float, float]]:  # fmt: skip
    """Where a <text> of ``text`` would put each point of its glyphs' outlines (glyphs.js):
    the pen advancing by each glyph's advance, the kerning with the next one and the spacing."""
    scale = size / font["unitsPerEm"]
    steps = []
    for i, character in enumerate(text):
        advance = font["glyphs"][character][0]
        if i + 1 < len(text):
            advance += font["kerning"].get(character + text[i + 1], 0) + spacing / scale
        steps.append(advance)
    wide = sum(steps) * scale
    left = x - {"middle": wide / 2, "end": wide}.get(anchor, 0)
    points = []
    pen = 0.0
    for character, step in zip(text, steps, strict=True):
        for command, numbers in re.findall(r"([MLQZ])([^MLQZ]*)", font["glyphs"][character][1]):
            if command == "Z":
                points.append(("Z", None, None))
                continue
            values = [int(n) for n in numbers.split()]
            for i in range(0, len(values), 2):
                px, py = left + (values[i] + pen) * scale, y - values[i + 1] * scale
                if turn:
                    px, py = 2 * turn[0] - px, 2 * turn[1] - py
                points.append((command, px, py))
        pen += step
    return points  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("text", "weight", "size", "anchor", "spacing", "turn"),
    [
        ("Ag", "normal", 20, "start", 0, None),
        ("10", "bold", 18, "middle", -2, (50, 70)),
        ("The Forest", "bold", 12.37, "start", 0, None),
        ("Knight", "normal", 11, "middle", 0.88, None),
        ("WAVE", "bold", 25, "end", 0, (50, 70)),
        ("♠ ♥", "normal", 17, "middle", 0, (50, 70)),
    ],
)
def test_a_run_is_its_glyphs_outlines_placed_as_text_would_be(
    page: Page, server: str, text: str, weight: str, size: float, anchor: str, spacing: float,
    turn: tuple[float, float] | None,
) -> None:  # fmt: skip
    """A face's words are paths: each glyph's outline (glyphs.js) scaled to the size and placed
    where SVG text would put it (kerning, spacing, anchor, a turned corner), to a hundredth of
    the card's units, however cards.js writes the path (absolute or relative steps)."""
    attributes = {"x": 7, "y": 60, "font-size": size, "text-anchor": anchor,
                  "letter-spacing": spacing, "font-weight": weight}  # fmt: skip
    d = page.evaluate(
        """async ([url, attributes, text, turn]) => {
            const { runOutline } = await import(url);
            return runOutline(attributes, text, turn);
        }""",
        [cards_module(page, server), attributes, text, list(turn) if turn else None],
    )
    text_of_glyphs = OUT.read_text(encoding="utf-8").split("export const GLYPHS = ", 1)[1]
    font = json.loads(text_of_glyphs.strip().removesuffix(";"))["fonts"][weight]
    want = expected_points(font, text, 7, 60, size, anchor, spacing, turn)
    got = absolute_points(d)
    assert [c for c, _, _ in got] == [c for c, _, _ in want]
    # a Z returns to its contour's first point: the expected one is that point
    starts = [p for p in want if p[0] == "M"]
    worst = 0.0
    contour = -1
    for (command, x, y), (_, wx, wy) in zip(got, want, strict=True):
        if command == "M":
            contour += 1
        if command == "Z":
            wx, wy = starts[contour][1], starts[contour][2]
        worst = max(worst, abs(x - wx), abs(y - wy))
    assert worst <= 0.011, f"{text!r}: a point lies {worst:.4f} units from where text puts it"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_progress_bar_stays_above_the_cards_that_scroll_under_it(
    browser: Any, server: str, new_check: NewCheck, name: str
) -> None:
    """On a phone the table scrolls under the sticky progress bar: the bar is drawn above every
    card (Tri Peaks' overlapping cards once painted over it), so at each point of the bar the
    topmost element is the bar's own, and the bar is small enough to leave the table room."""
    context = browser.new_context(viewport={"width": 360, "height": 560}, reduced_motion="reduce")
    try:
        page = context.new_page()
        check = new_check(seed=4, params=GAMES[name].examples()[0], game=name)
        page.goto(check.url(server))
        expect_check_shown(page)
        covered = page.evaluate(
            """() => {
                const hud = document.querySelector('.hud');
                const cards = [...document.querySelectorAll('#table .card')];
                const tableTop = Math.min(...cards.map((c) => c.getBoundingClientRect().top));
                // scroll until the table's first row lies under the bar, stuck at the top
                window.scrollBy(0, tableTop - hud.getBoundingClientRect().height / 2);
                const bar = hud.getBoundingClientRect();
                const under = cards.filter((c) => {
                    const r = c.getBoundingClientRect();
                    return r.bottom > bar.top && r.top < bar.bottom;
                });
                const wrong = [];
                for (let x = bar.left + 4; x < bar.right - 4; x += 8) {
                    for (let y = bar.top + 3; y < bar.bottom - 3; y += 6) {
                        const top = document.elementFromPoint(x, y);
                        if (!hud.contains(top)) wrong.push([x, y, top && top.className]);
                    }
                }
                return {under: under.length, wrong: wrong.slice(0, 5), height: bar.height};
            }"""
        )
        assert covered["under"] > 0, "no card lies under the bar: the test scrolled wrong"
        assert covered["wrong"] == [], covered
        # what stays over the table is the meters alone, in one row: not the 240 px (a third of
        # a phone's screen) that the meters stacked with the check's facts once took
        assert covered["height"] <= 120, covered
    finally:
        context.close()


@pytest.mark.parametrize("deck", sorted(DECKS))
def test_a_six_and_a_nine_are_underlined_in_both_corners(
    page: Page, server: str, deck: str
) -> None:
    """The bottom corner index is turned half a turn, where a 6 reads as a 9: as on printed
    cards, every 6 and 9 is underlined (a bar under the rank in the top corner, the same bar
    turned over it in the bottom one), and no other rank is."""
    found = page.evaluate(
        """async ([url, deck]) => {
            const { CardTable } = await import(url);
            const cards = await CardTable.load('', deck);
            const out = [];
            for (const [code, card] of cards.cards) {
              const face = cards.face(code);
              const bar = face.querySelector('path.rank-bar');
              const ys = bar ? [...bar.getAttribute('d').matchAll(/M[\\d.-]+ ([\\d.-]+)/g)]
                .map((m) => Number(m[1])) : [];
              out.push({ code, rank: card.rank_char, ys });
            }
            return out;
        }""",
        [cards_module(page, server), deck],
    )
    turning = [f for f in found if f["rank"] in ("6", "9")]
    assert len(turning) >= 6, found
    for face in found:
        if face["rank"] in ("6", "9"):
            top, bottom = sorted(face["ys"]) if len(face["ys"]) == 2 else (None, None)
            assert top is not None and top < 35 and bottom > 105, face  # a 100 x 140 face
        else:
            assert face["ys"] == [], face


def test_the_legend_names_only_the_suits_the_game_deals(
    page: Page, server: str, new_check: NewCheck
) -> None:
    """Tower of Hanoy deals Spades alone: its board says so (board.suits), and the legend lists
    Spades, not the three suits a player would look for in vain. Three Towers, whose hidden
    cards may bear any suit, keeps the whole deck's."""
    check = new_check(seed=2, params=GAMES["hanoy"].examples()[0], game="hanoy")
    assert check.view()["board"]["suits"] == ["S"]
    page.goto(check.url(server))
    expect_check_shown(page)
    expect(page.locator("#legend li")).to_have_text(["♠Spades"])
    other = new_check(seed=2)
    assert other.view()["board"]["suits"] is None
    page.goto(other.url(server))
    expect_check_shown(page)
    expect(page.locator("#legend li")).to_have_count(len(DECKS["decktet"].table()["suits"]))
