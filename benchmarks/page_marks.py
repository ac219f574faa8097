"""When, in a cold load of the player's page, the view arrives, and whether the faces of its
deck have been drawn ahead by then (docs/performance.md, "2026-12-03").

    python3 benchmarks/page_marks.py --throttle 2.7 --latency 50 --loads 6

For each registered game a check is made (its first example, seed 4, six moves in; the real
API in a subprocess, benchmarks/_api_harness.py) and its player's page loaded ``--loads`` times
at 360 x 740 in Debian's Chromium. Printed per game, at the median of the loads, in ms from the
navigation's start: when the view was asked for and when its last byte came
(``view asked``, ``view in``: Resource Timing), when the page read it, drew the table and
painted it (the page's ``skillcheck:view``, ``:drawn``, ``:painted`` marks), when the card back
was drawn as an image (``:back-image``), when each deck's
table arrived and when its faces were all drawn ahead (``skillcheck:fonts-warmed:<deck>``, the
last step of drawing ahead; "-" when no load finished it: the page stops drawing ahead a deck
the check turned out not to use, and draws none of a deck it does not expect), and the
document's ``DOMContentLoaded``. A deck drawn ahead after ``view in`` had its shown faces drawn
on the spot.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, load_until_painted, make_check, new_page, served_chromium

from skillcheck.cards import DECKS
from skillcheck.engine import GAMES

#: The marks of one load, in ms from the navigation's start (None: not reached).
MARKS = """(decks) => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const resources = performance.getEntriesByType("resource");
  const find = (pattern) => resources.find((e) => pattern.test(e.name.split("#")[0]));
  const view = find(/\\/v1\\/checks\\/[^/?]+$/);
  const marks = {
    "view asked": view?.startTime ?? null, "view in": view?.responseEnd ?? null,
    "read": at("skillcheck:view"), "drawn": at("skillcheck:drawn"),
    "painted": at("skillcheck:painted"), "back image": at("skillcheck:back-image"),
    "DOMContentLoaded": performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd,
  };
  for (const deck of decks) {
    marks[`${deck} in`] = find(new RegExp(`/v1/decks/${deck}$`))?.responseEnd ?? null;
    marks[`${deck} drawn ahead`] = at(`skillcheck:fonts-warmed:${deck}`);
  }
  return marks;
}"""


def median_or_dash(values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    return f"{statistics.median(present):.0f}" if present else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=6)
    parser.add_argument("--throttle", type=float, default=1, help="CPU slow-down factor")
    parser.add_argument("--latency", type=float, default=0, help="round trip added, in ms")
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args()
    decks = sorted(DECKS)
    with served_chromium() as (server, http, browser):
        for name in args.games:
            link = server.base_url + make_check(http, name, 6)
            context = browser.new_context(**VIEWPORTS["phone"], reduced_motion="reduce")
            loads = []
            try:
                for _ in range(args.loads):
                    page, _cdp = new_page(context, args.throttle, args.latency)
                    load_until_painted(page, link)
                    page.wait_for_timeout(500)  # drawing ahead may end after the table shows
                    loads.append(page.evaluate(MARKS, decks))
                    page.close()
            finally:
                context.close()
            line = ", ".join(f"{k} {median_or_dash([m[k] for m in loads])}" for k in loads[0])
            print(f"{name}: {line}", flush=True)


if __name__ == "__main__":
    main()
