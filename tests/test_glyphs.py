"""The outlines the player's page draws card faces with (``api/static/glyphs.js``, written by
``python3 -m api.make_glyphs``): every character of every registered deck is in both weights,
and each outline is well formed, so no built-in face falls back to text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from api.make_glyphs import OUT, characters
from api.pages import ASSETS


def glyphs() -> dict[str, Any]:
    text = OUT.read_text(encoding="utf-8")
    body = text[text.index("export const GLYPHS = ") + len("export const GLYPHS = ") :]
    data: dict[str, Any] = json.loads(body.strip().removesuffix(";"))
    return data


def test_the_page_serves_the_outlines_beside_cards_js() -> None:
    assert "glyphs.js" in ASSETS
    assert 'import { GLYPHS } from "./glyphs.js";' in ASSETS["cards.js"].body.decode()


@pytest.mark.parametrize("weight", ["normal", "bold"])
def test_every_character_of_every_deck_has_an_outline(weight: str) -> None:
    font = glyphs()["fonts"][weight]
    missing = [c for c in characters() if c not in font["glyphs"]]
    assert missing == [], f"run `python3 -m api.make_glyphs`: {missing} have no outline"
    assert font["unitsPerEm"] > 0


@pytest.mark.parametrize("weight", ["normal", "bold"])
def test_each_outline_is_closed_paths_of_points(weight: str) -> None:
    font = glyphs()["fonts"][weight]
    command = re.compile(r"M-?\d+ -?\d+(?:L-?\d+ -?\d+|Q(?:-?\d+ -?\d+ ){1}-?\d+ -?\d+|Z)*")
    for character, (advance, outline) in font["glyphs"].items():
        assert isinstance(advance, int) and advance > 0, character
        if character == " ":
            assert outline == ""
            continue
        contours = outline.split("Z")
        assert contours[-1] == "" and all(command.fullmatch(c + "Z") for c in contours[:-1]), (
            character
        )
    # kerning pairs are between characters that have outlines, in font units
    assert all(len(pair) == 2 and set(pair) <= set(font["glyphs"]) for pair in font["kerning"])
    assert all(isinstance(v, int) and abs(v) < font["unitsPerEm"] for v in font["kerning"].values())


def test_the_committed_outlines_are_what_the_script_writes() -> None:
    """DejaVu Sans comes with fontconfig (Debian's fonts-dejavu-core, which Chromium brings)."""
    from api.make_glyphs import build

    fonts = Path("/usr/share/fonts/truetype/dejavu")
    assert (fonts / "DejaVuSans.ttf").exists(), "install Debian's fonts-dejavu-core"
    assert build(fonts) == OUT.read_text(encoding="utf-8"), "run `python3 -m api.make_glyphs`"
