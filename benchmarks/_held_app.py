"""The real API, able to hold a check's view back on the server: the page benchmarks'
``--view-after`` (page_render.load_until_painted).

Until 2026-12-05 the view was held in the browser, by a Playwright route (DevTools' request
interception), and let go with ``route.continue_()``. A phone's browser intercepts nothing, so
the hold is now made where a slow network makes it, before the response. Measured against each
other (benchmarks/page_hold.py; docs/performance.md, "2026-12-05, eleventh session") the two
ways gave the same first render, within the noise.

``PUT /__bench/view-hold/{check_id}`` with a number of milliseconds as its body holds every
later browser request for that check's view (``GET /v1/checks/{check_id}`` with a
``Sec-Fetch-Mode`` header, which browsers send and the benchmarks' own client does not) until
that long after it came in: the API answers at once, and the whole answer is sent when the
time is up. ``0`` stops holding. Served only by the benchmarks (``served_chromium``).
"""

from __future__ import annotations

import re
import time

import anyio
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.app import create_app as create_api

HOLD_PATH = "/__bench/view-hold/"
VIEW_PATH = re.compile(r"^/v1/checks/([^/]+)$")


def create_app() -> ASGIApp:
    """The API of the environment's settings, wrapped in the hold."""
    api = create_api()
    holds: dict[str, float] = {}  # check id -> ms

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await api(scope, receive, send)
            return
        path: str = scope["path"]
        if path.startswith(HOLD_PATH) and scope["method"] == "PUT":
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            holds[path[len(HOLD_PATH) :]] = float(body.decode() or 0)
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        found = VIEW_PATH.match(path)
        headers = dict(scope["headers"])
        hold = holds.get(found.group(1), 0) if found and scope["method"] == "GET" else 0
        if not hold or b"sec-fetch-mode" not in headers:
            await api(scope, receive, send)
            return
        came = time.monotonic()
        answer: list[Message] = []

        async def keep(message: Message) -> None:
            answer.append(message)

        await api(scope, receive, keep)
        await anyio.sleep(max(0.0, hold / 1000 - (time.monotonic() - came)))
        for message in answer:
            await send(message)

    return app
