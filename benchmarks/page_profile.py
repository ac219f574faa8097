"""Where the player's page's script spends the time it takes to draw the first table: V8's CPU
profile of cold loads in Debian's Chromium, only the samples under the page's ``applyView`` (the
script between the view's arrival and the table in the DOM; docs/performance.md).

    python3 benchmarks/page_profile.py --game three-towers --throttle 1.6 --latency 50
    python3 benchmarks/page_profile.py --game tripeaks --throttle 4 --view-after 1500

For each load (a new page; the real API in a subprocess, benchmarks/_api_harness.py) the
profiler samples every 100 µs from before the page is opened until it marks
``skillcheck:painted``. Printed: the milliseconds per load, at the median of the loads, of
``applyView`` in all, and of the functions under it by total time (their callees included) and
by self time. With ``--view-after 0`` (the default) and ``--latency`` the view comes while the
page is still starting, as on a phone's network: faces not yet drawn ahead are drawn then
(``drawFace``). ``--view-after MS`` holds the view until the page has started. Sampling slows
the page a little; compare runs of this script with each other.
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
)

#: The page's function that draws a view (api/static/play.js).
ROOT_FUNCTION = "applyView"


def frame_name(node: dict[str, Any]) -> str:
    frame = node["callFrame"]
    where = frame["url"].rsplit("/", 1)[-1]
    return f"{frame['functionName'] or '(anonymous)'} {where}:{frame['lineNumber'] + 1}".strip()


def under_root(profile: dict[str, Any]) -> tuple[Counter[str], Counter[str]]:
    """Total and self microseconds of each function, counting only samples whose stack holds
    ROOT_FUNCTION (a function's total counts each sample once, however deep it recurses)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    times = []
    at = profile["startTime"]
    for delta in profile["timeDeltas"]:
        at += delta
        times.append(at)
    totals: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for i, sample in enumerate(profile["samples"]):
        weight = (times[i + 1] if i + 1 < len(times) else profile["endTime"]) - times[i]
        stack = []
        node_id: int | None = sample
        while node_id is not None and node_id in nodes:
            stack.append(nodes[node_id])
            node_id = parent.get(node_id)
        if not any(node["callFrame"]["functionName"] == ROOT_FUNCTION for node in stack):
            continue
        own[frame_name(stack[0])] += weight
        for name in {frame_name(node) for node in stack}:
            totals[name] += weight
    return totals, own


def main() -> None:
    parser = one_page_parser(__doc__ or "")
    parser.add_argument("--top", type=int, default=15, help="functions listed of each kind")
    args = parser.parse_args()
    per_load: list[tuple[Counter[str], Counter[str]]] = []
    with served_chromium() as (server, http, browser):
        link = server.base_url + make_check(http, args.game, 6)
        context = browser.new_context(**VIEWPORTS[args.viewport], reduced_motion="reduce")
        for n in range(1, args.loads + 1):
            page, cdp = new_page(context, args.throttle, args.latency)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 100})
            cdp.send("Profiler.start")
            load_until_painted(page, link, args.view_after)
            profile = cdp.send("Profiler.stop")["profile"]
            page.close()
            per_load.append(under_root(profile))
            total = next((v for k, v in per_load[-1][0].items() if k.startswith(ROOT_FUNCTION)), 0)
            print(f"load {n}: {ROOT_FUNCTION} {total / 1000:.1f} ms", flush=True)
        context.close()

    def median(kind: int, name: str) -> float:
        return statistics.median(load[kind].get(name, 0) for load in per_load) / 1000

    print(
        f"\n{args.game}, {args.viewport}, CPU {args.throttle:g}x, latency {args.latency:g} ms, "
        f"view after {args.view_after:g} ms: medians of {len(per_load)} loads, ms"
    )
    for kind, title in ((0, "total (callees included)"), (1, "self")):
        names: Counter[str] = Counter()
        for load in per_load:
            names.update(load[kind])
        print(f"-- {title}")
        for name, _ in names.most_common(args.top):
            print(f"{median(kind, name):8.1f}  {name}")


if __name__ == "__main__":
    main()
