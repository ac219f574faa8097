"""Golden deals: a deal is a pure function of (game, parameters, seed), stable forever.

tests/golden/deals.json pins Three Towers deals (written once by tests/golden/make_deals.py; a
changed vector is a breaking change, see docs/rng.md). The cross-language tests run the
JavaScript reference implementation, examples/js/skillcheck-deal.mjs, with Node.js and require it
to deal exactly what the library deals. They need ``node`` on PATH and fail (never skip) without
it: CI installs Node.js.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from skillcheck import MAX_SEED, NUMERALS, SkillcheckError, Suit, ThreeTowers
from skillcheck.games.three_towers import Quota, level_deck
from skillcheck.serialization import game_from_params, game_params

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "deals.json"
JS_MODULE = ROOT / "examples" / "js" / "skillcheck-deal.mjs"
GAME = "three-towers"


def load_vectors() -> list[dict[str, Any]]:
    doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert doc["game"] == GAME
    vectors: list[dict[str, Any]] = doc["vectors"]
    return vectors


VECTORS = load_vectors()


def codes(game: ThreeTowers, seed: int) -> list[str]:
    return [c.code for c in game.deal(seed)]


def rebuild(params: dict[str, Any]) -> ThreeTowers:
    game = game_from_params(GAME, params)
    assert isinstance(game, ThreeTowers)
    return game


# ---- the golden file itself ---------------------------------------------------------------------


def test_golden_vectors_cover_the_parameter_space() -> None:
    assert len(VECTORS) >= 12
    assert len({v["name"] for v in VECTORS}) == len(VECTORS)
    params = [v["params"] for v in VECTORS]
    assert {2, 6, 9} <= {p["level"] for p in params}
    assert {3, 5, 8} <= {p["spaces"] for p in params}
    assert {"standard", "ivory", "quota"} <= {p["variant"]["kind"] for p in params}
    quotas = [p["variant"] for p in params if p["variant"]["kind"] == "quota"]
    assert {1, 4, 8} <= {q["skill"] for q in quotas if q["suited_cards"] is None}
    assert any(q["suited_cards"] is not None for q in quotas)
    seeds = {v["seed"] for v in VECTORS}
    assert {0, 1, 42, MAX_SEED} <= seeds
    assert seeds - {0, 1, 42, MAX_SEED}  # and some arbitrary ones


def test_golden_file_is_exactly_what_make_deals_writes() -> None:
    """The generator's cases still produce the stored file byte for byte."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_deals", GOLDEN.with_name("make_deals.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render(module.document(module.vectors())) == GOLDEN.read_text(encoding="utf-8")


