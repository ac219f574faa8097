"""Where the player's page spends the time between the view's arrival and the painted table: cold
loads traced in Debian's Chromium (docs/performance.md, "What the page does to be quick").

    python3 benchmarks/page_trace.py [--game three-towers] [--viewport phone] [--loads 4]
    python3 benchmarks/page_trace.py --throttle 4 --extra-css '.card { container-type: normal; }'
    python3 benchmarks/page_trace.py --game tripeaks --throttle 2 --latency 50 --view-after 0 \
        --span load

For each load (a new page; the real API in a subprocess, benchmarks/_api_harness.py) the view's
answer is held until ``--view-after`` ms after the page asked for it, so the page has started
(its decks' faces drawn ahead and their fonts laid out) and what is traced is the table's own
drawing. Tracing over CDP (``Tracing.start``), it prints per load the span from the page's
``skillcheck:view`` mark to ``skillcheck:painted``, the length of the page's ``Layout`` and how
many objects it laid out, and the main thread's self time in what costs most there: layout,
style, text shaping, paint, the synchronous calls to the browser process for a new font's
rendering style (``WebSandboxSupportLinux::GetWebFontRenderStyleForStrike``, Linux only), and
V8's parsing and compiling on that thread (``compile``); then the median of each.
``--latency MS`` adds that round trip to every request; with ``--view-after 0`` the view is not
held, and ``--span load`` sums from the load's first task instead of from the view.
``--extra-css CSS`` appends rules to the page's stylesheet, to measure a change before making
it. ``--selector-stats`` records Chromium's selector statistics too (its ``selectors`` column:
the time spent matching selectors; recording them slows style). Tracing slows the page;
compare runs of this script with each other, not with page_render.py.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import (
    VIEWPORTS,
    load_until_painted,
    make_check,
    new_page,
    one_page_parser,
    served_chromium,
    traced,
)

CATEGORIES = ",".join(
    [
        "blink",
        "blink.user_timing",
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "fonts",
        "v8.execute",
        "disabled-by-default-v8.compile",
    ]
)
#: Trace events whose self time is reported, and the column each goes in.
COLUMNS = {
    "LocalFrameView::performLayout": "layout",
    "Document::recalcStyle": "style",
    "InlineNode::ShapeTextIncludingFirstLine": "shaping",
    "Paint": "paint",
    "WebSandboxSupportLinux::GetWebFontRenderStyleForStrike": "font calls",
    **dict.fromkeys(
        [
            "V8.ParseProgram",
            "V8.PreParse",
            "V8.ParseFunction",
            "V8.CompileIgnition",
            "V8.CompileCode",
            "V8.CompileStreamedModule",
        ],
        "compile",
    ),
}


def traced_load(
    context: Any,
    url: str,
    view_after: float,
    throttle: float,
    css: str,
    latency: float = 0,
    categories: str = CATEGORIES,
) -> list[Any]:
    """The trace events of one cold load of ``url``, the view held ``view_after`` ms."""
    page, cdp = new_page(context, throttle, latency, css)
    events = traced(page, cdp, categories, lambda: load_until_painted(page, url, view_after))
    page.close()
    return events


def self_times(
    events: list[dict[str, Any]], thread: tuple[int, int], start: float, end: float
) -> Counter[str]:
    """Each event's own time (less its children's), summed by name, on ``thread`` in the span."""
    spans = sorted(
        (e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) == thread
         and start <= e["ts"] <= end),
        key=lambda e: (e["ts"], -e.get("dur", 0)),
    )  # fmt: skip
    own: Counter[str] = Counter()
    open_: list[dict[str, Any]] = []
    for event in spans:
        while open_ and open_[-1]["ts"] + open_[-1].get("dur", 0) <= event["ts"]:
            open_.pop()
        if open_:
            own[open_[-1]["name"]] -= event.get("dur", 0)
        own[event["name"]] += event.get("dur", 0)
        open_.append(event)
    return own


def breakdown(events: list[dict[str, Any]], top: int = 0, span: str = "view") -> dict[str, float]:
    """Milliseconds of the span view -> painted (``span`` "load": from the main thread's first
    task), the main thread's busy time in it, its Layout, the columns' self times and, in
    brackets, the ``top`` events with the most self time."""
    marks = {e["name"]: e for e in events if str(e.get("name", "")).startswith("skillcheck:")}
    view, painted = marks["skillcheck:view"], marks["skillcheck:painted"]
    thread = (view["pid"], view["tid"])
    if span == "load":
        view = min(
            (e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) == thread),
            key=lambda e: e["ts"],
        )
    layouts = [
        e for e in events
        if e.get("name") == "Layout" and (e["pid"], e["tid"]) == thread
        and view["ts"] <= e["ts"] <= painted["ts"]
    ]  # fmt: skip
    own = self_times(events, thread, view["ts"], painted["ts"])
    busy = sum(
        e.get("dur", 0) for e in events
        if e.get("ph") == "X" and e.get("name") == "RunTask"
        and (e["pid"], e["tid"]) == thread and view["ts"] <= e["ts"] <= painted["ts"]
    )  # fmt: skip
    row = {
        f"{span} → painted": (painted["ts"] - view["ts"]) / 1000,
        "main thread busy": busy / 1000,
        "Layout": sum(e.get("dur", 0) for e in layouts) / 1000,
        "objects": float(
            sum(e.get("args", {}).get("beginData", {}).get("dirtyObjects", 0) for e in layouts)
        ),
    }
    for column in dict.fromkeys(COLUMNS.values()):
        row[column] = 0.0
    for name, column in COLUMNS.items():
        row[column] += own[name] / 1000
    # Chromium's selector statistics (DevTools' "Enable CSS selector stats"; only with
    # --selector-stats, which adds their category): the time spent matching selectors.
    row["selectors"] = (
        sum(
            timing["elapsed (us)"]
            for e in events
            if e.get("name") == "SelectorStats" and view["ts"] <= e["ts"] <= painted["ts"]
            for timing in e["args"]["selector_stats"]["selector_timings"]
        )
        / 1000
    )
    for name, micros in own.most_common(top):
        row[f"[{name}]"] = micros / 1000
    return row


def main() -> None:
    parser = one_page_parser(__doc__ or "", throttle=4, view_after=1500)
    parser.add_argument("--extra-css", default="", help="CSS added to the page's stylesheet")
    parser.add_argument(
        "--span", choices=["view", "load"], default="view", help="summed from the view or load"
    )
    parser.add_argument(
        "--top", type=int, default=0, help="also print the N trace events with most self time"
    )
    parser.add_argument(
        "--selector-stats",
        action="store_true",
        help="also record Chromium's selector statistics (the selectors column; slows style)",
    )
    args = parser.parse_args()
    rows = []
    with served_chromium() as (server, http, browser):
        link = server.base_url + make_check(http, args.game, 6)
        context = browser.new_context(**VIEWPORTS[args.viewport], reduced_motion="reduce")
        for n in range(1, args.loads + 1):
            events = traced_load(
                context,
                link,
                args.view_after,
                args.throttle,
                args.extra_css,
                args.latency,
                CATEGORIES + (",disabled-by-default-blink.debug" if args.selector_stats else ""),
            )
            rows.append(breakdown(events, args.top, args.span))
            words = ", ".join(f"{k} {v:.1f}" for k, v in rows[-1].items())
            print(f"load {n}: {words}", flush=True)
        context.close()
    keys = dict.fromkeys(key for row in rows for key in row)
    medians = {key: statistics.median(row.get(key, 0.0) for row in rows) for key in keys}
    print(
        f"median of {len(rows)} ({args.game}, {args.viewport}, CPU {args.throttle:g}x, "
        f"ms): " + ", ".join(f"{k} {v:.1f}" for k, v in medians.items())
    )


if __name__ == "__main__":
    main()
