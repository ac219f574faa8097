"""What the deal costs the first table: cold loads of the player's page with motion on (the first
table is dealt, as most players see it) and with motion reduced (nothing animates), alternately,
on one check and under one calibration (docs/performance.md, "2026-12-03, fifth session").

    python3 benchmarks/page_motion.py [--games tripeaks three-towers] [--device low-tier]
    python3 benchmarks/page_motion.py --device mid-tier --loads 12 --viewports phone laptop

The real API runs in a subprocess (benchmarks/_api_harness.py). Each load is a new page in
Debian's Chromium, its CPU slowed to the ``--device`` class of phone (calibrated before each game
and viewport, benchmarks/_cpu.py) or ``--throttle`` times, the check's view held ``--view-after``
ms after the page asked for it. Printed per game, viewport and setting: view -> drawn and view ->
painted (p50 / p90, as page_render.py measures them) and the layout shift, then the median of the
load-by-load difference of view -> painted, motion on less motion reduced.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _api_harness import percentile
from _cpu import DEVICE_SCORES, calibrate
from page_render import (
    MEASURE,
    SHIFTS,
    VIEWPORTS,
    load_until_painted,
    make_check,
    new_page,
    served_chromium,
)

from skillcheck.engine import GAMES

#: Each setting's name and Playwright's ``reduced_motion``.
SETTINGS = {"motion on": "no-preference", "reduced": "reduce"}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", choices=sorted(GAMES), default=sorted(GAMES))
    parser.add_argument("--viewports", nargs="*", choices=sorted(VIEWPORTS), default=["phone"])
    parser.add_argument("--loads", type=int, default=8, help="loads of each setting")
    slowdown = parser.add_mutually_exclusive_group()
    slowdown.add_argument("--throttle", type=float, help="CPU slow-down factor")
    slowdown.add_argument(
        "--device", choices=sorted(DEVICE_SCORES), default="low-tier",
        help="CPU slowed down to this class of phone (the default: low-tier)",
    )  # fmt: skip
    parser.add_argument("--latency", type=float, default=0, help="ms added to each round trip")
    parser.add_argument("--view-after", type=float, default=1500, help="ms the view is held")
    args = parser.parse_args()
    print(
        f"latency {args.latency:g} ms, view after {args.view_after:g} ms; ms from the view's "
        f"arrival, p50 / p90 of {args.loads} loads of each setting, alternately"
    )
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            for size in args.viewports:
                throttle = args.throttle or 1
                if args.throttle is None:
                    calibration = calibrate(browser, args.device)
                    throttle = calibration.rate
                    print(f"{game}, {size}: {calibration.words()}", flush=True)
                contexts = {}
                for name, reduced in SETTINGS.items():
                    context = browser.new_context(**VIEWPORTS[size], reduced_motion=reduced)
                    context.add_init_script(SHIFTS)
                    contexts[name] = context
                found: dict[str, list[dict[str, Any]]] = {name: [] for name in SETTINGS}
                for _ in range(args.loads):
                    for name, context in contexts.items():
                        page, _cdp = new_page(context, throttle, args.latency)
                        load_until_painted(page, link, args.view_after)
                        page.wait_for_timeout(600)  # the deal's shifts, if any, count too
                        found[name].append(page.evaluate(MEASURE))
                        page.close()
                for context in contexts.values():
                    context.close()
                for name, loads in found.items():
                    drawn = [m["drawn"] for m in loads]
                    painted = [m["painted"] for m in loads]
                    print(
                        f"{game:13} {size:7} {throttle:5.2f}x {name:>10}"
                        f"  drawn {statistics.median(drawn):6.1f} / {percentile(drawn, 0.9):6.1f}"
                        f"  painted {statistics.median(painted):6.1f} / "
                        f"{percentile(painted, 0.9):6.1f}"
                        f"  CLS {max(m['cls'] for m in loads):.4f}",
                        flush=True,
                    )
                pairs = [
                    on["painted"] - off["painted"]
                    for on, off in zip(found["motion on"], found["reduced"], strict=True)
                ]
                print(
                    f"{game:13} {size:7} motion on - reduced: view -> painted "
                    f"{statistics.median(pairs):+.1f} ms (median of pairs)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
