"""First render of the player's page in Chromium: how long from the view's arrival to a drawn
and painted table, and how much the layout shifts (issue 12: under 100 ms, no layout shift).

    python3 benchmarks/page_render.py                    # every game, laptop and phone, 20 loads
    python3 benchmarks/page_render.py --loads 50 --latency 50 --throttle 4 --json out.json

The real API runs in a subprocess (a fresh SQLite file, benchmarks/_api_harness.py) on
loopback; for each registered game a check is created (its first example's parameters, a fixed
seed) and played a few moves in, then the player's page is loaded ``--loads`` times in Debian's
Chromium (``SKILLCHECK_CHROMIUM``, default /usr/bin/chromium) at 1280 x 800 and at 360 x 740
(a phone or a VTT's narrow frame), motion reduced.

The view has arrived when the last byte of its response has (``responseEnd`` of the page's
``GET /v1/checks/{id}`` in Resource Timing), so whatever the page is busy with when it comes
counts. The page marks ``skillcheck:drawn`` when the table is in the DOM and
``skillcheck:painted`` in a task after the next animation frame (the table is on screen;
``performance.mark``, api/static/play.js). Reported per game and viewport: p50, p90 and the
worst of view -> drawn and view -> painted, navigation -> painted, and the cumulative layout
shift (the Layout Instability API's entries without recent input, summed over the load).

``--latency MS`` adds that round trip to every request (DevTools' network emulation), as a
phone's network: loopback answers at once, which leaves the page no time to prepare while it
waits. ``--view-after MS`` holds the view's answer alone until MS ms after the page asked for it
(the server holds it, benchmarks/_held_app.py; before 2026-12-05, a Playwright route did, which
made the page read it later), so that the page has started (its modules run, its decks' tables
read, its first frame drawn) before the view comes: what is left is the table's own drawing.
``--throttle N`` slows Chromium's CPU N times (DevTools' CPU throttling). ``--device mid-tier``
(or ``low-tier``) slows it instead as much as makes this host score a Pixel 5's (or a Moto G
Power 2022's) BenchmarkIndex, calibrated afresh before each game and viewport as DevTools
calibrates (benchmarks/_cpu.py): the same phone whatever the host, and whatever its load at the
time.
``--extra-css CSS`` adds rules at the end of the page's stylesheet, to measure a change of the
drawing before making it. Motion is reduced (``prefers-reduced-motion``) unless ``--motion``: with
it, the first table is dealt as most players see it, each card flown in from the stock
(api/static/motion.js), and the measure includes starting those animations.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _api_harness import GM_KEY, api_server, bearer, percentile, throwaway_database
from _cpu import DEVICE_SCORES, calibrate
from _held_app import HOLD_PATH
from rich.console import Console
from rich.table import Table

from skillcheck.engine import GAMES

CHROMIUM = os.environ.get("SKILLCHECK_CHROMIUM", "/usr/bin/chromium")
VIEWPORTS = {
    "laptop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
}
SHIFTS = """
window.__cls = 0;
window.__moved = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__cls += entry.value;
    for (const source of entry.sources || []) {
      const node = source.node;
      const name = node && (node.id || String(node.className?.baseVal ?? node.className ?? ""));
      window.__moved.push(node ? name || node.nodeName : "?");
    }
  }
}).observe({ type: "layout-shift", buffered: true });
"""
MEASURE = """() => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
  // The view has arrived when its response's last byte has (Resource Timing), not when the
  // page got round to reading it: work the page does while waiting counts if it delays the read.
  const fetched = performance.getEntriesByType("resource").filter(
    (e) => e.initiatorType === "fetch" && /\\/v1\\/checks\\/[^/?]+$/.test(e.name.split("?")[0]));
  const view = fetched.length ? fetched[0].responseEnd : at("skillcheck:view");
  const drawn = at("skillcheck:drawn");
  const painted = at("skillcheck:painted");
  return { drawn: drawn - view, painted: painted - view, total: painted, cls: window.__cls,
           moved: window.__moved, read: at("skillcheck:view") - view };
}"""


def check_of(link: str) -> str:
    """The check id of a player's link (``/play/{id}?game=...#token=...``)."""
    return link.split("/play/", 1)[1].split("#", 1)[0].split("?", 1)[0]


