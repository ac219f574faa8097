"""What a frame of the player's page costs once the page is warm: changes made to a page that
has drawn its first table, each timed to the frame that shows it (docs/performance.md).

    python3 benchmarks/page_warm.py --game tripeaks --throttle 4.3
    python3 benchmarks/page_warm.py --game tripeaks --throttle 4.3 \
        --extra-css '.card-svg{display:none}'

The real API runs in a subprocess (benchmarks/_api_harness.py); one page of a check of
``--game`` is loaded in Debian's Chromium, its CPU ``--throttle`` times slower, and once its
table is painted each change below is made ``--reps`` times (timed from the change to a task
queued from the next animation frame, as the page marks ``skillcheck:painted``):

- ``nothing``: no change, the frame alone;
- ``a word``: one word of the page changed;
- ``the table redrawn``: every element of the table replaced by a copy of itself (new elements
  to style, lay out and paint, as when the first table is drawn, in a page that has drawn
  one);
- ``the page hidden and shown``: the class the page hides its own parts with until the view
  comes (``pending``, visibility hidden) put on the header, the table's part and the footer,
  and taken off again, alternately.

``--extra-css CSS`` adds rules at the end of the page's stylesheet (to see what a part of the
table costs by leaving it out). Set beside page_render.py's view -> painted, the first table's
cost on the same CPU, this tells how much of that is the table's own drawing and how much is a
page drawing for the first time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, load_until_painted, make_check, new_page, served_chromium

from skillcheck.engine import GAMES

CHANGES = {
    "nothing": "",
    "a word": "document.getElementById('notice').textContent = 'x' + Math.random();",
    "the table redrawn": (
        "const table = document.getElementById('table');"
        "table.replaceChildren(...[...table.childNodes].map((n) => n.cloneNode(true)));"
    ),
    "the page hidden and shown": (
        "for (const id of ['header', 'main', 'footer'])"
        " document.getElementById(id).classList.toggle('pending');"
    ),
}

#: Makes a change, then answers the milliseconds to the task after the next frame.
TIMED = """(change) => new Promise((done) => {
  const start = performance.now();
  new Function(change)();
  requestAnimationFrame(() => setTimeout(() => done(performance.now() - start), 0));
})"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), default="tripeaks")
    parser.add_argument("--viewport", choices=sorted(VIEWPORTS), default="phone")
    parser.add_argument("--throttle", type=float, default=1, help="CPU slow-down factor")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--extra-css", default="", help="CSS added to the page's stylesheet")
    args = parser.parse_args()
    with served_chromium() as (server, http, browser):
        link = server.base_url + make_check(http, args.game, 6)
        context = browser.new_context(**VIEWPORTS[args.viewport], reduced_motion="reduce")
        page, _cdp = new_page(context, args.throttle, 0, args.extra_css)
        load_until_painted(page, link)
        page.wait_for_timeout(3000)  # the faces of the other decks drawn ahead, the feed open
        print(
            f"{args.game}, {args.viewport}, CPU {args.throttle:g}x: change -> painted, ms "
            f"(median, and each of {args.reps})"
        )
        for name, change in CHANGES.items():
            times = []
            for _ in range(args.reps):
                times.append(page.evaluate(TIMED, change))
                page.wait_for_timeout(300)
            print(f"{name:28} {statistics.median(times):7.1f}   {[round(t) for t in times]}")
        context.close()


if __name__ == "__main__":
    main()
