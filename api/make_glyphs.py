"""Writes ``api/static/glyphs.js``: the outlines the player's page draws card faces with.

    python3 -m api.make_glyphs [--font-dir /usr/share/fonts/truetype/dejavu]

A card's rank, suit symbols and name are drawn as SVG paths from these outlines, not as SVG
text: laying out text is most of what a table costs the browser on its first frame (measured in
docs/performance.md), and a path looks the same on every device whatever fonts it has (a phone
without a font holding ☾ or ⌘ would otherwise show a box). The outlines are DejaVu Sans and
DejaVu Sans Bold (Bitstream Vera and DejaVu licence: free to copy and embed, see the notice in
the file), for printable ASCII, ★, and every character of every registered deck's table (suit
symbols, ranks, names). A character outside them is drawn as text (``api/static/cards.js``).
Needs fontTools (``pip install fonttools``) and the fonts (Debian: ``fonts-dejavu-core``); the
written file is committed, so neither is needed to serve the page.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import skillcheck.games  # noqa: F401  (registers the games' decks)
from skillcheck.cards import DECKS

OUT = Path(__file__).resolve().parent / "static" / "glyphs.js"
FONTS = {"normal": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}
NOTICE = (
    "Glyph outlines of DejaVu Sans and DejaVu Sans Bold. Fonts are (c) Bitstream (see below). "
    "DejaVu changes are in public domain. Bitstream Vera Fonts Copyright (c) 2003 by Bitstream, "
    "Inc. All Rights Reserved. Bitstream Vera is a trademark of Bitstream, Inc. Permission is "
    "hereby granted, free of charge, to any person obtaining a copy of the fonts accompanying "
    "this license and associated documentation files, to reproduce and distribute the Font "
    "Software, including without limitation the rights to use, copy, merge, publish, distribute, "
    "and/or sell copies of the Font Software, subject to the conditions in the Bitstream Vera "
    "licence (https://dejavu-fonts.github.io/License.html): the fonts may not be sold by "
    "themselves, and modified fonts must not use the names Bitstream, Vera or DejaVu."
)


def characters() -> str:
    """Printable ASCII, ★ and every character of every registered deck's table."""
    found = {chr(c) for c in range(0x20, 0x7F)} | {"★"}
    for deck in DECKS.values():
        table = deck.table()
        for suit in table["suits"]:
            found |= set(suit["symbol"])
        for card in table["cards"]:
            for key in ("name", "short_name", "rank"):
                if card.get(key) is not None:
                    found |= set(str(card[key]))
    return "".join(sorted(found))


def _outline(glyph_set: Any, name: str) -> str:
    """A glyph's outline as path commands in font units, y up (M, L, Q and Z; integers)."""
    from fontTools.pens.basePen import BasePen  # type: ignore[import-untyped]

    class Commands(BasePen):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(glyph_set)
            self.parts: list[str] = []

        def _point(self, *points: tuple[float, float]) -> str:
            return " ".join(f"{round(x)} {round(y)}" for x, y in points)

        def _moveTo(self, p: tuple[float, float]) -> None:
            self.parts.append("M" + self._point(p))

        def _lineTo(self, p: tuple[float, float]) -> None:
            self.parts.append("L" + self._point(p))

        def _qCurveToOne(self, p1: tuple[float, float], p2: tuple[float, float]) -> None:
            self.parts.append("Q" + self._point(p1, p2))

        def _curveToOne(self, p1: Any, p2: Any, p3: Any) -> None:
            self.parts.append("C" + self._point(p1, p2, p3))

        def _closePath(self) -> None:
            self.parts.append("Z")

    pen = Commands()
    glyph_set[name].draw(pen)
    return "".join(pen.parts)


def _pair_kerning(font: Any, wanted: set[str]) -> dict[tuple[str, str], int]:
    """The GPOS pair adjustments (x advance of the first glyph) between glyphs in ``wanted``."""
    pairs: dict[tuple[str, str], int] = {}
    if "GPOS" not in font:
        return pairs
    table = font["GPOS"].table
    for lookup in table.LookupList.Lookup:
        for sub in lookup.SubTable:
            if lookup.LookupType == 9:  # an extension wraps the real subtable
                sub = sub.ExtSubTable
            if getattr(sub, "LookupType", lookup.LookupType) != 2:
                continue
            firsts = sub.Coverage.glyphs
            if sub.Format == 1:
                for first, pair_set in zip(firsts, sub.PairSet, strict=True):
                    if first not in wanted:
                        continue
                    for record in pair_set.PairValueRecord:
                        value = getattr(record.Value1, "XAdvance", 0) if record.Value1 else 0
                        if value and record.SecondGlyph in wanted:
                            pairs.setdefault((first, record.SecondGlyph), value)
            elif sub.Format == 2:
                class1 = sub.ClassDef1.classDefs
                class2 = sub.ClassDef2.classDefs
                for first in firsts:
                    if first not in wanted:
                        continue
                    row = sub.Class1Record[class1.get(first, 0)]
                    for second in wanted:
                        record = row.Class2Record[class2.get(second, 0)]
                        value = getattr(record.Value1, "XAdvance", 0) if record.Value1 else 0
                        if value:
                            pairs.setdefault((first, second), value)
    return pairs


def font_data(path: Path, chars: str) -> dict[str, Any]:
    """Units per em, and the advances, outlines and kerning (font units) of ``chars`` in the
    font at ``path``."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    font = TTFont(path)
    cmap = font.getBestCmap()
    glyph_set = font.getGlyphSet()
    metrics = font["hmtx"].metrics
    names = {c: cmap[ord(c)] for c in chars if ord(c) in cmap}
    glyphs = {c: [metrics[n][0], _outline(glyph_set, n)] for c, n in names.items()}
    by_name = {n: c for c, n in names.items()}
    kerning = {
        by_name[a] + by_name[b]: value
        for (a, b), value in sorted(_pair_kerning(font, set(by_name)).items())
    }
    return {"unitsPerEm": font["head"].unitsPerEm, "glyphs": glyphs, "kerning": kerning}


def build(font_dir: Path) -> str:
    chars = characters()
    fonts = {weight: font_data(font_dir / file, chars) for weight, file in FONTS.items()}
    data = {"fonts": fonts}
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return (
        "// Generated by `python3 -m api.make_glyphs` (api/make_glyphs.py); do not edit.\n"
        f"// {NOTICE}\n"
        f"export const GLYPHS = {body};\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--font-dir", type=Path, default=Path("/usr/share/fonts/truetype/dejavu"))
    args = parser.parse_args()
    text = build(args.font_dir)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.encode()) // 1024} KiB, {len(characters())} characters)")


if __name__ == "__main__":
    main()
