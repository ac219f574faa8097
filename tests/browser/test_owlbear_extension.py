"""The Owlbear Rodeo extension (examples/owlbear) end to end in Debian's Chromium, inside the
stand-in Owlbear host (examples/owlbear/devhost): the host page on one origin embeds the
extension from another (cross-site iframes with ``obrref``) and answers the SDK's postMessage
protocol; a real skillcheck server on a third origin.

The GM and the player are two browser contexts (two devices). The GM keeps the settings in the
popover, picks a token with the context menu, builds the check from the game's parameters and
sends it; the player's popover opens with the check and the player plays it to the end inside
it (the winning line from the library's solver, clicked on the page's list of moves); the result
is broadcast to the room and shown to the GM as a notification (and, if the check ends while the
GM is away, when the GM opens the room again, once). The GM key reaches no broadcast,
no metadata and no frame of the player's; the player's token reaches no metadata and travels
only sealed.

Screenshots: ``SKILLCHECK_SCREENSHOTS=docs/images/vtt`` writes the ones docs/vtt-owlbear.md
shows (``owlbear-*.png``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "api"))
sys.path.insert(0, str(ROOT / "examples" / "owlbear" / "devhost"))

from browser_support import parse_link  # noqa: E402
from live_server import api_server  # noqa: E402 (tests/api is not a package)
from serve import devhost, host_url  # noqa: E402 (the stand-in host, not a package)

from skillcheck.games.hanoy.solver import solve  # noqa: E402
from skillcheck.serialization import game_from_params  # noqa: E402

GM_KEY = "gm-owlbear-secret-key-0042"
NS = "org.skillcheck.owlbear"
POPOVER = "#popover iframe"


def shot(page: Any, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"owlbear-{name}.png"))


def watch_errors(page: Any, problems: list[str], who: str) -> None:
    """Every uncaught error and console error of the page and its frames fails the test."""
    page.on("pageerror", lambda error: problems.append(f"{who}: page error: {error}"))

    def console(message: Any) -> None:
        if message.type == "error" or (message.type == "warning" and "skillcheck" in message.text):
            problems.append(
                f"{who}: console {message.type}: {message.text} at {message.location.get('url')}"
            )

    page.on("console", console)
    page.on(
        "response", lambda r: r.status >= 400 and problems.append(f"{who}: HTTP {r.status} {r.url}")
    )


def room_server(tmp_path: Path, host: str, extension: str) -> Any:
    """The API for a stand-in room: its own SQLite file, the extension allowed to call it, and
    the host and the extension allowed to frame the player's page."""
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{tmp_path / 'checks.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_CORS_ORIGINS": extension,
        "SKILLCHECK_FRAME_ANCESTORS": f"{host},{extension}",
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    return api_server(env, log=tmp_path / "server.log")


def wait_for(predicate: Any, what: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def send_bo_a_check(page: Any, gm: Any, server: str, label: str) -> str:
    """In the GM's open popover ``gm``: connect to ``server`` with the GM key, pick Bo's token
    and send a check labelled ``label`` with nobody to send it to; the player's link shown."""
    from playwright.sync_api import expect

    gm.locator("#server").fill(server)
    gm.locator("#gm-key").fill(GM_KEY)
    gm.locator("#settings-form button[type=submit]").click()
    expect(gm.locator("#create-form")).to_be_visible()
    page.click(".token[data-item='token-bo']")
    expect(gm.locator("#target")).to_contain_text("A check for Bo")
    expect(gm.locator("#player")).to_have_value("")  # nobody connected
    gm.locator("#check-label").fill(label)
    gm.locator("#send").click()
    expect(gm.locator("#sent")).to_contain_text("Send the player this link privately")
    link: str = gm.locator("#sent-url").input_value()
    assert link.startswith(f"{server}/play/")
    _id, game, token = parse_link(link)
    assert game == "three-towers" and token.startswith("sc_play_")
    return link


@pytest.mark.slow
def test_gm_sends_a_check_the_player_plays_it_in_the_popover_and_the_room_sees_the_result(
    tmp_path: Path, browser: Any, shots: Path
) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    with devhost() as (host, extension, room), room_server(tmp_path, host, extension) as server:
        devices = [browser.new_context(viewport={"width": 1180, "height": 860}) for _ in range(2)]
        try:
            for device in devices:
                device.set_default_timeout(10_000)
            player_page, gm_page = (device.new_page() for device in devices)
            watch_errors(player_page, problems, "player")
            watch_errors(gm_page, problems, "GM")

            # The player joins first: their extension publishes its public key.
            player_page.goto(
                host_url(host, extension, player_id="player-mira", name="Mira", role="PLAYER")
            )
            wait_for(
                lambda: any(e["kind"] == "player-metadata" for e in room.log),
                "the player's public key in their player metadata",
            )
            gm_page.goto(host_url(host, extension, player_id="gm-1", name="Gwen", role="GM"))
            gm_page.wait_for_selector("body[data-ready=true]")

            # 1. The GM opens the popover and saves the server settings.
            gm_page.click("#action")
            gm = gm_page.frame_locator(POPOVER)
            expect(gm.locator("#settings")).to_have_attribute("open", "")
            gm.locator("#server").fill(server)
            gm.locator("#gm-key").fill(GM_KEY)
            shot(gm_page, shots, "1-gm-settings")
            gm.locator("#settings-form button[type=submit]").click()
            expect(gm.locator("#create-form")).to_be_visible()
            expect(gm.locator("#game option")).not_to_have_count(0)

            # 2. The GM right-clicks Mira's token: "Skill check" (context menu, GM only).
            gm_page.click(".token[data-item='token-mira']", button="right")
            expect(gm_page.locator("#context-menu")).to_contain_text("Skill check")
            shot(gm_page, shots, "2-gm-context-menu")
            gm_page.locator("#context-menu button", has_text="Skill check").click()
            expect(gm.locator("#target")).to_contain_text("A check for Mira")
            expect(gm.locator("#character")).to_have_value("Mira")
            expect(gm.locator("#player option:checked")).to_have_text("Mira")

            # 3. The game from GET /v1/games, its parameters from its schema; another variant's
            # options (applies_if) hide: the standard game shows no quota.
            gm.locator("#game").select_option(label="Three Towers")
            expect(gm.locator("#param-quota")).to_be_visible()
            gm.locator("#param-variant").select_option("standard")
            expect(gm.locator("#param-quota")).to_be_hidden()
            expect(gm.locator("label[for='param-quota']")).to_be_hidden()
            gm.locator("#param-variant").select_option("quota")
            expect(gm.locator("#param-quota")).to_be_visible()
            gm.locator("#game").select_option(label="Tower of Hanoy")
            expect(gm.locator("#param-cards")).to_have_value("5")  # the game's first example
            expect(gm.locator("#param-skill")).to_have_value("2")
            gm.locator("#check-label").fill("Climb the cliff")
            gm.locator("#hints").check()
            shot(gm_page, shots, "3-gm-new-check")
            gm.locator("#send").click()
            expect(gm.locator("#sent")).to_contain_text("Sent to Mira")
            expect(gm.locator("#room-list")).to_contain_text("Mira — Climb the cliff")
            expect(gm.locator("#room-list")).to_contain_text("playing")
            shot(gm_page, shots, "4-gm-sent")

            # 4. The player's popover opens by itself with the check inside.
            player_page.wait_for_selector(POPOVER)
            mine = player_page.frame_locator(POPOVER)
            expect(mine.locator("#mine")).to_be_visible()
            expect(mine.locator("#mine-title")).to_have_text("Your check: Climb the cliff")
            expect(player_page.locator("#notifications")).to_contain_text(
                "The GM sent you a skill check: Climb the cliff"
            )
            src = mine.locator("#play-frame").get_attribute("src")
            assert src is not None and src.startswith(f"{server}/play/")
            check_id, game, token = parse_link(src)
            check_id = unquote(check_id)
            assert game == "hanoy" and token.startswith("sc_play_")
            table = mine.frame_locator("#play-frame")
            expect(table.locator("body")).to_contain_text("You are the player", timeout=15_000)
            shot(player_page, shots, "5-player-check-arrives")

            # 5. The player plays it to a win inside the popover.
            auth = {"Authorization": f"Bearer {token}"}
            view = httpx.get(f"{server}/v1/checks/{check_id}", headers=auth).json()
            assert view["game"] == "hanoy" and view["label"] == "Climb the cliff"
            assert view["character"] == "Mira" and view["hints"] is True
            state = game_from_params("hanoy", view["params"]).state_from_code(
                view["observation_code"]
            )
            line = [move.code for move in solve(state).moves]
            assert line, "the solver found no winning line"
            for number, code in enumerate(line, start=1):
                keyboard = table.locator("#keyboard")  # every legal move, as buttons
                if keyboard.get_attribute("open") is None:
                    keyboard.locator("summary").click()
                table.locator(f"#moves button[data-code='{code}']").click()
                wait_for(
                    lambda n=number: (
                        httpx.get(f"{server}/v1/checks/{check_id}", headers=auth).json()["version"]
                        == n
                    ),
                    f"move {number} ({code}) on the server",
                )
                if number == 1:  # the table, not the list of moves, for the guide
                    table.locator("#board").scroll_into_view_if_needed()
                    table.locator("body").evaluate("() => window.scrollTo(0, 0)")
                    shot(player_page, shots, "6-player-plays")
            final = httpx.get(f"{server}/v1/checks/{check_id}", headers=auth).json()
            assert final["status"] == "won", final["status"]
            expect(table.locator("#result")).to_be_visible()

            # 6. The result reaches the room: a notification for everyone, the GM included.
            words = f"Mira — Climb the cliff: {final['tier_text']}"
            expect(gm_page.locator("#notifications")).to_contain_text(words)
            expect(player_page.locator("#notifications")).to_contain_text(words)
            expect(gm.locator("#room-list")).to_contain_text(final["tier_text"])
            expect(mine.locator("#room-list")).to_contain_text(final["tier_text"])
            table.locator("#result").scroll_into_view_if_needed()
            gm.locator("#room").scroll_into_view_if_needed()
            shot(player_page, shots, "7-player-result")
            shot(gm_page, shots, "8-gm-result")

            # The broadcast carries the result to ALL, from the GM's connection.
            results = [
                e
                for e in room.log
                if e["kind"] == "broadcast" and e["data"]["channel"] == f"{NS}/result"
            ]
            assert len(results) == 1, results
            [result] = results
            assert result["destination"] == "ALL"
            sent = result["data"]["data"]
            assert sent["check_id"] == check_id and sent["character"] == "Mira"
            assert sent["status"] == "won" and sent["result"] == final["tier_text"]
            assert sent["tier"] == final["tier"] and sent["degree"] == final["degree"]

            # The link went sealed, to Mira only; the room's list is small and has no token.
            links = [
                e
                for e in room.log
                if e["kind"] == "broadcast" and e["data"]["channel"] == f"{NS}/link"
            ]
            assert len(links) == 1 and links[0]["data"]["data"]["to"] == "player-mira"
            listed = room.metadata[f"{NS}/checks"]
            assert [e["check_id"] for e in listed] == [check_id] and listed[0]["status"] == "won"
            assert len(json.dumps(room.metadata).encode()) < 4096
            everything_shared = json.dumps(room.log)
            assert GM_KEY not in everything_shared
            assert "sc_play_" not in everything_shared and token not in everything_shared

            # Nothing of the player's device holds the GM key: frames, URLs, storage.
            for frame in player_page.frames:
                assert GM_KEY not in frame.url
                assert GM_KEY not in frame.content()
            [extension_frame, *_] = [f for f in player_page.frames if f.url.startswith(extension)]
            stored = extension_frame.evaluate("() => JSON.stringify(localStorage)")
            assert f"{NS}/keys/player-mira" in stored and GM_KEY not in stored
            # ...while the GM's device keeps it, in the extension's storage only.
            gm_stored = (
                gm_page.frame_locator(POPOVER)
                .locator("body")
                .evaluate("() => JSON.stringify(localStorage)")
            )
            assert GM_KEY in gm_stored
            assert gm_page.evaluate("window.unanswered") == []
            assert player_page.evaluate("window.unanswered") == []
        finally:
            for device in devices:
                device.close()
    assert not problems, problems


@pytest.mark.slow
def test_where_the_browser_blocks_the_extensions_storage_the_gm_still_gets_the_result(
    tmp_path: Path, browser: Any, shots: Path
) -> None:
    """The extension on another SITE than the host (as it is for www.owlbear.rodeo): Chromium,
    blocking third-party cookies, refuses the extension's frames localStorage. The popover says
    so; the settings typed in it still reach the background page (in memory, over a
    BroadcastChannel), which follows the check and tells the GM its result. With nobody to send
    it to, the popover shows the player's link to pass on privately."""
    from playwright.sync_api import expect

    problems: list[str] = []
    with devhost(cross_site=True) as (host, extension, room):
        assert extension.startswith("http://localhost:")
        with room_server(tmp_path, host, extension) as server:
            device = browser.new_context(viewport={"width": 1180, "height": 860})
            try:
                device.set_default_timeout(10_000)
                page = device.new_page()
                watch_errors(page, problems, "GM")
                page.goto(host_url(host, extension, player_id="gm-1", name="Gwen", role="GM"))
                # the button works once the host has read the manifest (a loaded machine is slow)
                page.wait_for_selector("body[data-ready=true]")
                page.click("#action")
                gm = page.frame_locator(POPOVER)
                expect(gm.locator("#not-kept")).to_be_visible()
                blocked = gm.locator("body").evaluate(
                    "() => { try { localStorage.length; return false; } catch { return true; } }"
                )
                assert blocked, "the browser let the cross-site frame use localStorage"
                link = send_bo_a_check(page, gm, server, "Swim the river")
                shot(page, shots, "9-gm-link-to-pass-on")
                check_id, _game, token = parse_link(link)
                conceded = httpx.post(
                    f"{server}/v1/checks/{check_id}/concede",
                    headers={"Authorization": f"Bearer {token}"},
                )
                assert conceded.status_code == 200, conceded.text
                tier_text = conceded.json()["tier_text"]
                expect(page.locator("#notifications")).to_contain_text(
                    f"Bo — Swim the river: {tier_text}"
                )
                expect(gm.locator("#room-list")).to_contain_text(tier_text)
                assert GM_KEY not in json.dumps(room.log)
                assert not [e for e in room.log if e["data"].get("channel") == f"{NS}/link"]
                assert page.evaluate("window.unanswered") == []
            finally:
                device.close()
    assert not problems, problems


@pytest.mark.slow
def test_a_check_that_ends_while_the_gm_is_away_is_announced_when_the_gm_comes_back_once(
    tmp_path: Path, browser: Any
) -> None:
    """The GM sends a check and closes the room; the check ends meanwhile. When the GM opens
    the room again (the same device: the extension kept its settings and its checks), the
    extension catches up from the server's list: the result is broadcast to the room and shown
    to the GM, once, and not again the next time the room opens."""
    from playwright.sync_api import expect

    problems: list[str] = []
    with devhost() as (host, extension, room), room_server(tmp_path, host, extension) as server:
        device = browser.new_context(viewport={"width": 1180, "height": 860})
        device.set_default_timeout(10_000)

        def open_room(who: str) -> Any:
            page = device.new_page()
            watch_errors(page, problems, who)
            page.goto(host_url(host, extension, player_id="gm-1", name="Gwen", role="GM"))
            page.wait_for_selector("body[data-ready=true]")
            return page

        def results() -> list[dict[str, Any]]:
            return [
                e["data"]["data"]
                for e in room.log
                if e["kind"] == "broadcast" and e["data"]["channel"] == f"{NS}/result"
            ]

        try:
            page = open_room("GM")
            page.click("#action")
            link = send_bo_a_check(page, page.frame_locator(POPOVER), server, "Pick the lock")
            check_id, _game, token = parse_link(link)
            page.close()  # the GM leaves the room

            conceded = httpx.post(
                f"{server}/v1/checks/{check_id}/concede",
                headers={"Authorization": f"Bearer {token}"},
            )
            assert conceded.status_code == 200, conceded.text
            tier_text = conceded.json()["tier_text"]
            time.sleep(0.5)
            assert results() == []  # nobody announced it: the GM was away

            page = open_room("GM, back")
            expect(page.locator("#notifications")).to_contain_text(
                f"Bo — Pick the lock: {tier_text}"
            )
            wait_for(results, "the result broadcast")
            [announced] = results()
            assert announced["check_id"] == check_id and announced["status"] == "lost"
            page.close()

            page = open_room("GM, again")
            page.click("#action")
            expect(page.frame_locator(POPOVER).locator("#room-list")).to_contain_text(tier_text)
            time.sleep(1.0)  # time to announce it again, were it to
            assert len(results()) == 1, results()
            assert GM_KEY not in json.dumps(room.log)
        finally:
            device.close()
    assert not problems, problems