def make_check(http: httpx.Client, name: str, moves: int, hint: bool = True) -> str:
    """A check of ``name`` a few moves in; returns the player's link (path, query and fragment):
    with the game as its hint (``?game=``), as the API's links carry it, unless ``hint`` is
    false."""
    params = GAMES[name].examples()[0]
    made = http.post(
        "/v1/checks",
        json={"game": name, "params": params, "seed": 4, "label": "Benchmark"},
        headers=bearer(GM_KEY),
    )
    made.raise_for_status()
    body = made.json()
    token = body["player_token"]
    view = body["view"]
    for _ in range(moves):
        if view["status"] != "in_progress" or not view["moves"]:
            break
        moved = http.post(
            f"/v1/checks/{body['check_id']}/moves",
            json={"move": view["moves"][0]["code"]},
            headers=bearer(token),
        )
        moved.raise_for_status()
        view = moved.json()
    query = f"?game={name}" if hint else ""
    return f"/play/{body['check_id']}{query}#token={token}"


#: Tells the harness the table is painted, as a console message, so that it need not poll the
#: page while the page works (each poll is a script run on the page's main thread).
PAINTED_SIGNAL = """
new PerformanceObserver((list) => {
  if (list.getEntriesByName("skillcheck:painted").length) console.debug("skillcheck:painted");
}).observe({ type: "mark", buffered: true });
"""


def stylesheet_with(css: str) -> Any:
    """A route handler that serves play.css with ``css`` added at its end."""

    def patch(route: Any) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, body=answer.text() + "\n" + css)

    return patch


#: The API as the benchmarks serve it: able to hold a view back (``--view-after``).
HELD_APP = "benchmarks._held_app:create_app"


@contextmanager
def served_chromium() -> Iterator[tuple[Any, httpx.Client, Any]]:
    """The real API on a throwaway SQLite file (a subprocess), a client of it, and Debian's
    Chromium driven by Playwright: yields (server, http, browser)."""
    from playwright.sync_api import sync_playwright

    with (
        throwaway_database(None) as url,
        api_server(url, app=HELD_APP) as server,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            with httpx.Client(base_url=server.base_url, timeout=30) as http:
                yield server, http, browser
        finally:
            browser.close()


def new_page(
    context: Any, throttle: float = 1, latency: float = 0, extra_css: str = ""
) -> tuple[Any, Any]:
    """A new page of ``context`` and its CDP session: CPU ``throttle`` times slower, ``latency``
    ms added to every round trip, ``extra_css`` at the end of play.css."""
    page = context.new_page()
    page.add_init_script(PAINTED_SIGNAL)
    cdp = context.new_cdp_session(page)
    if throttle > 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    if latency > 0:
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": latency,
                "downloadThroughput": -1,
                "uploadThroughput": -1,
            },
        )
    if extra_css:
        page.route("**/play.css", stylesheet_with(extra_css))
    return page, cdp


def load_until_painted(page: Any, url: str, view_after: float = 0) -> None:
    """Opens ``url`` (a player's link, on a server of ``served_chromium``), the view's answer
    held by the server until ``view_after`` ms after the page asked for it, and returns once
    the page marks ``skillcheck:painted``. (The hold is the server's, not a route's: a browser
    intercepting the request hands its response to the page later; benchmarks/_held_app.py.)"""
    base = url.split("/play/", 1)[0]
    httpx.put(f"{base}{HOLD_PATH}{check_of(url)}", content=str(view_after)).raise_for_status()
    # (the page's policy forbids the eval a waiting predicate needs, and polling would run
    # scripts on the main thread the page is measured on: the page signals, PAINTED_SIGNAL)
    with page.expect_console_message(lambda m: m.text == "skillcheck:painted", timeout=120_000):
        page.goto(url)


def in_drawn_page(
    browser: Any, link: str, size: str, throttle: float, script: str, arg: Any
) -> Any:
    """``script`` evaluated with ``arg`` in a page of the player's ``link`` at viewport ``size``
    (motion reduced), once its first table is painted, its CPU then ``throttle`` times slower."""
    context = browser.new_context(**VIEWPORTS[size], reduced_motion="reduce")
    try:
        page, cdp = new_page(context)
        load_until_painted(page, link)
        page.wait_for_timeout(500)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        return page.evaluate(script, arg)
    finally:
        context.close()


def traced(page: Any, cdp: Any, categories: str, run: Any) -> list[dict[str, Any]]:
    """The trace events (``Tracing.start`` over CDP, ``categories``) recorded while ``run()``
    works on ``page``."""
    events: list[dict[str, Any]] = []
    done: list[bool] = []
    cdp.on("Tracing.dataCollected", lambda p: events.extend(p["value"]))
    cdp.on("Tracing.tracingComplete", lambda p: done.append(True))
    cdp.send("Tracing.start", {"categories": categories, "transferMode": "ReportEvents"})
    run()
    cdp.send("Tracing.end")
    while not done:
        page.wait_for_timeout(20)
    return events


