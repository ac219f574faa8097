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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import (
    SHIFTS,
    VIEWPORTS,
    alternate,
    make_check,
    paired,
    paired_parser,
    rate_for,
    served_chromium,
    way_line,
)

#: Each setting's name and Playwright's ``reduced_motion``.
SETTINGS = {"motion on": "no-preference", "reduced": "reduce"}


def main() -> None:
    parser = paired_parser(__doc__ or "", loads=8)
    args = parser.parse_args()
    print(
        f"latency {args.latency:g} ms, view after {args.view_after:g} ms; ms from the view's "
        f"arrival, p50 / p90 of {args.loads} loads of each setting, alternately"
    )
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            for size in args.viewports:
                throttle = rate_for(browser, args, f"{game}, {size}", default_device="low-tier")
                contexts = {}
                for name, reduced in SETTINGS.items():
                    context = browser.new_context(**VIEWPORTS[size], reduced_motion=reduced)
                    context.add_init_script(SHIFTS)
                    contexts[name] = context
                found = alternate(
                    contexts, link, args.loads, throttle, args.latency, args.view_after,
                    after_paint_ms=600,  # the deal's shifts, if any, count too
                )  # fmt: skip
                for context in contexts.values():
                    context.close()
                prefix = f"{game:13} {size:7} {throttle:5.2f}x"
                for name, loads in found.items():
                    print(way_line(prefix, name, loads), flush=True)
                median, _won = paired(found, "motion on", "reduced")
                print(
                    f"{game:13} {size:7} motion on - reduced: view -> painted "
                    f"{median:+.1f} ms (median of pairs)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