# ---- the Python library deals the golden vectors ------------------------------------------------


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_golden_deal(vector: dict[str, Any]) -> None:
    game = rebuild(vector["params"])
    assert codes(game, vector["seed"]) == vector["deal"]
    # The parameters round-trip, and a new play starts from the same deal.
    assert game_params(game) == vector["params"]
    state = game.new_state(vector["seed"])
    assert [c.code for c in state.deal or ()] == vector["deal"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_golden_deal_holds_the_right_cards(vector: dict[str, Any]) -> None:
    game = rebuild(vector["params"])
    deal = vector["deal"]
    assert len(set(deal)) == len(deal)
    level_codes = {c.code for c in level_deck(game.level)}
    assert set(deal) <= level_codes
    variant = game.variant
    if isinstance(variant, Quota):
        suited = [c for c in game.deal(vector["seed"]) if c.bears(variant.suit)]
        assert len(suited) == variant.skill
        assert len(deal) == 2 * (game.level - 1) + variant.skill
        if variant.suited_cards is not None:
            assert set(suited) == set(variant.suited_cards)
    else:
        assert set(deal) == level_codes


def test_the_order_of_gm_given_suited_cards_does_not_matter() -> None:
    given = ["9LK", "2MK", "7SK", "4YK"]
    a = ThreeTowers.quota_check("knots", 4, 3, suited_cards=given)
    b = ThreeTowers.quota_check("knots", 4, 3, suited_cards=sorted(given))
    for seed in (0, 42, MAX_SEED):
        assert codes(a, seed) == codes(b, seed)


def test_all_suited_cards_given_deals_like_the_level_deck() -> None:
    """Given suited cards draw nothing before the deck shuffle; seed-chosen ones do."""
    moons = [c.code for c in level_deck(9) if c.bears(Suit.MOONS)]
    given = ThreeTowers.quota_check("moons", 8, 8, suited_cards=moons)
    chosen = ThreeTowers.quota_check("moons", 8, 8)
    for seed in (0, 1, 42):
        assert codes(given, seed) == codes(ThreeTowers(), seed)
        assert sorted(codes(chosen, seed)) == sorted(codes(given, seed))
        assert codes(chosen, seed) != codes(given, seed)


@pytest.mark.parametrize("seed", [0, 42, MAX_SEED])
def test_standard_and_ivory_deal_alike(seed: int) -> None:
    for level in (2, 6, 9):
        standard = codes(ThreeTowers(level=level), seed)
        assert codes(ThreeTowers.ivory("wyrms", level=level), seed) == standard


def doc_golden_deals() -> list[tuple[dict[str, Any], int, list[str]]]:
    text = (ROOT / "docs" / "rng.md").read_text(encoding="utf-8")
    block = text.split("<!-- golden-deals:begin -->")[1].split("<!-- golden-deals:end -->")[0]
    lines = [line for line in block.splitlines() if line.strip() and not line.startswith("```")]
    assert len(lines) % 2 == 0
    found = []
    for head, deal in zip(lines[::2], lines[1::2], strict=True):
        params, _, seed = head.rpartition(" seed ")
        found.append((json.loads(params), int(seed), deal.split()))
    return found


def test_the_golden_deals_in_the_docs() -> None:
    """docs/rng.md lists golden deals with default parameters left out; they must hold too."""
    listed = doc_golden_deals()
    assert len(listed) >= 12
    stored = {(json.dumps(v["params"], sort_keys=True), v["seed"]): v["deal"] for v in VECTORS}
    for params, seed, deal in listed:
        game = rebuild(params)
        assert codes(game, seed) == deal, (params, seed)
        assert stored[json.dumps(game_params(game), sort_keys=True), seed] == deal


@pytest.mark.parametrize("seed", [0, 5, MAX_SEED])
def test_spaces_undo_and_move_limit_do_not_change_the_deal(seed: int) -> None:
    base = codes(ThreeTowers.ivory("suns", level=7), seed)
    for spaces in (3, 5, 8):
        game = ThreeTowers.ivory("suns", level=7, spaces=spaces, undo=False, move_limit=10)
        assert codes(game, seed) == base


# ---- cross-language: the JavaScript reference implementation ------------------------------------


@cache
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "Node.js is not installed: the cross-language deal tests need `node` (version 18 or "
            "later) on PATH to run examples/js/skillcheck-deal.mjs. Install Node.js (CI does); "
            "these tests must not be skipped.",
            pytrace=False,
        )
    return path


