"""What the browser tests share besides fixtures: the GM key, the check parameters and a check
created over HTTP (a module of its own so that tests import it by a name no other directory
uses; ``conftest`` is a name every test directory has)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

GM_KEY = "gm-browser-test-key"
#: The game most browser tests play (test_games_on_the_page.py plays every registered game).
GAME = "three-towers"
PARAMS: dict[str, Any] = {
    "level": 6,
    "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 3},
}


@dataclass
class Check:
    """A check created over HTTP, with helpers to act as its player or read it."""

    http: httpx.Client
    check_id: str
    player: str
    spectator: str
    commitment: str

    def auth(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.player}"}

    def view(self) -> dict[str, Any]:
        got = self.http.get(f"/v1/checks/{self.check_id}", headers=self.auth())
        assert got.status_code == 200, got.text
        data: dict[str, Any] = got.json()
        return data

    def move(self, code: str) -> dict[str, Any]:
        moved = self.http.post(
            f"/v1/checks/{self.check_id}/moves", json={"move": code}, headers=self.auth()
        )
        assert moved.status_code == 200, moved.text
        data: dict[str, Any] = moved.json()
        return data

    def record(self) -> dict[str, Any]:
        got = self.http.get(f"/v1/checks/{self.check_id}/record", headers=self.auth())
        assert got.status_code == 200, got.text
        data: dict[str, Any] = got.json()
        return data

    def url(self, server: str, token: str | None = None, game: str | None = None) -> str:
        """The page link; ``game`` adds the hint the API's links carry (``?game=``)."""
        query = f"?game={game}" if game is not None else ""
        return f"{server}/play/{self.check_id}{query}#token={token or self.player}"


# ---- the board as the page draws it ----------------------------------------------------------


#: A check's page link as the API and its clients make it (api/pages.py, play_link).
PAGE_LINK = re.compile(
    r"^(?P<base>.*)/play/(?P<check>[^/?#]+)\?game=(?P<game>[\w-]+)#token=(?P<token>\S+)$"
)


def parse_link(link: str) -> tuple[str, str, str]:
    """The check id, the game and the token of a page link (which must carry all three)."""
    found = PAGE_LINK.match(link)
    assert found, f"not a page link with its game and token: {link}"
    return found["check"], found["game"], found["token"]


#: The exposed card of a zone (a button while the player may move), and a zone's head.
def zone_card(zone: str) -> str:
    return f".zone[data-zone='{zone}'] li.top .card"


def zone_head(zone: str) -> str:
    return f".zone[data-zone='{zone}'] .zone-head"


def shown_cards(view: dict[str, Any]) -> dict[str, list[str | None]]:
    """What the page should show of each zone of ``view["board"]``: every card of a stack, fan
    or row; the top card of a pile or slot (a face-down one, None, if it shows none but holds
    some)."""
    shown: dict[str, list[str | None]] = {}
    for zone in view["board"]["zones"]:
        cards = list(zone["cards"])
        if zone["layout"] in ("pile", "slot"):
            cards = cards[-1:]
        if not cards and zone["count"] > 0:
            cards = [None]
        shown[zone["id"]] = cards
    return shown


def page_cards(page: Any) -> dict[str, list[str | None]]:
    """Each zone's cards as the page shows them (None for a card's back)."""
    found: dict[str, list[str | None]] = page.eval_on_selector_all(
        ".zone[data-zone]",
        "zones => Object.fromEntries(zones.map(z => [z.dataset.zone,"
        " [...z.querySelectorAll('.cards .face')].map(f => f.dataset.code ?? null)]))",
    )
    return found


def result_heading(view: dict[str, Any]) -> str:
    """The result's heading for an ended ``view``: won or lost, then the tier in words unless it
    is the plain success or failure that won or lost already says."""
    words = "✔ Check won" if view["status"] == "won" else "✘ Check lost"
    tier = (view.get("tier_text") or "").lower()
    return words if tier in ("", "success", "failure") else f"{words}: {tier}"


def expect_check_shown(where: Any) -> None:
    """Waits until the player's page (a page or a frame) shows its check: the parts it lays out
    unseen while the view is on its way are no longer ``pending`` (transparent, so Playwright
    would call them visible already), and the game is shown."""
    from playwright.sync_api import expect

    expect(where.locator("#main")).not_to_have_class(re.compile(r"(^|\s)pending(\s|$)"))
    expect(where.locator("#game")).to_be_visible()


def open_with_view_held(
    page: Any, url: str, check_id: str, until: str = "() => true", what: str = "the page"
) -> Callable[[], None]:
    """Opens the player's ``url`` with the check's view held, as on a slow network, and waits
    until the page has asked for the view and the script ``until`` holds (``what`` names it if
    it never does). Returns what lets the view through."""
    pattern = re.compile(rf".*/v1/checks/{re.escape(check_id)}$")
    held: list[Any] = []
    page.route(pattern, lambda route: held.append(route))
    if page.url == url:
        page.reload()  # (going to the same URL and fragment would load nothing)
    else:
        page.goto(url)
    for _ in range(500):
        if held and page.evaluate(until):
            break
        page.wait_for_timeout(20)
    assert held and page.evaluate(until), f"{what} was not ready while the view was held"

    def release() -> None:
        held[0].continue_()
        page.unroute(pattern)

    return release


def open_drawn_ahead(page: Any, url: str, check_id: str) -> None:
    """Opens the player's ``url`` with the check's view held until the page has drawn ahead
    what it draws while waiting (the decks' faces, then the card back as an image: the mark
    ``skillcheck:back-image``), so the first table is drawn the same way whatever the
    machine's speed."""
    drawn = "() => performance.getEntriesByName('skillcheck:back-image').length > 0"
    open_with_view_held(page, url, check_id, drawn, "the card back drawn ahead")()


def click_move(page: Any, view: dict[str, Any], code: str, frame: Any = None) -> None:
    """Play the move ``code`` of ``view`` as a player does: tap the zone it comes from (its
    exposed card), then the zone it goes to (its head), or only the source for a move that goes
    nowhere in particular. The zones come from the view's ``moves``; no code is read here."""
    where = frame or page
    move = next(m for m in view["moves"] if m["code"] == code)
    where.locator(zone_card(move["from"])).click()
    if move["to"] is not None:
        target = where.locator(zone_head(move["to"]))
        if target.count() == 0:  # a slot has no head: its card or empty place is the target
            target = where.locator(f".zone[data-zone='{move['to']}'] li.top > *")
        target.click()


def open_door(page: Any, door: str) -> None:
    """Open one of the page's folded panels (``keyboard``: the move box and every legal move;
    ``verify``: versions, the commitment and the revealed record), if it is not open yet."""
    if page.locator(f"#{door}").get_attribute("open") is None:
        page.locator(f"#{door} > summary").click()


def snap(target: Any, shots: Path, name: str) -> None:
    """A full-page screenshot of a page or frame, ``<shots>/<name>.png``, to look at."""
    target.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def no_overlaps(page: Any) -> None:
    """No two zones outside a slot grid overlap (slots overlap as their x, y say)."""
    boxes = page.eval_on_selector_all(
        ".zone:not(.zone-slot)",
        "zs => zs.map(z => { const r = z.getBoundingClientRect();"
        " return [z.dataset.zone, r.left, r.top, r.right, r.bottom]; })",
    )
    for i, (a, al, at, ar, ab) in enumerate(boxes):
        for b, bl, bt, br, bb in boxes[i + 1 :]:
            apart = ar <= bl + 0.5 or br <= al + 0.5 or ab <= bt + 0.5 or bb <= at + 0.5
            assert apart, f"zones {a} and {b} overlap"
