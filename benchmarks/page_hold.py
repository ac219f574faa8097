"""Where the view is held changes what is measured: held in the browser by a Playwright route
(DevTools' request interception, the page benchmarks' way until 2026-12-05) against held by the
server (benchmarks/_held_app.py, their way since), cold loads alternately, on one check and
under one calibration (docs/performance.md, "2026-12-05, eleventh session").

    python3 benchmarks/page_hold.py [--games three-towers tripeaks] [--viewports phone]

A phone's browser intercepts nothing: its view comes off the network. Printed per game,
viewport and way: view -> read (the response's last byte to the page's ``skillcheck:view``
mark: handing the response over), view -> drawn and view -> painted (p50 / p90, as
page_render.py measures them), then the median of the load-by-load difference of view ->
painted, server less route.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _api_harness import percentile
from _held_app import HOLD_PATH
from page_render import (
    SHIFTS,
    VIEWPORTS,
    alternate,
    check_of,
    load_until_painted,
    make_check,
    paired,
    paired_parser,
    rate_for,
    served_chromium,
)


def load_with_route(page: Any, url: str, view_after: float) -> None:
    """The way before: the server answers at once; a route holds the request in the browser
    until ``view_after`` ms after the page asked, then lets it go (``route.continue_()``)."""
    check_id = check_of(url)
    base = url.split("/play/", 1)[0]
    httpx.put(f"{base}{HOLD_PATH}{check_id}", content="0").raise_for_status()
    held: list[tuple[Any, float]] = []
    page.route(
        re.compile(rf".*/v1/checks/{re.escape(check_id)}$"),
        lambda route: held.append((route, time.monotonic())),
    )
    with page.expect_console_message(lambda m: m.text == "skillcheck:painted", timeout=120_000):
        page.goto(url)
        while not held:
            page.wait_for_timeout(5)
        route, asked = held[0]
        page.wait_for_timeout(max(0.0, view_after - (time.monotonic() - asked) * 1000))
        route.continue_()


WAYS = {"route": load_with_route, "server": load_until_painted}


def line(prefix: str, name: str, loads: list[dict[str, Any]]) -> str:
    parts = [f"{prefix} {name:>7}"]
    for key in ("read", "drawn", "painted"):
        values = [m[key] for m in loads]
        parts.append(f"{key} {statistics.median(values):6.1f} / {percentile(values, 0.9):6.1f}")
    return "  ".join(parts)


def main() -> None:
    parser = paired_parser(__doc__ or "", loads=8)
    args = parser.parse_args()
    print(
        f"view after {args.view_after:g} ms; ms from the view's arrival, p50 / p90 of "
        f"{args.loads} loads of each way, alternately"
    )
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            for size in args.viewports:
                throttle = rate_for(browser, args, f"{game}, {size}", default_device="low-tier")
                contexts = {}
                for way in WAYS:
                    context = browser.new_context(**VIEWPORTS[size], reduced_motion="reduce")
                    context.add_init_script(SHIFTS)
                    contexts[way] = context
                found = alternate(
                    contexts, link, args.loads, throttle, args.latency, args.view_after,
                    loaders=WAYS,
                )  # fmt: skip
                for context in contexts.values():
                    context.close()
                prefix = f"{game:12}  {size:6}  {throttle:5.2f}x"
                for way in WAYS:
                    print(line(prefix, way, found[way]), flush=True)
                median, quicker = paired(found, "server", "route")
                print(
                    f"{game:12}  {size:6}  server - route: view -> painted {median:+.1f} ms "
                    f"(median of pairs), server quicker in {quicker}/{args.loads}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
