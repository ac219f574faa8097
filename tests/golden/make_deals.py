"""Write tests/golden/deals.json, the golden Three Towers deals (docs/rng.md).

    python3 tests/golden/make_deals.py              check the file against the library
    python3 tests/golden/make_deals.py --write      write it (only when it does not exist yet)

WARNING: the golden deals pin every deal forever. A deal is a pure function of (game, parameters,
seed); saved records, published commitments and JavaScript VTT modules depend on it. If the check
fails, the library changed a deal: fix the library. Regenerating the file with different deals
(``--write --overwrite``) is a breaking change that needs a new major version and a note in
docs/rng.md. Adding new vectors is fine: append them to ``CASES`` and run with ``--write --add``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from skillcheck import MAX_SEED, ThreeTowers
from skillcheck.serialization import game_params

PATH = Path(__file__).with_name("deals.json")
GAME = "three-towers"

#: (name, game, seed). Order matters only for readability; names are unique.
CASES: list[tuple[str, ThreeTowers, int]] = [
    ("standard level 9, seed 0", ThreeTowers(), 0),
    ("standard level 9, seed 1", ThreeTowers(), 1),
    ("standard level 2, 3 spaces, seed 42", ThreeTowers(level=2, spaces=3), 42),
    ("standard level 6, 8 spaces, max seed", ThreeTowers(level=6, spaces=8), MAX_SEED),
    (
        "standard level 9, 8 spaces, no undo, move limit 200",
        ThreeTowers(spaces=8, undo=False, move_limit=200),
        20240601,
    ),
    ("ivory moons level 9, seed 42", ThreeTowers.ivory("moons"), 42),
    ("ivory knots level 6, 3 spaces", ThreeTowers.ivory("knots", level=6, spaces=3), 1234),
    ("ivory waves level 3", ThreeTowers.ivory("waves", level=3), 7),
    ("quota moons skill 4 quota 3 (the CLI example)", ThreeTowers.quota_check("moons", 4, 3), 1234),
    ("quota suns skill 1 quota 1, seed 0", ThreeTowers.quota_check("suns", 1, 1), 0),
    (
        "quota waves skill 8 quota 5, 8 spaces, max seed",
        ThreeTowers.quota_check("waves", 8, 5, spaces=8),
        MAX_SEED,
    ),
    ("quota leaves level 2 skill 1", ThreeTowers.quota_check("leaves", 1, 1, level=2, spaces=3), 1),
    ("quota wyrms level 6 skill 4 quota 2", ThreeTowers.quota_check("wyrms", 4, 2, level=6), 42),
    ("quota moons skill 8 quota 8, seed-chosen", ThreeTowers.quota_check("moons", 8, 8), 0),
    (
        "quota moons skill 8 quota 8, GM-given (all eight)",
        ThreeTowers.quota_check(
            "moons", 8, 8, suited_cards=["2MK", "3MW", "4MS", "5ML", "6MW", "7ML", "8MS", "9MS"]
        ),
        0,
    ),
    (
        "quota knots skill 4 quota 3, GM-given",
        ThreeTowers.quota_check("knots", 4, 3, suited_cards=["2MK", "4YK", "7SK", "9LK"]),
        42,
    ),
    (
        "quota moons level 6 skill 2, GM-given out of canonical order",
        ThreeTowers.quota_check("moons", 2, 1, level=6, suited_cards=["6MW", "2MK"]),
        987654321,
    ),
    (
        "quota suns level 5 skill 4 quota 4, GM-given, 3 spaces",
        ThreeTowers.quota_check(
            "suns", 4, 4, level=5, spaces=3, suited_cards=["2SY", "3SK", "4MS", "5SW"]
        ),
        31337,
    ),
]


def vectors() -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "params": game_params(game),
            "seed": seed,
            "deal": [c.code for c in game.deal(seed)],
        }
        for name, game, seed in CASES
    ]


def document(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "comment": (
            "Golden Three Towers deals (docs/rng.md). Each vector: params in game_params form, "
            "seed, and the deal as card codes, top card first. These pin deals forever: changing "
            "an existing vector is a breaking change. Written by tests/golden/make_deals.py."
        ),
        "game": GAME,
        "vectors": items,
    }


_STRING_LIST = re.compile(r'\[\s+("[^"]*"(?:,\s+"[^"]*")*)\s+\]')


def render(doc: dict[str, Any]) -> str:
    """Indented JSON with each list of card codes on one line."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    return _STRING_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the file if it is missing")
    parser.add_argument("--add", action="store_true", help="with --write: append new cases only")
    parser.add_argument(
        "--overwrite", action="store_true", help="with --write: replace changed vectors (BREAKING)"
    )
    args = parser.parse_args(argv)

    fresh = vectors()
    if not PATH.exists():
        if not args.write:
            print(f"{PATH} does not exist: run with --write", file=sys.stderr)
            return 1
        PATH.write_text(render(document(fresh)), encoding="utf-8")
        print(f"wrote {len(fresh)} vectors to {PATH}")
        return 0

    stored = json.loads(PATH.read_text(encoding="utf-8"))["vectors"]
    by_name = {v["name"]: v for v in stored}
    changed = [v["name"] for v in fresh if v["name"] in by_name and by_name[v["name"]] != v]
    new = [v for v in fresh if v["name"] not in by_name]
    for name in changed:
        print(f"CHANGED: {name}", file=sys.stderr)
    for v in new:
        print(f"new: {v['name']}", file=sys.stderr)
    if changed and not (args.write and args.overwrite):
        print("deals changed: the library broke the stability promise", file=sys.stderr)
        return 1
    if args.write and (new or changed):
        items = fresh if args.overwrite else [*stored, *new]
        PATH.write_text(render(document(items)), encoding="utf-8")
        print(f"wrote {len(items)} vectors to {PATH}")
        return 0
    if new:
        print("new cases are not in the file yet: run with --write --add", file=sys.stderr)
        return 1
    print(f"{len(stored)} golden deals match the library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
