"""Which parts of a drawn table cost the browser its first frame: the table taken apart in the
page itself (docs/performance.md, "2026-12-02").

    python3 benchmarks/page_parts.py [--game three-towers] [--viewport phone] [--page-of 8486ed5]

It opens the player's page of a real check (the API in a subprocess; Debian's Chromium, CPU
``--throttle`` times slower), takes the drawn ``#table`` out and makes copies of it: as drawn,
without the faces' SVG text, without any text node, without the SVG elements, without what
the card backs hold, and as drawn with every rule of the page's stylesheets taken out. Each
copy is inserted and timed to the end of its style and layout, ``--reps`` times in turn with
the others, and the median of each is printed. ``--page-of REV`` serves that commit's cards.js
and play.css instead of today's (the faces drew SVG text before f85a107).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, load_until_painted, make_check, new_page, served_chromium

from skillcheck.engine import GAMES

ROOT = Path(__file__).resolve().parents[1]

#: What each copy of the table lacks: a selector of elements to remove, or a keyword.
VARIANTS = {
    "as drawn": "",
    "without the faces' SVG text": "svg text",
    "without any text node": "#text",
    "without the faces' SVG": "svg",
    "without what the card backs hold": "[data-back] > *",
    "with no stylesheet rules": "#rules",
}

PARTS = """async ([variants, reps]) => {
  const table = document.getElementById('table');
  const parent = table.parentNode;
  const next = table.nextSibling;
  const rules = [...document.styleSheets].map(
    (sheet) => [sheet, [...sheet.cssRules].map((rule) => rule.cssText)]);
  const setRules = (on) => {
    for (const [sheet, texts] of rules) {
      while (sheet.cssRules.length) sheet.deleteRule(0);
      if (on) texts.forEach((text, i) => sheet.insertRule(text, i));
    }
  };
  const copies = variants.map((what) => {
    const copy = table.cloneNode(true);
    if (what === '#text') {
      const walker = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT);
      const found = [];
      while (walker.nextNode()) found.push(walker.currentNode);
      found.forEach((node) => node.remove());
    } else if (what && what !== '#rules') {
      copy.querySelectorAll(what).forEach((element) => element.remove());
    }
    return copy;
  });
  table.remove();
  void document.body.offsetHeight;
  const times = variants.map(() => []);
  for (let i = 0; i < reps; i++) {
    variants.forEach((what, k) => {
      if (what === '#rules') setRules(false);
      void document.body.offsetHeight;
      const copy = copies[k].cloneNode(true);
      const start = performance.now();
      parent.insertBefore(copy, next);
      void document.body.offsetHeight;
      times[k].push(performance.now() - start);
      copy.remove();
      if (what === '#rules') setRules(true);
      void document.body.offsetHeight;
    });
    await new Promise((done) => setTimeout(done, 20));
  }
  parent.insertBefore(table, next);
  return { times, elements: copies.map((c) => c.querySelectorAll('*').length) };
}"""


def serving(body: str, name: str) -> Any:
    """A route handler that answers with ``body`` (a stylesheet or a module, by ``name``).
    (One parameter: Playwright passes the request too to a handler that takes two.)"""
    kind = "text/javascript" if name.endswith(".js") else "text/css"
    return lambda route: route.fulfill(status=200, content_type=kind, body=body)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), default="three-towers")
    parser.add_argument("--viewport", choices=sorted(VIEWPORTS), default="phone")
    parser.add_argument("--page-of", help="serve this commit's cards.js and play.css")
    parser.add_argument("--reps", type=int, default=21, help="insertions of each copy")
    parser.add_argument("--throttle", type=float, default=4, help="CPU slow-down factor")
    args = parser.parse_args()
    served = {}
    for name in ("cards.js", "play.css") if args.page_of else ():
        served[name] = subprocess.run(
            ["git", "show", f"{args.page_of}:api/static/{name}"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
    with served_chromium() as (server, http, browser):
        link = server.base_url + make_check(http, args.game, 6)
        context = browser.new_context(**VIEWPORTS[args.viewport], reduced_motion="reduce")
        page, _cdp = new_page(context, args.throttle)
        for name, body in served.items():
            page.route(f"**/{name}", serving(body, name))
        load_until_painted(page, link)
        page.wait_for_timeout(1000)
        found = page.evaluate(PARTS, [list(VARIANTS.values()), args.reps])
        context.close()
    print(f"{args.game}, {args.viewport}, page of {args.page_of or 'today'}, CPU "
          f"{args.throttle:g}x slower: the table inserted, to the end of its layout, median of "
          f"{args.reps} (ms)")  # fmt: skip
    for (label, _), times, elements in zip(
        VARIANTS.items(), found["times"], found["elements"], strict=True
    ):
        print(f"  {label:30} {statistics.median(times):6.1f}  ({elements} elements)")


if __name__ == "__main__":
    main()
