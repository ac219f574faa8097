"""How the player's page best shows the parts it lays out unseen while the view is on its way:
the first table's frame with each way of hiding them, in one page (docs/performance.md,
"2026-12-03, second session").

    python3 benchmarks/page_reveal.py [--games three-towers tripeaks] [--throttle 8] [--reps 25]

The page's header, main part and footer are in the page from the start, hidden (class
``pending``), and shown in the frame that draws the first table. For each game and viewport
this opens the player's page of a real check (the API in a subprocess; Debian's Chromium, its
CPU ``--throttle`` times slower once the page has loaded), takes the drawn ``#table`` out, and
then, ``--reps`` times for each way in turn: sets the ``.pending`` rule to that way, hides the
parts again, waits two frames, then shows them and inserts a copy of the table, as the page
does when the view comes. It times that to the end of its style and layout (``layout``) and to
a task queued from the next animation frame (``frame``, as the page marks
``skillcheck:painted``), and prints the median of each. The ways are interleaved in one page,
so the machine's load moves them alike.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, in_drawn_page, make_check, served_chromium

#: The ways of hiding the pending parts: the ``.pending`` rule's declarations.
WAYS = {
    "visibility: hidden": "visibility: hidden",
    "opacity: 0": "opacity: 0",
    "opacity: 0, no pointer events": "opacity: 0; pointer-events: none",
}

REVEAL = """async ([ways, reps]) => {
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  let rule = null;
  for (const sheet of document.styleSheets) {
    for (const found of sheet.cssRules) if (found.selectorText === '.pending') rule = found;
  }
  const before = rule.style.cssText;
  const parts = ['header', 'main', 'footer'].map((id) => document.getElementById(id));
  const table = document.getElementById('table');
  const parent = table.parentNode;
  const next = table.nextSibling;
  table.remove();
  const layout = ways.map(() => []);
  const painted = ways.map(() => []);
  for (let i = 0; i < reps; i++) {
    for (const [k, way] of ways.entries()) {
      rule.style.cssText = way;
      parts.forEach((part) => part.classList.add('pending'));
      await frame();
      await frame();
      const copy = table.cloneNode(true);
      const start = performance.now();
      parts.forEach((part) => part.classList.remove('pending'));
      parent.insertBefore(copy, next);
      void document.body.offsetHeight;
      layout[k].push(performance.now() - start);
      await frame();
      painted[k].push(performance.now() - start);
      copy.remove();
    }
  }
  rule.style.cssText = before;
  parent.insertBefore(table, next);
  return ways.map((_, k) => [median(layout[k]), median(painted[k])]);
}"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=["three-towers", "tripeaks", "hanoy"])
    parser.add_argument("--viewports", nargs="*", default=sorted(VIEWPORTS))
    parser.add_argument("--throttle", type=float, default=8, help="CPU slow-down factor")
    parser.add_argument("--reps", type=int, default=25, help="reveals of each way")
    args = parser.parse_args()
    print(f"CPU {args.throttle:g}x slower, median of {args.reps}, ms (layout / frame)")
    print(f"{'game':14} {'viewport':8} " + " | ".join(f"{way:>30}" for way in WAYS))
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            for size in args.viewports:
                found: list[Any] = in_drawn_page(
                    browser, link, size, args.throttle, REVEAL, [list(WAYS.values()), args.reps]
                )
                cells = " | ".join(f"{lay:>14.1f} / {frame:>13.1f}" for lay, frame in found)
                print(f"{game:14} {size:8} {cells}", flush=True)


if __name__ == "__main__":
    main()
