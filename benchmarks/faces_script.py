"""Drawing card faces in pure script: cards.js of another commit against today's, under Node
with the smallest stand-in for the DOM calls a face makes (docs/performance.md, "2026-12-02,
fourth session").

    python3 benchmarks/faces_script.py --before 8a7fd86~1 [--faces 5 10 30 52] [--reps 40]

First it draws every face of every deck with both and compares them path by path: the same
paths, the same words, the same commands, and how far apart their points lie (absolute or
relative steps alike). Then, for each count of faces, it imports each cards.js afresh
(nothing it keeps is warm, as when a page draws its first table) and times drawing that many
faces of each deck, the two interleaved; it prints the medians. The browser's own cost of the
elements is not in it (benchmarks/page_faces.py measures that).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillcheck.cards import DECKS  # noqa: E402

RUN = r"""
import fs from "fs";
class El {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.dataset = {};
    this.className = "";
    this.classList = { add: (...c) => { this.className += " " + c.join(" "); } }; }
  setAttribute(k, v) { this.attrs[k] = v; }
  getAttribute(k) { return this.attrs[k]; }
  append(...c) { this.children.push(...c); }
  set textContent(t) { this.text = t; }
  get textContent() { return this.text; }
  querySelectorAll() { return []; }
  cloneNode() { return this; }
}
globalThis.document = { createElementNS: (ns, t) => new El(t), createElement: (t) => new El(t) };
const [dir, counts, reps] = [process.argv[2], JSON.parse(process.argv[3]), Number(process.argv[4])];
const decks = JSON.parse(fs.readFileSync(`${dir}/decks.json`));
const paths = (el, out = []) => {
  if (el.tag === "path") out.push([el.attrs.class, el.attrs["data-text"], el.attrs.d]);
  if (el.tag === "text") out.push(["text", el.text, ""]);
  for (const c of el.children || []) if (c instanceof El) paths(c, out);
  return out;
};
function points(d) {  // [command, x, y], absolute
  const out = []; let x = 0, y = 0, sx = 0, sy = 0;
  for (const [, cmd, nums] of d.matchAll(/([MLQZmlqz])([^MLQZmlqz]*)/g)) {
    const n = (nums.match(/-?\d*\.?\d+/g) || []).map(Number); const C = cmd.toUpperCase();
    if (C === "Z") { x = sx; y = sy; out.push(["Z", x, y]); continue; }
    const [bx, by] = cmd === C ? [0, 0] : [x, y];
    for (let i = 0; i < n.length; i += 2) out.push([C, bx + n[i], by + n[i + 1]]);
    [, x, y] = out[out.length - 1];
    if (C === "M") { sx = x; sy = y; }
  }
  return out;
}
const before = await import(`${dir}/before/cards.js`);
const today = await import(`${dir}/today/cards.js`);
let worst = 0, compared = 0, lengths = [0, 0];
for (const table of Object.values(decks)) {
  const [a, b] = [new before.CardTable(table), new today.CardTable(table)];
  for (const code of a.cards.keys()) {
    const [pa, pb] = [paths(a.drawFace(code)), paths(b.drawFace(code))];
    const words = (list) => JSON.stringify(list.map((p) => p.slice(0, 2)));
    if (words(pa) !== words(pb)) throw new Error(`${code}: the faces hold different paths`);
    pa.forEach((p, i) => {
      const [A, B] = [points(p[2]), points(pb[i][2])];
      const commands = (list) => list.map((q) => q[0]).join();
      if (commands(A) !== commands(B)) throw new Error(`${code} ${p[1]}: other commands`);
      A.forEach((q, j) => {
        worst = Math.max(worst, Math.abs(q[1] - B[j][1]), Math.abs(q[2] - B[j][2]));
      });
      compared += A.length; lengths[0] += p[2].length; lengths[1] += pb[i][2].length;
    });
  }
}
console.log(`the same paths; ${compared} points, at most ${worst.toFixed(4)} units apart; ` +
  `the paths' length ${lengths[0]} -> ${lengths[1]} characters`);
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
for (const count of counts) {
  const times = { before: [], today: [] };
  for (let i = 0; i < reps; i++) for (const which of ["before", "today"]) {
    const module = await import(`${dir}/${which}/cards.js?${count}-${i}`);
    let spent = 0;
    for (const table of Object.values(decks)) {
      const cards = new module.CardTable(table);
      const codes = [...cards.cards.keys()].slice(0, count);
      const start = performance.now();
      for (const code of codes) cards.face(code);
      spent += performance.now() - start;
    }
    times[which].push(spent);
  }
  console.log(`${count} faces of each deck, drawn cold: ${median(times.before).toFixed(1)} -> ` +
    `${median(times.today).toFixed(1)} ms (median of ${reps})`);
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", required=True, help="the commit whose cards.js is compared")
    parser.add_argument("--faces", type=int, nargs="+", default=[5, 10, 30, 52])
    parser.add_argument("--reps", type=int, default=40, help="drawings of each count")
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        sys.exit("Node.js (node) is needed")
    static = ROOT / "api" / "static"
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "package.json").write_text('{"type": "module"}')
        (work / "decks.json").write_text(json.dumps({k: d.table() for k, d in DECKS.items()}))
        (work / "run.mjs").write_text(RUN)
        for which in ("before", "today"):
            (work / which).mkdir()
            shutil.copy(static / "glyphs.js", work / which / "glyphs.js")
        (work / "today" / "cards.js").write_text((static / "cards.js").read_text())
        shown = subprocess.run(
            ["git", "show", f"{args.before}:api/static/cards.js"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        )  # fmt: skip
        (work / "before" / "cards.js").write_text(shown.stdout)
        print(f"cards.js of {args.before} -> today's, under Node:", flush=True)
        subprocess.run(
            [node, str(work / "run.mjs"), str(work), json.dumps(args.faces), str(args.reps)],
            check=True,
        )


if __name__ == "__main__":
    main()