def run_node(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [node(), *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def run_cli(params: dict[str, Any], seed: int) -> list[str]:
    done = run_node([str(JS_MODULE), json.dumps(params), str(seed)])
    assert done.returncode == 0, done.stderr
    deal: list[str] = json.loads(done.stdout)
    return deal


def run_batch(cases: list[dict[str, Any]]) -> list[list[str]]:
    done = run_node([str(JS_MODULE), "--batch"], stdin=json.dumps(cases))
    assert done.returncode == 0, done.stderr
    deals: list[list[str]] = json.loads(done.stdout)
    return deals


def run_js(source: str) -> Any:
    """Evaluate an ES module snippet that imports the module as ``m`` and prints JSON."""
    program = f"import * as m from {json.dumps(JS_MODULE.as_uri())};\n{source}"
    done = run_node(["--input-type=module", "-e", program])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_node_is_installed() -> None:
    version = run_node(["--version"]).stdout.strip()
    assert int(version.lstrip("v").split(".")[0]) >= 18, version


def test_js_pcg32_reference_demo_round() -> None:
    out = run_js(
        """
        const r = new m.Pcg32(42, 54);
        const u32 = Array.from({length: 6}, () => r.nextU32());
        const coins = Array.from({length: 65}, () => "TH"[r.bounded(2)]).join("");
        const rolls = Array.from({length: 33}, () => r.bounded(6) + 1).join(" ");
        const cards = r.shuffle([...Array(52).keys()]);
        const label = (c) => "A23456789TJQK"[Math.floor(c / 4)] + "hcds"[c % 4];
        console.log(JSON.stringify([u32, coins, rolls, cards.map(label).join(" ")]));
        """
    )
    assert out == [
        [0xA15C02B7, 0x7B47F409, 0xBA1D3330, 0x83D2F293, 0xBFA4784B, 0xCBED606E],
        "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT",
        "3 4 1 1 2 2 3 2 4 3 2 4 3 3 5 2 3 1 3 1 5 1 4 1 5 6 4 6 6 2 6 3 3",
        "Qd Ks 6d 3s 3d 4c 3h Td Kc 5c Jh Kd Jd As 4s 4h Ad Th Ac Jc 7s Qs 2s 7h Kh 2d 6c Ah 4d "
        "Qh 9h 6s 5s 2c 9c Ts 8d 9s 3c 8c Js 5d 2h 6h 7d 8s 9d 5h 8h Qc 7c Tc",
    ]


def test_js_numerals_are_the_canonical_numerals() -> None:
    out = run_js("console.log(JSON.stringify(m.NUMERALS));")
    assert out == [
        {
            "index": c.index,
            "code": c.code,
            "name": c.name,
            "rank": int(c.rank or 0),
            "suits": [s.value for s in c.suits],
        }
        for c in NUMERALS
    ]


def test_js_max_seed_and_stream() -> None:
    assert run_js("console.log(JSON.stringify([m.MAX_SEED, m.STREAM]));") == [MAX_SEED, 54]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_js_cli_deals_the_golden_vectors(vector: dict[str, Any]) -> None:
    assert run_cli(vector["params"], vector["seed"]) == vector["deal"]


def test_js_cli_example_from_the_docs() -> None:
    params = {"level": 9, "variant": {"kind": "quota", "suit": "moons", "skill": 4, "quota": 3}}
    expected = codes(ThreeTowers.quota_check("moons", 4, 3), 1234)
    assert run_cli(params, 1234) == expected


def random_game(rnd: random.Random) -> ThreeTowers:
    level = rnd.randint(2, 9)
    spaces = rnd.randint(3, 8)
    kind = rnd.choice(["standard", "ivory", "quota", "quota"])
    suit = rnd.choice(["moons", "suns", "waves", "leaves", "wyrms", "knots"])
    if kind == "standard":
        return ThreeTowers(level=level, spaces=spaces)
    if kind == "ivory":
        return ThreeTowers.ivory(suit, level=level, spaces=spaces)
    skill = rnd.randint(1, level - 1)
    quota = rnd.randint(1, skill)
    suited = None
    if rnd.random() < 0.35:
        allowed = [c.code for c in level_deck(level) if c.bears(Suit.parse(suit))]
        suited = rnd.sample(allowed, skill)  # in random order: the order must not matter
    return ThreeTowers.quota_check(
        suit, skill, quota, suited_cards=suited, level=level, spaces=spaces
    )


def random_seed(rnd: random.Random) -> int:
    return rnd.choice(
        [
            rnd.randrange(MAX_SEED + 1),
            rnd.randrange(1000),
            MAX_SEED - rnd.randrange(1000),
            rnd.randrange(1 << 32),
            (1 << 32) + rnd.randrange(-5, 5),
        ]
    )


def test_js_batch_deals_like_python_for_random_parameters() -> None:
    rnd = random.Random(0x5EED)
    cases = []
    for _ in range(250):
        game = random_game(rnd)
        cases.append((game, random_seed(rnd)))
    payload = [{"params": game_params(g), "seed": s} for g, s in cases]
    payload += [{"params": v["params"], "seed": v["seed"]} for v in VECTORS]
    expected = [codes(g, s) for g, s in cases] + [v["deal"] for v in VECTORS]
    # The docs' short form (defaults left out) too.
    for params, seed, deal in doc_golden_deals():
        payload.append({"params": params, "seed": seed})
        expected.append(deal)
    assert run_batch(payload) == expected


def test_js_cli_deals_like_python_for_some_random_parameters() -> None:
    rnd = random.Random(20240601)
    for _ in range(10):
        game, seed = random_game(rnd), random_seed(rnd)
        assert run_cli(game_params(game), seed) == codes(game, seed), (game_params(game), seed)


@pytest.mark.parametrize(
    ("params", "seed", "message"),
    [
        ({}, MAX_SEED + 1, "seed"),
        ({}, -1, "seed"),
        ({"level": 1}, 0, "level"),
        ({"level": 10}, 0, "level"),
        ({"spaces": 9}, 0, "spaces"),
        ({"variant": {"kind": "ivory", "suit": "stars"}}, 0, "suit"),
        ({"variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 4}}, 0, "quota"),
        ({"level": 4, "variant": {"kind": "quota", "suit": "moons", "skill": 4, "quota": 1}}, 0,
         "skill"),
        ({"variant": {"kind": "quota", "suit": "moons", "skill": 2, "quota": 1,
                      "suited_cards": ["2MK", "2SY"]}}, 0, "suited_cards"),
        ({"variant": {"kind": "poker"}}, 0, "kind"),
        ({"variant": {"suit": "moons"}}, 0, "kind"),
    ],
)  # fmt: skip
def test_js_cli_rejects_what_python_rejects(
    params: dict[str, Any], seed: int, message: str
) -> None:
    with pytest.raises(SkillcheckError):
        rebuild(params).new_state(seed)
    done = run_node([str(JS_MODULE), json.dumps(params), str(seed)])
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""
