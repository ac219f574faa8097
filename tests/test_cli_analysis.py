"""The analysis commands: solve, autoplay, odds, and play --end-when-lost."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from skillcheck import ThreeTowers, TowerMove
from skillcheck.cli import main
from skillcheck.records import GameRecord, verify


def run(args: Sequence[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def _replay(game: ThreeTowers, data: dict[str, Any]) -> bool:
    """Whether the answer's line wins its deal; its moves are the game's ``move_json``."""
    state = game.state_from_deal(data["deal"])
    moves = [game.parse_move(code) for code in data["codes"]]
    assert data["moves"] == [game.move_json(m) for m in moves]
    for move in moves:
        state.push(move)
    return state.outcome is not None and state.outcome.success


def test_solve_a_deal_given_by_names_and_replay_its_certificate() -> None:
    deal = ThreeTowers(level=5).deal(3)
    names = ",".join(c.short_name for c in deal)
    result = run(["solve", "three-towers", "--deal", names, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["result"] == "win"
    assert data["params"]["level"] == 5  # the level follows from the cards dealt
    assert all(isinstance(TowerMove.parse(code), TowerMove) for code in data["codes"])
    # Three Towers writes a move as {"from": "deck" or a tower, "to": a tower}, towers from 1
    first = TowerMove.parse(data["codes"][0])
    assert data["moves"][0] == {"from": "deck", "to": first.target}
    assert all(set(m) == {"from", "to"} for m in data["moves"])
    assert _replay(ThreeTowers(level=5), data)


def test_solve_proves_a_loss_and_accepts_codes_and_the_article() -> None:
    # Three 2s fill three spaces; the 3 that follows has nowhere to go.
    deal = "2MK,the Desert,ORIGIN,Journey,Painter,Savage,Mountain,Sailor,Battle"
    result = run(["solve", "three-towers", "--deal", deal, "--spaces", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"] == "loss"


def test_solve_quota_and_ivory_goals_follow_the_options() -> None:
    game = ThreeTowers.quota_check("moons", 4, 3, level=6)
    deal = game.deal(8)
    codes = ",".join(c.code for c in deal)
    quota = run(["solve", "three-towers", "--deal", codes, "--suit", "moons", "--quota", "3",
                 "--json"])  # fmt: skip
    data = json.loads(quota.stdout)
    assert data["params"]["variant"]["kind"] == "quota"
    assert data["params"]["variant"]["skill"] == 4
    assert data["result"] == "win"
    checked = ThreeTowers.quota_check("moons", 4, 3, level=6, suited_cards=[
        c for c in deal if c.bears(game.variant.suit)  # type: ignore[union-attr]
    ])  # fmt: skip
    assert _replay(checked, data)
    full = ",".join(c.code for c in ThreeTowers(level=4).deal(1))
    ivory = run(["solve", "three-towers", "--deal", full, "--suit", "waves", "--json"])
    assert json.loads(ivory.stdout)["params"]["variant"] == {"kind": "ivory", "suit": "waves"}


def test_solve_by_seed_and_human_output() -> None:
    result = run(["solve", "three-towers", "--level", "4", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "Result WIN" in result.stdout and "winning line" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--deal", "Author,Pact"], "missing"),
        (["--deal", "Author,Bogus"], 'unknown card "Bogus"'),
        (["--deal", "Author", "--quota", "2"], "--quota needs --suit"),
        (["--deal", "Author", "--seed", "3"], "either --deal or --seed"),
        (["--deal", "Author,Desert,Origin", "--suit", "moons", "--quota", "1", "--skill", "2"],
         "--skill 2 does not match the deal: the deal holds 1 card of Moons"),
        (["--deal", "Author,Desert,Origin", "--suit", "moons", "--quota", "1", "--cards", "Pact"],
         "the suited cards given do not match the deal: the deal holds 1 card of Moons (the "
         "Author)"),
    ],
)
def test_solve_bad_input(args: list[str], message: str) -> None:
    result = run(["solve", "three-towers", *args])
    assert result.exit_code == 2
    assert message in result.stderr


def test_autoplay_plays_a_verifiable_check(tmp_path: Path) -> None:
    record = tmp_path / "npc.json"
    result = run(["autoplay", "three-towers", "--suit", "suns", "--skill", "5", "--quota", "3",
                  "--level", "7", "--seed", "4", "--record", str(record)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert ("SUCCESS" in result.stdout) or ("FAILURE" in result.stdout)
    state = verify(GameRecord.load(record))
    assert state.outcome is not None


def test_odds_prints_a_table_and_writes_files(tmp_path: Path) -> None:
    csv_path, json_path, png_path = tmp_path / "o.csv", tmp_path / "o.json", tmp_path / "o.png"
    result = run([
        "odds", "three-towers", "--suit", "moons", "--skill", "2..3", "--quota", "1,3",
        "--level", "5", "--spaces", "4", "--deals", "6", "--workers", "2",
        "--csv", str(csv_path), "--json", str(json_path), "--png", str(png_path),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "perfect" in result.stdout and "fast" in result.stdout and "%" in result.stdout
    assert "playing deals: " in result.stderr and "(100 %, " in result.stderr  # plain progress
    data = json.loads(json_path.read_text())
    cells = {(c["params"]["skill"], c["params"]["quota"]) for c in data["cells"]}
    assert cells == {(2, 1), (3, 1), (3, 3)}  # quota 3 above skill 2 is left out
    assert {c["method"] for c in data["cells"]} == {"perfect", "fast"}
    assert all(c["trials"] == 6 for c in data["cells"])
    assert csv_path.read_text().count("\n") == 1 + len(data["cells"])
    assert png_path.read_bytes()[:4] == b"\x89PNG"
    again = run([
        "odds", "three-towers", "--suit", "moons", "--skill", "2..3", "--quota", "1,3",
        "--level", "5", "--spaces", "4", "--deals", "6", "--workers", "1",
    ])  # fmt: skip
    assert again.stdout == result.stdout  # reproducible with the same seed


def test_odds_plots_a_line_whose_cells_are_all_won(tmp_path: Path) -> None:
    """A cell won in every deal (its interval's high end exactly its rate) plots as a line with
    error bars; it used to end in matplotlib's "'yerr' must not contain negative values"."""
    png = tmp_path / "line.png"
    result = run(["odds", "hanoy", "--cards", "5", "--skill", "2", "--deals", "10",
                  "--bot", "perfect", "--png", str(png)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "100.0 %" in result.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_odds_standard_table_per_level() -> None:
    result = run(["odds", "three-towers", "--level", "3..4", "--spaces", "3", "--deals", "5",
                  "--bot", "perfect", "--workers", "1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "perfect" in result.stdout and "fast" not in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suit", "moons", "--skill", "x"], 'cannot read skill "x"'),
        (["--suit", "moons", "--level", "6..12"], "level must be from 2 to 9"),
        (["--level", "4", "--bot", "perfect", "--bot", "psychic"], 'unknown method "psychic"'),
        (["--level", "4", "--preset", "nope"], 'unknown preset "nope"'),
        (["--suit", "moonz"], 'unknown suit "moonz"'),
    ],
)
def test_odds_bad_input(args: list[str], message: str) -> None:
    result = run(["odds", "three-towers", "--deals", "1", "--workers", "1", *args])
    assert result.exit_code == 2
    assert message in result.stderr


def test_play_can_end_a_check_that_can_no_longer_be_won() -> None:
    # Level 4 with 3 spaces: find a deal whose first three cards are the three 2s (a proven loss).
    game = ThreeTowers(level=4, spaces=3)
    seed = next(s for s in range(2000) if all(c.rank == 2 for c in game.deal(s)[:3]))
    result = run(["play", "three-towers", "--level", "4", "--spaces", "3", "--seed", str(seed),
                  "--end-when-lost"], input="d1\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "No winning line remains" in result.stdout
    assert "FAILURE" in result.stdout


def test_verify_checks_a_revealed_session_record_against_its_commitment(tmp_path: Path) -> None:
    from skillcheck.sessions import SessionService

    service = SessionService()
    created = service.create("three-towers", {"level": 4}, seed=3)
    service.concede(created.check_id)
    good = tmp_path / "revealed.json"
    good.write_text(service.record(created.check_id).to_json())
    result = run(["verify", str(good)])
    assert result.exit_code == 0, result.output
    assert "matches the commitment" in result.stdout
    data = json.loads(good.read_text())
    last = data["salt"][-1]
    data["salt"] = data["salt"][:-1] + ("0" if last != "0" else "1")  # one hex digit changed
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(data))
    result = run(["verify", str(bad)])
    assert result.exit_code == 1
    assert "commitment" in result.stderr