def measure(
    browser: Any,
    url: str,
    size: str,
    loads: int,
    throttle: float,
    latency: float = 0,
    view_after: float = 0,
    extra_css: str = "",
    motion: bool = False,
) -> list[dict[str, Any]]:
    context = browser.new_context(
        **VIEWPORTS[size], reduced_motion="no-preference" if motion else "reduce"
    )
    context.add_init_script(SHIFTS)
    results = []
    try:
        for _ in range(loads):
            page, _cdp = new_page(context, throttle, latency, extra_css)
            load_until_painted(page, url, view_after)
            page.wait_for_timeout(100)  # shifts after the first paint count too
            results.append(page.evaluate(MEASURE))
            page.close()
    finally:
        context.close()
    return results


def paired_parser(doc: str, loads: int) -> argparse.ArgumentParser:
    """The options of the benchmarks that load two ways of the page alternately (page_ab.py,
    page_motion.py): --games, --viewports, --loads, --throttle or --device (low-tier by
    default), --latency and --view-after."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", choices=sorted(GAMES), default=sorted(GAMES))
    parser.add_argument("--viewports", nargs="*", choices=sorted(VIEWPORTS), default=["phone"])
    parser.add_argument("--loads", type=int, default=loads, help="loads of each way")
    slowdown = parser.add_mutually_exclusive_group()
    slowdown.add_argument("--throttle", type=float, help="CPU slow-down factor")
    slowdown.add_argument(
        "--device", choices=sorted(DEVICE_SCORES),
        help="CPU slowed down to this class of phone (the default, without --throttle: low-tier)",
    )  # fmt: skip
    parser.add_argument("--latency", type=float, default=0, help="ms added to each round trip")
    parser.add_argument("--view-after", type=float, default=1500, help="ms the view is held")
    return parser


def rate_for(
    browser: Any, args: argparse.Namespace, label: str, default_device: str | None = None
) -> float:
    """The CPU slow-down of ``args``: its --device (or, with neither --device nor --throttle,
    ``default_device``) calibrated now and said after ``label``; else its --throttle (1 if
    none)."""
    device = args.device or (default_device if args.throttle is None else None)
    if not device:
        return float(args.throttle or 1)
    calibration = calibrate(browser, device)
    print(f"{label}: {calibration.words()}", flush=True)
    return float(calibration.rate)


def alternate(
    contexts: dict[str, Any],
    url: str,
    loads: int,
    throttle: float,
    latency: float = 0,
    view_after: float = 0,
    after_paint_ms: float = 100,
    extra: Any = None,
    loaders: dict[str, Any] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``loads`` cold loads of ``url`` in each of ``contexts`` (name -> browser context), one
    context after the other, so that the machine's wandering speed falls on each alike: per
    name, each load's MEASURE (and ``extra(page)``'s keys), read ``after_paint_ms`` after the
    first table is painted (shifts until then count). A name's load is
    ``loaders[name](page, url, view_after)`` if given, ``load_until_painted`` otherwise."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in contexts}
    for _ in range(loads):
        for name, context in contexts.items():
            page, _cdp = new_page(context, throttle, latency)
            (loaders or {}).get(name, load_until_painted)(page, url, view_after)
            page.wait_for_timeout(after_paint_ms)
            measured: dict[str, Any] = page.evaluate(MEASURE)
            if extra is not None:
                measured.update(extra(page))
            found[name].append(measured)
            page.close()
    return found


def way_line(prefix: str, name: str, loads: list[dict[str, Any]]) -> str:
    """One way's loads in a line: how many rehearsed the check's game (if measured), view ->
    drawn and view -> painted (p50 / p90) and the worst layout shift."""
    drawn = [m["drawn"] for m in loads]
    painted = [m["painted"] for m in loads]
    rehearsed = (
        f"  rehearsed {sum(m['rehearsed'] for m in loads):2}/{len(loads)}"
        if loads and "rehearsed" in loads[0]
        else ""
    )
    return (
        f"{prefix} {name:>14}{rehearsed}"
        f"  drawn {statistics.median(drawn):6.1f} / {percentile(drawn, 0.9):6.1f}"
        f"  painted {statistics.median(painted):6.1f} / {percentile(painted, 0.9):6.1f}"
        f"  CLS {max(m['cls'] for m in loads):.4f}"
    )


def paired(found: dict[str, list[dict[str, Any]]], way: str, against: str) -> tuple[float, int]:
    """The median of the load-by-load difference of view -> painted, ``way`` less ``against``,
    and in how many pairs ``way`` was quicker."""
    pairs = [b["painted"] - a["painted"] for a, b in zip(found[against], found[way], strict=True)]
    return statistics.median(pairs), sum(d < 0 for d in pairs)


def one_page_parser(
    doc: str, throttle: float = 1, view_after: float = 0
) -> argparse.ArgumentParser:
    """The options of the benchmarks that load one game's page several times (page_trace.py,
    page_profile.py): --game, --viewport, --loads, --throttle, --latency and --view-after."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), default="three-towers")
    parser.add_argument("--viewport", choices=sorted(VIEWPORTS), default="phone")
    parser.add_argument("--loads", type=int, default=4)
    parser.add_argument("--throttle", type=float, default=throttle, help="CPU slow-down factor")
    parser.add_argument("--latency", type=float, default=0, help="round trip added, in ms")
    parser.add_argument("--view-after", type=float, default=view_after, help="ms the view is held")
    return parser


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": statistics.median(values),
        "p90": percentile(values, 0.9),
        "max": max(values),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--loads", type=int, default=20, help="page loads per game and viewport")
    parser.add_argument("--moves", type=int, default=6, help="moves played before the loads")
    slowdown = parser.add_mutually_exclusive_group()
    slowdown.add_argument("--throttle", type=float, default=1, help="CPU slow-down factor")
    slowdown.add_argument(
        "--device", choices=sorted(DEVICE_SCORES), help="CPU slowed down to this class of phone"
    )
    parser.add_argument(
        "--latency", type=float, default=0, help="round trip added to every request, in ms"
    )
    parser.add_argument(
        "--view-after",
        type=float,
        default=0,
        help="hold the view's answer until this many ms after the page asked for it",
    )
    parser.add_argument("--extra-css", default="", help="CSS added to the page's stylesheet")
    parser.add_argument(
        "--motion", action="store_true", help="motion not reduced: the deal animates, as by default"
    )
    parser.add_argument(
        "--games", nargs="*", choices=sorted(GAMES), default=sorted(GAMES), help="games to load"
    )
    parser.add_argument("--json", type=Path, help="write the numbers here too")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with served_chromium() as (server, http, browser):
        for name in args.games:
            link = server.base_url + make_check(http, name, args.moves)
            for size in VIEWPORTS:
                throttle = rate_for(browser, args, f"{name}, {size}")
                found = measure(
                    browser, link, size, args.loads, throttle, args.latency,
                    args.view_after, args.extra_css, args.motion,
                )  # fmt: skip
                rows.append({
                    "game": name, "viewport": size, "loads": len(found), "throttle": throttle,
                    "view_to_read_ms": summary([f["read"] for f in found]),
                    "view_to_drawn_ms": summary([f["drawn"] for f in found]),
                    "view_to_painted_ms": summary([f["painted"] for f in found]),
                    "navigation_to_painted_ms": summary([f["total"] for f in found]),
                    "cls_max": max(f["cls"] for f in found),
                    "shifted": sorted({m for f in found for m in f["moved"]}),
                })  # fmt: skip
    cpu = (
        f"CPU slowed to a {args.device} phone"
        if args.device
        else f"CPU throttle {args.throttle:g}x"
    )
    table = Table(
        title=f"First render of the player's page ({cpu}, "
        f"latency {args.latency:g} ms, view after {args.view_after:g} ms, "
        f"motion {'on' if args.motion else 'reduced'})"
    )
    for column in ("game", "viewport", "CPU slower", "view→drawn p50/p90/max ms",
                   "view→painted p50/p90/max ms", "navigation→painted p50 ms",
                   "CLS max"):  # fmt: skip
        table.add_column(column)

    def three(row: dict[str, Any], key: str) -> str:
        s = row[key]
        return f"{s['p50']:.1f} / {s['p90']:.1f} / {s['max']:.1f}"

    for row in rows:
        table.add_row(
            row["game"], row["viewport"], f"{row['throttle']:g}x", three(row, "view_to_drawn_ms"),
            three(row, "view_to_painted_ms"),
            f"{row['navigation_to_painted_ms']['p50']:.0f}", f"{row['cls_max']:.4f}",
        )  # fmt: skip
    Console(width=150).print(table)
    for row in rows:
        if row["shifted"]:
            print(f"{row['game']} {row['viewport']}: shifted {', '.join(row['shifted'])}")
    if args.json:
        settings = {
            "throttle": args.throttle,
            "device": args.device,
            "latency": args.latency,
            "view_after": args.view_after,
            "extra_css": args.extra_css,
            "motion": args.motion,
        }
        args.json.write_text(json.dumps({**settings, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
