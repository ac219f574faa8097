"""The main thread's tasks from the view's arrival to the painted table, one by one: when each
starts (ms from the page's ``skillcheck:view`` mark), how long it runs, and for each long one the
trace events with most self time in it (docs/performance.md, "2026-12-03, fifth session").

    python3 benchmarks/page_tasks.py --game tripeaks --throttle 7 --view-after 4000
    python3 benchmarks/page_tasks.py --game tripeaks --throttle 8 --motion --loads 2

Each load is a cold load of a new page traced over CDP (page_trace.py's categories; the real API
in a subprocess, benchmarks/_api_harness.py), its CPU ``--throttle`` times slower, the view held
``--view-after`` ms after the page asked for it. Motion is reduced unless ``--motion`` (then the
first table is dealt). Tasks under ``--min-ms`` are left out; tracing slows the page, so compare
runs of this script with each other.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, make_check, one_page_parser, served_chromium
from page_trace import self_times, traced_load


def tasks_between(events: list[dict[str, Any]], min_ms: float) -> list[str]:
    """The lines of one load: the marks, then each main-thread task from the view to the
    painted table of at least ``min_ms``, its 10 heaviest events by self time if over 20 ms."""
    marks = {e["name"]: e for e in events if str(e.get("name", "")).startswith("skillcheck:")}
    view, painted = marks["skillcheck:view"], marks["skillcheck:painted"]
    thread = (view["pid"], view["tid"])
    lines = [f"view -> painted {(painted['ts'] - view['ts']) / 1000:.1f} ms"]
    for name in ("skillcheck:view", "skillcheck:drawn", "skillcheck:painted"):
        lines.append(f"  mark {name:22} {(marks[name]['ts'] - view['ts']) / 1000:8.1f}")
    tasks = sorted(
        (e for e in events
         if e.get("ph") == "X" and e.get("name") == "RunTask" and (e["pid"], e["tid"]) == thread
         and view["ts"] - 5000 <= e["ts"] <= painted["ts"] and e.get("dur", 0) >= min_ms * 1000),
        key=lambda e: e["ts"],
    )  # fmt: skip
    for task in tasks:
        start, length = task["ts"], task["dur"]
        lines.append(f"  task at {(start - view['ts']) / 1000:8.1f}  {length / 1000:6.1f} ms")
        if length > 20_000:
            own = self_times(events, thread, start, start + length)
            heaviest = ", ".join(
                f"{name} {micros / 1000:.1f}" for name, micros in own.most_common(10)
            )
            lines.append(f"      {heaviest}")
    return lines


def main() -> None:
    parser = one_page_parser(__doc__ or "", throttle=4, view_after=1500)
    parser.add_argument(
        "--motion", action="store_true", help="motion not reduced: the deal animates"
    )
    parser.add_argument("--min-ms", type=float, default=2, help="leave out shorter tasks")
    args = parser.parse_args()
    with served_chromium() as (server, http, browser):
        link = server.base_url + make_check(http, args.game, 6)
        context = browser.new_context(
            **VIEWPORTS[args.viewport],
            reduced_motion="no-preference" if args.motion else "reduce",
        )
        for n in range(1, args.loads + 1):
            events = traced_load(context, link, args.view_after, args.throttle, "", args.latency)
            print(f"load {n} ({args.game}, {args.viewport}, CPU {args.throttle:g}x):")
            print("\n".join(tasks_between(events, args.min_ms)), flush=True)
        context.close()


if __name__ == "__main__":
    main()
