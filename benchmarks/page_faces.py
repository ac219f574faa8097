"""What a table's card faces cost the browser, cards.js of another commit against today's, in one
page (docs/performance.md, "What the page does to be quick").

    python3 benchmarks/page_faces.py --before HEAD~1 [--games three-towers tripeaks] [--reps 25]

For each game and viewport it opens the player's page of a real check (the API in a subprocess,
benchmarks/_api_harness.py; Debian's Chromium, CPU ``--throttle`` times slower), takes the drawn
table and makes two copies of it: one with every face and card back drawn by the ``--before``
commit's ``api/static/cards.js`` (served beside today's), one by today's, each module having
first drawn ahead what it draws while a page waits for its view. It then inserts the
copies one after the other, ``--reps`` times each, and times each from the insertion to the
frame after it (style, layout and paint of the table). Both run in the same page, interleaved,
so the machine's load moves them alike: this compares two drawings of the faces far more
steadily than cold loads do (page_render.py). It prints the median of each and the change.

It also times drawing the table's faces on the spot, as when the view comes before they could
be drawn ahead (a phone's network): each module imported afresh (``?rep``: nothing it keeps
is warm), then every face on the table drawn with ``CardTable.face``, the two interleaved.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, load_until_painted, make_check, new_page, served_chromium

from skillcheck.engine import GAMES

ROOT = Path(__file__).resolve().parents[1]

INSERTS = """async ([before, after, deck, reps]) => {
  const modules = [await import(before), await import(after)];
  const tables = [];
  for (const module of modules) tables.push(await module.CardTable.load('', deck));
  // drawn ahead as the page does while the view is on its way (the faces, and the back where
  // the module draws it as an image)
  for (const cards of tables) cards.prepare();
  await new Promise((done) => setTimeout(done, 2000));
  const table = document.getElementById('table');
  const parent = table.parentNode;
  const next = table.nextSibling;
  const copies = tables.map((cards) => {
    const copy = table.cloneNode(true);
    for (const face of copy.querySelectorAll('.face[data-code]')) {
      face.replaceWith(cards.face(face.dataset.code));
    }
    for (const back of copy.querySelectorAll('.face[data-back]')) {
      back.replaceWith(cards.back(back.title));
    }
    return copy;
  });
  table.remove();
  void document.body.offsetHeight;
  const times = [[], []];
  for (let i = 0; i < reps; i++) {
    for (const k of [0, 1]) {
      const copy = copies[k].cloneNode(true);
      await new Promise((done) => setTimeout(done, 20));
      const start = performance.now();
      parent.insertBefore(copy, next);
      void document.body.offsetHeight;
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      times[k].push(performance.now() - start);
      copy.remove();
      void document.body.offsetHeight;
    }
  }
  parent.insertBefore(table, next);
  return { times, elements: copies.map((c) => c.querySelectorAll('*').length) };
}"""

DRAWS = """async ([before, after, deck, reps]) => {
  const faces = document.querySelectorAll('#table .face[data-code]');
  const codes = [...faces].map((f) => f.dataset.code);
  const times = [[], []];
  for (let i = 0; i < reps; i++) {
    for (const [k, url] of [before, after].entries()) {
      const { CardTable } = await import(`${url}?${i}`);
      const cards = await CardTable.load('', deck);
      await new Promise((done) => setTimeout(done, 20));
      const start = performance.now();
      for (const code of codes) cards.face(code);
      times[k].push(performance.now() - start);
    }
  }
  return { times, faces: codes.length };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", required=True, help="the commit whose cards.js is compared")
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=sorted(GAMES))
    parser.add_argument(
        "--viewports", nargs="+", choices=sorted(VIEWPORTS), default=["laptop", "phone"]
    )
    parser.add_argument("--reps", type=int, default=25, help="insertions of each copy")
    parser.add_argument("--throttle", type=float, default=4, help="CPU slow-down factor")
    args = parser.parse_args()
    before = subprocess.run(
        ["git", "show", f"{args.before}:api/static/cards.js"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    print(f"faces of {args.before} against today's, CPU {args.throttle:g}x slower, "
          f"median of {args.reps} insertions and of {args.reps} drawings (ms):")  # fmt: skip
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            deck = http.get(f"/v1/games/{game}").json()["deck"]
            for viewport in args.viewports:
                context = browser.new_context(**VIEWPORTS[viewport], reduced_motion="reduce")
                page, _cdp = new_page(context, args.throttle)
                page.route("**/cards-before.js*", lambda route: route.fulfill(
                    status=200, content_type="text/javascript", body=before))  # fmt: skip
                load_until_painted(page, link)
                script = page.get_attribute("script[type=module]", "src") or ""
                urls = [script.replace("play.js", name) for name in ("cards-before.js", "cards.js")]
                found = page.evaluate(INSERTS, [*urls, deck, args.reps])
                old, new = (statistics.median(t) for t in found["times"])
                elements = " -> ".join(str(n) for n in found["elements"])
                drawn = page.evaluate(DRAWS, [*urls, deck, args.reps])
                old_draw, new_draw = (statistics.median(t) for t in drawn["times"])
                print(f"  {game:13} {viewport:7} {old:6.1f} -> {new:6.1f} ({new / old - 1:+.0%}); "
                      f"elements {elements}; its {drawn['faces']} faces drawn on the spot "
                      f"{old_draw:5.1f} -> {new_draw:5.1f} ({new_draw / old_draw - 1:+.0%})",
                      flush=True)  # fmt: skip
                context.close()


if __name__ == "__main__":
    main()
