"""What the first table would cost with its card drawings as images instead of inline SVG: a
measurement of a way not taken yet (docs/performance.md, "2026-12-03, second session").

    python3 benchmarks/page_raster.py [--games three-towers tripeaks] [--throttle 8] [--reps 15]

For each game and viewport it opens the player's page of a real check (the API in a
subprocess; Debian's Chromium, its CPU ``--throttle`` times slower once the page has loaded)
and makes copies of the drawn ``#table``: as drawn (each face and back an inline ``<svg>``);
each ``<svg>`` replaced by an ``<img>`` of the same drawing as an SVG image (a data URL); by
an ``<img>`` of a PNG of it at ``--scale`` times its size on screen (drawn on a canvas from the
SVG image, a blob URL); and with no drawing at all (the floor). Every image is decoded before
the timing starts, as drawing ahead would. The copies are inserted in turn, ``--reps`` times
each, timed to the end of their style and layout (``layout``) and, inserted again, to a task
queued from the next animation frame (``frame``); the medians are printed with each copy's
count of elements.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import in_drawn_page, make_check, served_chromium

KINDS = ["as drawn (inline SVG)", "SVG images", "PNG images", "no drawings"]

RASTER = """async ([reps, scale]) => {
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const table = document.getElementById('table');
  const parent = table.parentNode;
  const next = table.nextSibling;
  const asImage = new Map();
  const asPng = new Map();
  const serialise = (svg) => {
    const text = new XMLSerializer().serializeToString(svg);
    const xmlns = '<svg xmlns="http://www.w3.org/2000/svg"';
    return text.includes('xmlns=') ? text : text.replace('<svg', xmlns);
  };
  for (const svg of table.querySelectorAll('svg.card-svg')) {
    const text = serialise(svg);
    if (asImage.has(text)) continue;
    const url = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
    const image = new Image();
    image.src = url;
    await image.decode();
    const box = svg.getBoundingClientRect();
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(box.width * scale);
    canvas.height = Math.ceil(box.height * scale);
    canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
    const png = URL.createObjectURL(await new Promise((done) => canvas.toBlob(done)));
    const bitmap = new Image();
    bitmap.src = png;
    await bitmap.decode();
    asImage.set(text, url);
    asPng.set(text, png);
  }
  const copyOf = (k) => {
    const copy = table.cloneNode(true);
    if (k === 0) return copy;
    for (const svg of copy.querySelectorAll('svg.card-svg')) {
      if (k === 3) {
        svg.remove();
        continue;
      }
      const image = document.createElement('img');
      image.alt = '';
      image.className = 'card-svg';
      image.src = (k === 1 ? asImage : asPng).get(serialise(svg));
      svg.replaceWith(image);
    }
    return copy;
  };
  const copies = [0, 1, 2, 3].map(copyOf);
  table.remove();
  await frame();
  const layout = copies.map(() => []);
  const painted = copies.map(() => []);
  for (let i = 0; i < reps; i++) {
    for (const [k, copy] of copies.entries()) {
      let fresh = copy.cloneNode(true);
      let start = performance.now();
      parent.insertBefore(fresh, next);
      void document.body.offsetHeight;
      layout[k].push(performance.now() - start);
      fresh.remove();
      await frame();
      fresh = copy.cloneNode(true);
      start = performance.now();
      parent.insertBefore(fresh, next);
      await frame();
      painted[k].push(performance.now() - start);
      fresh.remove();
      await frame();
    }
  }
  parent.insertBefore(table, next);
  return copies.map(
    (copy, k) => [median(layout[k]), median(painted[k]), copy.querySelectorAll('*').length]);
}"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=["three-towers", "tripeaks"])
    parser.add_argument("--viewports", nargs="*", default=["phone"])
    parser.add_argument("--throttle", type=float, default=8, help="CPU slow-down factor")
    parser.add_argument("--reps", type=int, default=15, help="insertions of each copy")
    parser.add_argument("--scale", type=float, default=2, help="PNG pixels per CSS pixel")
    args = parser.parse_args()
    print(f"CPU {args.throttle:g}x slower, median of {args.reps}, ms: layout / frame (elements)")
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            for size in args.viewports:
                found: list[Any] = in_drawn_page(
                    browser, link, size, args.throttle, RASTER, [args.reps, args.scale]
                )
                for kind, (lay, frame, elements) in zip(KINDS, found, strict=True):
                    print(f"{game:14} {size:8} {kind:24} {lay:6.1f} / {frame:6.1f}  ({elements})")


if __name__ == "__main__":
    main()
