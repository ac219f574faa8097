"""Fixtures for the browser tests: the real API served by uvicorn on a free loopback port (a
temporary SQLite file), Debian's Chromium driven by Playwright, and checks created over HTTP.

Chromium must be at ``/usr/bin/chromium`` (``apt-get install chromium``; ``.ci/run`` installs it):
without it these tests fail with that message instead of skipping. ``playwright install`` is not
used: Playwright's Python driver talks to the system browser.
"""

from __future__ import annotations

import html
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import uvicorn
from browser_support import GAME, GM_KEY, PARAMS, Check

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))
from api_support import winning_seed

from api.app import create_app
from api.settings import Settings

CHROMIUM = os.environ.get("SKILLCHECK_CHROMIUM", "/usr/bin/chromium")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "filterwarnings", "ignore::litestar.exceptions.LitestarDeprecationWarning"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def vtt_port() -> int:
    """The port of the stand-in VTT (see ``vtt``), chosen before the API starts."""
    return _free_port()


@pytest.fixture(scope="session")
def vtt_origin(vtt_port: int) -> str:
    """The stand-in VTT's origin that the API lets frame its pages (SKILLCHECK_FRAME_ANCESTORS).
    The same server reached as ``http://127.0.0.1:<vtt_port>`` is another, unlisted origin."""
    return f"http://localhost:{vtt_port}"


class _VttPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        src = query.get("src", [""])[0]
        # the frame's size: ?w=360&h=640 for a VTT's narrow popout (900 x 800 by default)
        width, height = (
            query.get(key, [""])[0] if query.get(key, [""])[0].isdigit() else default
            for key, default in (("w", "900"), ("h", "800"))
        )
        body = (
            "<!doctype html><meta charset=utf-8><title>A virtual tabletop</title>"
            "<h1>The table</h1>"
            f'<iframe src="{html.escape(src)}" title="Skill check" width="{width}" '
            f'height="{height}"></iframe>'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="session")
def vtt(vtt_port: int, vtt_origin: str) -> Iterator[str]:
    """A real HTTP server on another origin whose ``/table?src=URL`` page frames ``URL`` (in a
    frame of ``w`` x ``h`` pixels when the query gives them).
    (A page served by Playwright's routing counts as public, and Chromium's Local Network
    Access then refuses to frame a loopback server; a loopback embedder is allowed.)"""
    httpd = ThreadingHTTPServer(("127.0.0.1", vtt_port), _VttPage)
    thread = threading.Thread(target=httpd.serve_forever, name="vtt-page", daemon=True)
    thread.start()
    try:
        yield vtt_origin
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, vtt_origin: str) -> Iterator[str]:
    """The API on http://127.0.0.1:<port>, run by uvicorn in a thread; yields the base URL."""
    database = tmp_path_factory.mktemp("browser") / "skillcheck.sqlite3"
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{database}",
        gm_keys=(GM_KEY,),
        frame_ancestors=(vtt_origin,),
    )
    port = _free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, name="uvicorn-browser-tests", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start the API for the browser tests")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        uv.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the tests put screenshots: ``$SKILLCHECK_SCREENSHOTS`` (kept, to look at), or the
    test's temporary folder."""
    folder = Path(os.environ.get("SKILLCHECK_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def http(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=10) as client:
        yield client


@pytest.fixture(scope="session")
def winning() -> tuple[int, list[str]]:
    """A seed of PARAMS whose solver line is short, and that line's move codes."""
    return winning_seed(PARAMS)


@pytest.fixture
def new_check(http: httpx.Client) -> Callable[..., Check]:
    def make(
        seed: int = 7, params: dict[str, Any] | None = None, game: str = GAME, **extra: Any
    ) -> Check:
        body = {"game": game, "params": PARAMS if params is None else params, "seed": seed, **extra}
        created = http.post("/v1/checks", json=body, headers={"Authorization": f"Bearer {GM_KEY}"})
        assert created.status_code == 201, created.text
        data = created.json()
        return Check(
            http,
            data["check_id"],
            data["player_token"],
            data["spectator_token"],
            data["commitment"],
        )

    return make


# ---- the browser ---------------------------------------------------------------------------


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1000, "height": 900})
    ctx.set_default_timeout(8000)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page that fails the test on any uncaught JavaScript error and any console error
    (issue 12: zero in the console), Content-Security-Policy reports included. A test that
    provokes an error on purpose (a refused request, which Chromium logs) names it with
    ``@pytest.mark.console_errors(pattern, ...)``: each pattern a regular expression searched
    in the error's text followed by the URL it is about, "... status of 404 (Not Found) (URL)"."""
    marker = request.node.get_closest_marker("console_errors")
    expected = [re.compile(pattern) for pattern in (marker.args if marker else ())]
    opened = context.new_page()
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(f"page error: {error}"))

    def console(message: Any) -> None:
        if message.type != "error":
            return
        said = f"{message.text} ({message.location.get('url', '')})"
        if not any(pattern.search(said) for pattern in expected):
            problems.append(f"console: {said}")

    opened.on("console", console)
    yield opened
    assert not problems, problems
