"""Golden deals: a deal is a pure function of (game, parameters, seed), stable forever.

tests/golden/deals.json pins Three Towers deals (written once by tests/golden/make_deals.py; a
changed vector is a breaking change, see docs/rng.md); tests/golden/tripeaks_deals.json pins Tri
Peaks deals (computed from the spec in docs/rng.md, not from the game). The cross-language tests
run the JavaScript reference implementation, examples/js/skillcheck-deal.mjs, with Node.js and
require it to deal exactly what the library deals. They need ``node`` on PATH and fail (never
skip) without it: CI installs Node.js.
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
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcheck import MAX_SEED, NUMERALS, SkillcheckError, Suit, ThreeTowers
from skillcheck.cards.standard import STANDARD
from skillcheck.engine import GAMES
from skillcheck.games.three_towers import Quota, level_deck
from skillcheck.rng import Pcg32
from skillcheck.serialization import game_from_params, game_params

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "deals.json"
TRIPEAKS_GOLDEN = ROOT / "tests" / "golden" / "tripeaks_deals.json"
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


# ---- Tri Peaks: the standard deck, dealt to three peaks, a waste card and the stock ------------

TRIPEAKS = "tripeaks"
TABLEAU = 28
#: Tableau positions by row (docs/rng.md, /work/shared/reference/tripeaks-layout.md).
TRIPEAKS_ROWS = [list(range(0, 3)), list(range(3, 9)), list(range(9, 18)), list(range(18, 28))]


def tripeaks_spec(seed: int, empty_waste: bool = False) -> dict[str, list[str]]:
    """The Tri Peaks deal straight from docs/rng.md, independent of the game class."""
    deal = list(STANDARD)
    Pcg32(seed).shuffle(deal)
    flat = [c.code for c in deal]
    stock_from = TABLEAU if empty_waste else TABLEAU + 1
    return {
        "tableau": flat[:TABLEAU],
        "waste": flat[TABLEAU:stock_from],
        "stock": flat[stock_from:],
        "deal": flat,
    }


def load_tripeaks_vectors() -> list[dict[str, Any]]:
    doc = json.loads(TRIPEAKS_GOLDEN.read_text(encoding="utf-8"))
    assert doc["game"] == TRIPEAKS
    vectors: list[dict[str, Any]] = doc["vectors"]
    return vectors


TRIPEAKS_VECTORS = load_tripeaks_vectors()
TRIPEAKS_IDS = [v["name"] for v in TRIPEAKS_VECTORS]


def test_tripeaks_golden_vectors_cover_seeds_and_variants() -> None:
    assert len(TRIPEAKS_VECTORS) >= 8
    assert len(set(TRIPEAKS_IDS)) == len(TRIPEAKS_IDS)
    seeds = {v["seed"] for v in TRIPEAKS_VECTORS}
    assert {0, 1, 42, 1234, MAX_SEED} <= seeds
    assert seeds - {0, 1, 42, 1234, MAX_SEED}
    empty = {v["seed"] for v in TRIPEAKS_VECTORS if v["empty_waste"]}
    assert {0, MAX_SEED} <= empty
    assert empty <= {v["seed"] for v in TRIPEAKS_VECTORS if not v["empty_waste"]}


@pytest.mark.parametrize("vector", TRIPEAKS_VECTORS, ids=TRIPEAKS_IDS)
def test_tripeaks_golden_deal_is_the_spec(vector: dict[str, Any]) -> None:
    expected = tripeaks_spec(vector["seed"], vector["empty_waste"])
    got = {k: vector[k] for k in ("tableau", "waste", "stock")}
    assert got == {k: expected[k] for k in ("tableau", "waste", "stock")}
    assert len(vector["tableau"]) == 28
    assert len(vector["waste"]) == (0 if vector["empty_waste"] else 1)
    assert len(vector["stock"]) == (24 if vector["empty_waste"] else 23)
    flat = vector["tableau"] + vector["waste"] + vector["stock"]
    assert sorted(flat) == sorted(c.code for c in STANDARD)


def test_tripeaks_the_variants_share_one_flat_deal() -> None:
    for seed in (0, 7, 1234, MAX_SEED):
        plain, empty = tripeaks_spec(seed), tripeaks_spec(seed, empty_waste=True)
        assert plain["deal"] == empty["deal"]
        assert plain["tableau"] == empty["tableau"]
        assert empty["stock"] == plain["waste"] + plain["stock"]


def doc_tripeaks_deals() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "rng.md").read_text(encoding="utf-8")
    assert text.count("<!-- tripeaks-deals:begin -->") == 1
    block = text.split("<!-- tripeaks-deals:begin -->")[1].split("<!-- tripeaks-deals:end -->")[0]
    lines = [line for line in block.splitlines() if line.strip() and not line.startswith("```")]
    assert len(lines) % 4 == 0
    found = []
    for head, tableau, waste, stock in zip(*[iter(lines)] * 4, strict=True):
        words = head.split()
        assert words[0] == "seed" and words[2:] in ([], ["empty_waste"]), head
        label, _, rows = tableau.strip().partition(" ")
        assert label == "tableau"
        row_codes = [row.split() for row in rows.split("|")]
        assert [len(r) for r in row_codes] == [len(r) for r in TRIPEAKS_ROWS], tableau
        assert waste.split()[0] == "waste" and stock.split()[0] == "stock"
        found.append(
            {
                "seed": int(words[1]),
                "empty_waste": words[2:] == ["empty_waste"],
                "tableau": [c for r in row_codes for c in r],
                "waste": [c for c in waste.split()[1:] if c != "-"],
                "stock": stock.split()[1:],
            }
        )
    return found


def test_the_tripeaks_golden_deals_in_the_docs() -> None:
    """docs/rng.md lists the Tri Peaks golden deals; they match the spec and the JSON file."""
    listed = doc_tripeaks_deals()
    assert len(listed) >= 8
    stored = [{k: v[k] for k in ("seed", "empty_waste", "tableau", "waste", "stock")}
              for v in TRIPEAKS_VECTORS]  # fmt: skip
    assert listed == stored
    for d in listed:
        expected = tripeaks_spec(d["seed"], d["empty_waste"])
        assert [d["tableau"], d["waste"], d["stock"]] == [
            expected["tableau"], expected["waste"], expected["stock"]
        ], d["seed"]  # fmt: skip


def test_tripeaks_worked_example_in_the_docs() -> None:
    text = (ROOT / "docs" / "rng.md").read_text(encoding="utf-8")
    section = text.split("## The Tri Peaks deal")[1].split("### Golden Tri Peaks deals")[0]
    rng = Pcg32(1234)
    draws = [rng.bounded(i + 1) for i in range(51, 45, -1)]
    assert f"`j = {', '.join(map(str, draws))}, …`" in section
    spec = tripeaks_spec(1234)
    assert "waste    " + spec["waste"][0] in section
    assert "stock    " + " ".join(spec["stock"]) in section
    canonical = " ".join(c.code for c in STANDARD[:13])
    assert canonical in section


def card_codes(cards: Any) -> list[str]:
    return [c.code for c in cards]


@pytest.mark.parametrize("empty_waste", [False, True], ids=["waste card", "empty waste"])
@pytest.mark.parametrize("seed", [0, 1, 42, 1234, 2**32, MAX_SEED])
def test_tripeaks_game_deals_the_spec(seed: int, empty_waste: bool) -> None:
    """The game class deals what docs/rng.md (and so the JavaScript module) deals."""
    if TRIPEAKS not in GAMES:
        pytest.skip(
            "the Tri Peaks game (skillcheck/games/tripeaks/) is not registered yet; its deal "
            "must equal the docs/rng.md spec once it is"
        )
    expected = tripeaks_spec(seed, empty_waste)
    game = GAMES[TRIPEAKS]() if not empty_waste else GAMES[TRIPEAKS](empty_waste=True)
    assert card_codes(game.deal(seed)) == expected["deal"]
    state = game.new_state(seed)
    assert card_codes(state.tableau) == expected["tableau"]
    assert card_codes(state.waste) == expected["waste"]
    assert card_codes(state.stock) == expected["stock"]


# ---- Tri Peaks in JavaScript --------------------------------------------------------------------


def tripeaks_cases(seeds: list[int]) -> list[dict[str, Any]]:
    return [{"game": TRIPEAKS, "seed": s, "empty_waste": e} for s in seeds for e in (False, True)]


def test_js_standard_deck_is_the_canonical_order() -> None:
    out = run_js(
        "console.log(JSON.stringify([m.standardDeck(), m.standardDeck() !== m.standardDeck()]));"
    )
    assert out == [[c.code for c in STANDARD], True]


def test_js_tripeaks_rows() -> None:
    out = run_js("console.log(JSON.stringify([m.TRIPEAKS_ROWS, m.TRIPEAKS_TABLEAU]));")
    assert out == [TRIPEAKS_ROWS, TABLEAU]


@pytest.mark.parametrize("vector", TRIPEAKS_VECTORS, ids=TRIPEAKS_IDS)
def test_js_cli_deals_the_tripeaks_golden_vectors(vector: dict[str, Any]) -> None:
    args = [str(JS_MODULE), TRIPEAKS, str(vector["seed"])]
    if vector["empty_waste"]:
        args.append("--empty-waste")
    done = run_node(args)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    flat = vector["tableau"] + vector["waste"] + vector["stock"]
    assert out == {k: vector[k] for k in ("tableau", "waste", "stock")} | {"deal": flat}


def test_js_tripeaks_library_call_accepts_number_bigint_and_string_seeds() -> None:
    out = run_js(
        """
        const a = m.dealTriPeaks(9007199254740991);
        const b = m.dealTriPeaks(9007199254740991n, { emptyWaste: false });
        const c = m.dealTriPeaks("9007199254740991", { empty_waste: true });
        const d = m.dealTriPeaks(0, {});
        console.log(JSON.stringify([a, b, c, d]));
        """
    )
    plain, empty = tripeaks_spec(MAX_SEED), tripeaks_spec(MAX_SEED, empty_waste=True)
    assert out == [plain, plain, empty, tripeaks_spec(0)]


def tripeaks_seed_list() -> list[int]:
    rnd = random.Random(0x7219EA5)
    seeds = list(range(0, 40)) + [MAX_SEED - k for k in range(40)]
    seeds += [(1 << 32) + k for k in range(-4, 5)] + [(1 << 31) + k for k in (-1, 0, 1)]
    seeds += [(1 << 52) + k for k in (-1, 0, 1)]
    seeds += [rnd.randrange(MAX_SEED + 1) for _ in range(200)]
    seeds += [rnd.randrange(1 << 32) for _ in range(50)]
    return seeds


def test_js_batch_deals_tripeaks_like_python_for_many_seeds() -> None:
    seeds = tripeaks_seed_list()
    cases = tripeaks_cases(seeds)
    # Three Towers cases mixed into the same batch still deal as before.
    cases.insert(3, {"params": VECTORS[0]["params"], "seed": VECTORS[0]["seed"]})
    got = run_batch(cases)
    assert got.pop(3) == VECTORS[0]["deal"]
    expected = [tripeaks_spec(c["seed"], c["empty_waste"]) for c in tripeaks_cases(seeds)]
    assert len(got) == len(expected)
    for case, out, want in zip(tripeaks_cases(seeds), got, expected, strict=True):
        assert out == want, case


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, MAX_SEED), min_size=1, max_size=40), st.booleans())
def test_js_tripeaks_deals_like_python_for_any_seeds(seeds: list[int], empty: bool) -> None:
    cases = [{"game": TRIPEAKS, "seed": s, "emptyWaste": empty} for s in seeds]
    assert run_batch(cases) == [tripeaks_spec(s, empty) for s in seeds]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([TRIPEAKS, str(MAX_SEED + 1)], "seed"),
        ([TRIPEAKS, "-1"], "seed"),
        ([TRIPEAKS, "1.5"], "seed"),
        ([TRIPEAKS], "seed"),
        ([TRIPEAKS, "1", "2"], "seed"),
        (["tri-peaks", "1"], "unknown game"),
        (["three-towers", "{}"], "three-towers"),
    ],
)
def test_js_cli_rejects_bad_tripeaks_input(args: list[str], message: str) -> None:
    done = run_node([str(JS_MODULE), *args])
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


def test_js_cli_names_three_towers_explicitly() -> None:
    params = {"level": 6, "variant": {"kind": "ivory", "suit": "knots"}}
    done = run_node([str(JS_MODULE), "three-towers", json.dumps(params), "1234"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == codes(ThreeTowers.ivory("knots", level=6), 1234)


def test_js_batch_rejects_unknown_games_and_bad_options() -> None:
    for case in ({"game": "poker", "seed": 1}, {"game": TRIPEAKS, "seed": 1, "empty_waste": "yes"}):
        done = run_node([str(JS_MODULE), "--batch"], stdin=json.dumps([case]))
        assert done.returncode == 2, case
        assert done.stdout == ""
