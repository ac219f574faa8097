"""The Owlbear Rodeo example extension (examples/owlbear) in the real Chromium, outside Owlbear
Rodeo: its GM form deals a check through CORS and frames the player's page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "api"))

from live_server import api_server  # noqa: E402 (tests/api is not a package)

EXAMPLES = ROOT / "examples"
GM_KEY = "gm-examples-key"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.slow
def test_owlbear_page_in_chromium_deals_and_frames_the_player_page(
    tmp_path: Path, context: Any
) -> None:
    """The extension's page, served from its own origin, outside Owlbear Rodeo (no SDK file):
    the GM form creates a check through CORS and the player's page renders in its iframe."""
    import functools
    import http.server
    import threading

    from playwright.sync_api import expect

    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(EXAMPLES / "owlbear")
    )
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=static.serve_forever, daemon=True).start()
    extension = f"http://127.0.0.1:{static.server_address[1]}"
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{tmp_path / 'checks.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_CORS_ORIGINS": extension,
        "SKILLCHECK_FRAME_ANCESTORS": extension,
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    try:
        with api_server(env) as base:
            page = context.new_page()
            page.goto(f"{extension}/index.html")
            page.wait_for_selector("#gm:not([hidden])")  # standalone: the GM form
            assert "Outside Owlbear Rodeo" in page.inner_text("#status")
            page.fill("#api", base)
            page.fill("#key", GM_KEY)
            page.fill("#level", "6")
            page.fill("#skill", "3")
            page.fill("#quota", "3")
            page.click("button[type=submit]")
            page.wait_for_function("document.getElementById('status').textContent.includes('#')")
            link = page.inner_text("#status").split(": ", 1)[1].strip()
            assert link.startswith(f"{base}/play/") and "#token=sc_play_" in link
            page.evaluate(
                "url => { document.getElementById('play-frame').src = url;"
                " document.getElementById('play').hidden = false; }",
                link,
            )
            table = page.frame_locator("#play-frame").locator("body")
            expect(table).to_contain_text("You are the player", timeout=15_000)
            page.close()
            # The check the page dealt is on the server, and the link's token plays it.
            check_id, _, token = link.removeprefix(f"{base}/play/").partition("#token=")
            view = httpx.get(f"{base}/v1/checks/{check_id}", headers=bearer(token))
            assert view.status_code == 200 and view.json()["label"] == "Pick the lock"
            assert view.json()["params"]["variant"]["quota"] == 3
    finally:
        static.shutdown()
