"""The command line: games played through piped input, the listing commands, deals and records.

Inputs are computed from the library (a winning line is searched for, illegal moves are found by
asking the rules), never hard-coded against a deal.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from skillcheck import (
    DECKTET,
    IllegalMoveError,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
    __version__,
    card,
)
from skillcheck.cli import main, read_command
from skillcheck.records import GameRecord, verify
from skillcheck.sessions import SessionService

QUOTA_ARGS = ["--suit", "moons", "--skill", "3", "--quota", "3", "--level", "5"]
QUOTA_GAME = ThreeTowers.from_options(suit="moons", skill=3, quota=3, level=5)


#: A fixed terminal size, so that rich wraps the same way whatever runs the tests.
TERMINAL = {"COLUMNS": "100", "LINES": "40"}


def run(args: Sequence[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, env=TERMINAL)


def flat(text: str) -> str:
    """The text with every run of whitespace made one space, and panel borders dropped (rich
    wraps long lines, inside panels too)."""
    return " ".join(text.replace("│", " ").split())


def lines(*entries: str) -> str:
    return "".join(f"{e}\n" for e in entries)


def shortest_win(game: ThreeTowers, seed: int, max_nodes: int = 50_000) -> list[str] | None:
    """A shortest winning line for the deal of ``seed`` (breadth-first over the library's moves)."""
    start = game.new_state(seed)
    assert isinstance(start, ThreeTowersState)
    queue: deque[tuple[ThreeTowersState, list[str]]] = deque([(start, [])])

    def key(state: ThreeTowersState) -> tuple[object, ...]:
        # Tower spaces are interchangeable: positions that differ only in their order are one.
        towers = sorted("".join(c.code for c in t) for t in state.towers)
        return (*towers, state.remaining_deck)

    seen = {key(start)}
    while queue and len(seen) < max_nodes:
        state, line = queue.popleft()
        for move in list(state.legal_moves):
            child = state.copy()
            assert isinstance(child, ThreeTowersState)
            child.push(move)
            if child.outcome is not None:
                if child.outcome.success:
                    return [*line, move.code]
                continue
            child_key = key(child)
            if child_key not in seen:
                seen.add(child_key)
                queue.append((child, [*line, move.code]))
    return None


def record_of(path: Path) -> GameRecord:
    return GameRecord.load(path)


# ---- play ----------------------------------------------------------------------------------------


def test_version() -> None:
    result = run(["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_concede_plays_a_game_to_the_end(tmp_path: Path) -> None:
    record = tmp_path / "check.json"
    result = run(
        ["play", "three-towers", *QUOTA_ARGS, "--seed", "11", "--record", str(record)],
        input=lines("d1", "c", "y"),
    )
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert QUOTA_GAME.describe() in out
    assert "Concede the check?" in out
    assert "FAILURE" in out and "the player conceded" in out
    assert "Degree of success -3" in out
    assert "Seed 11" in out
    (replay,) = [x for x in result.stdout.splitlines() if x.startswith("Replay ")]
    command = shlex.split(replay.removeprefix("Replay "))
    assert command[:3] == ["skillcheck", "play", "three-towers"] and "11" in command
    # The replay command deals the same check: its first screen is the same.
    again = run(command[1:], input="")
    first_screen = result.stdout.partition("Your move")[0]
    assert again.stdout.partition("Your move")[0] == first_screen
    saved = record_of(record)
    assert saved.moves == ("d1",)
    assert saved.seed == 11
    assert verify(saved).outcome == saved.outcome


def test_concede_can_be_declined_and_quit_concedes() -> None:
    result = run(
        ["play", "three-towers", "--level", "4", "--seed", "3"], input=lines("c", "n", "q", "y")
    )
    assert result.exit_code == 0
    out = flat(result.stdout)
    assert "The check goes on." in out
    assert "FAILURE" in out and "the player conceded" in out


def test_a_quota_check_won_through_piped_moves(tmp_path: Path) -> None:
    seed, line = next(
        (s, found) for s in range(50) if (found := shortest_win(QUOTA_GAME, s)) is not None
    )
    expected = QUOTA_GAME.new_state(seed)
    for code in line:
        expected.push_code(code)
    assert expected.outcome is not None and expected.outcome.success
    record = tmp_path / "win.json"
    result = run(
        ["play", "three-towers", *QUOTA_ARGS, "--seed", str(seed), "--record", str(record)],
        input=lines(*line),
    )
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert "SUCCESS" in out
    assert expected.outcome.summary in out
    assert f"Degree of success +{expected.outcome.degree}" in out
    saved = record_of(record)
    assert list(saved.moves) == line
    assert saved.outcome == expected.outcome
    # The same line typed as move numbers plays the same game.
    numbers = []
    state = QUOTA_GAME.new_state(seed)
    for code in line:
        numbers.append(str([m.code for m in state.legal_moves].index(code) + 1))
        state.push_code(code)
    again = run(["play", "three-towers", *QUOTA_ARGS, "--seed", str(seed)], input=lines(*numbers))
    assert "SUCCESS" in again.stdout and expected.outcome.summary in flat(again.stdout)


def test_undo_restores_the_position(tmp_path: Path) -> None:
    record = tmp_path / "undo.json"
    result = run(
        ["play", "three-towers", "--level", "5", "--seed", "8", "--undo", "full", "--record",
         str(record)],
        input=lines("d1", "u", "d2", "q", "y"),
    )
    assert result.exit_code == 0, result.output
    assert "Took back d1" in result.stdout
    # The record keeps the whole history, take-backs included, so a GM can see undo was used.
    assert record_of(record).moves == ("d1", "undo", "d2")
    assert record_of(record).replay().moves_made == 1
    # Move 1 is shown twice (before d1 and after the undo), then move 2 after d2.
    assert re.findall(r"move (\d+)", result.stdout) == ["1", "2", "1", "2"]


def test_undo_with_nothing_to_undo_is_reported() -> None:
    result = run(["play", "three-towers", "--level", "4", "--seed", "1"], input=lines("u"))
    assert "nothing to undo" in flat(result.stdout)


def test_no_undo_refuses_undo(tmp_path: Path) -> None:
    record = tmp_path / "strict.json"
    result = run(
        [
            "play",
            "three-towers",
            "--level",
            "5",
            "--seed",
            "8",
            "--undo",
            "off",
            "--record",
            str(record),
        ],
        input=lines("d1", "u"),
    )
    assert result.exit_code == 0
    assert "undo is switched off for this check" in flat(result.stdout)
    assert "Undo is off" in result.stdout
    assert record_of(record).moves == ("d1",)
    assert record_of(record).params["undo"] == "off"
    assert "--undo off" in result.stdout


def _refusal_of_second_d1(game: ThreeTowers, seed: int) -> str | None:
    """The library's message refusing a second ``d1`` after ``d1``, or None if it is legal."""
    state = game.new_state(seed)
    state.push_code("d1")
    try:
        state.copy().push_code("d1")
    except IllegalMoveError as exc:
        return exc.message
    return None


def test_illegal_move_prints_the_rule_and_changes_nothing(tmp_path: Path) -> None:
    game = ThreeTowers(level=9)
    seed, message = next(
        (s, found) for s in range(100) if (found := _refusal_of_second_d1(game, s)) is not None
    )
    record = tmp_path / "illegal.json"
    result = run(
        ["play", "three-towers", "--seed", str(seed), "--record", str(record)],
        input=lines("d1", "d1", "q", "y"),
    )
    assert result.exit_code == 0
    out = flat(result.stdout)
    assert message in out
    assert "cannot go on" in message
    # The position after the refused move is the same: move 2 is shown again, never move 3.
    assert re.findall(r"move (\d+)", result.stdout) == ["1", "2", "2"]
    assert record_of(record).moves == ("d1",)


def test_unreadable_move_and_move_number_out_of_range() -> None:
    result = run(["play", "three-towers", "--level", "4", "--seed", "2"], input=lines("xyz", "40"))
    out = flat(result.stdout)
    assert 'cannot read move "xyz"' in out
    assert "there is no move 40" in out


def test_help_shows_rules_and_commands() -> None:
    result = run(["play", "three-towers", *QUOTA_ARGS, "--seed", "1"], input=lines("h"))
    out = flat(result.stdout)
    assert "tower made only of moons cards" in out
    assert "concede the check" in out


@pytest.mark.parametrize("columns", ["60", "80"])
def test_a_long_help_line_wraps_under_its_own_meaning(columns: str) -> None:
    """The keys' meanings wrap in their own column: no line of the help's list starts back at
    the panel's edge (the finish line was hand-wrapped for one width and broke at others)."""
    result = CliRunner().invoke(
        main, ["play", "three-towers", "--seed", "3"], input=lines("h"),
        env={**TERMINAL, "COLUMNS": columns},
    )  # fmt: skip
    text = result.stdout
    listing = text[text.index("At the prompt, type:") : text.index("End of input (Ctrl-D)")]
    rows = [line.strip("│").rstrip() for line in listing.splitlines()[1:]]
    rows = [row for row in rows if row]  # (the last is the start of the "End of input" line)
    assert rows and all(row.startswith("   ") for row in rows), rows
    assert "once every card is seen and the win is sure" in flat(text)


def test_end_of_input_quits_without_a_traceback() -> None:
    result = run(["play", "three-towers", "--seed", "5"], input="")
    assert result.exit_code == 0
    assert result.exception is None
    assert "End of input" in result.stdout
    assert "FAILURE" in result.stdout


def test_the_move_list_is_numbered_with_codes_in_words() -> None:
    game = ThreeTowers(level=9)
    state = game.new_state(4)
    top = state.observation().top_card
    assert top is not None
    result = run(["play", "three-towers", "--seed", "4"], input="")
    assert f"1. d1 {top.label} from the deck onto empty tower 1" in flat(result.stdout)


def test_hidden_deck_order_never_shown_before_the_end() -> None:
    game = ThreeTowers(level=9)
    seed = 2024
    state = game.new_state(seed)
    assert isinstance(state, ThreeTowersState)
    states = [state.copy()]
    moves: list[str] = []
    while not state.is_terminal() and len(moves) < 14:
        legal = list(state.legal_moves)
        onto_cards = [m for m in legal if m.source == 0 and state.towers[m.target - 1]]
        deck_moves = [m for m in legal if m.source == 0]
        move = (onto_cards or deck_moves or legal)[0]
        state.push(move)
        moves.append(move.code)
        states.append(state.copy())
    result = run(["play", "three-towers", "--seed", str(seed)], input=lines(*moves, "h", "zz"))
    assert result.exit_code == 0
    during, _, _ = result.stdout.partition("the check is over")
    parts = re.split(r"Three Towers · move (\d+)", during)
    turns = list(zip(parts[1::2], parts[2::2], strict=True))
    assert len(turns) >= len(moves)
    for number, text in turns:
        shown = states[int(number) - 1]
        assert isinstance(shown, ThreeTowersState)
        assert shown.top_card is not None and shown.top_card.short_name in text
        visible = {c for tower in shown.towers for c in tower} | {shown.top_card}
        hidden = [c for c in shown.remaining_deck[1:] if c not in visible]
        assert hidden
        for hidden_card in hidden:
            assert hidden_card.short_name not in text, (number, hidden_card)
        assert f"{shown.cards_left - 1} more cards face down" in text


def test_ambiguous_number_and_code() -> None:
    game = ThreeTowers(level=9)
    state = game.state_from_code("8MS/9MS/7WY/-/- 6MW 0")
    moves = list(state.legal_moves)
    code_12 = TowerMove(1, 2)
    assert len(moves) >= 12 and state.is_legal(code_12) and moves[11] != code_12
    ambiguous = read_command("12", game, state, moves)
    assert ambiguous.action == "error" and "ambiguous" in (ambiguous.error or "")
    assert read_command("#12", game, state, moves).move == moves[11]
    assert read_command("1-2", game, state, moves).move == code_12
    assert read_command("3", game, state, moves).move == moves[2]
    assert read_command("d4", game, state, moves).move == TowerMove(0, 4)
    assert read_command("U", game, state, moves).action == "undo"
    assert read_command("  ", game, state, moves).action == "none"


# ---- parameters ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["play", "deal"])
def test_quota_larger_than_skill_exits_2(command: str) -> None:
    result = run([command, "three-towers", "--suit", "moons", "--skill", "4", "--quota", "6"])
    assert result.exit_code == 2
    assert "quota 6 is larger than skill 4" in result.stderr
    assert "Traceback" not in result.output


def test_unknown_suit_lists_the_suits() -> None:
    result = run(["play", "three-towers", "--suit", "stars", "--skill", "3", "--quota", "2"])
    assert result.exit_code == 2
    assert 'unknown suit "stars"' in result.stderr
    assert "moons, suns, waves, leaves, wyrms, knots" in result.stderr


def test_unknown_game_lists_the_games() -> None:
    result = run(["play", "tri-peak"])
    assert result.exit_code == 2
    assert 'unknown game "tri-peak"' in result.stderr and "three-towers" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--level", "12"], "level must be from 2 to 9"),
        (["--spaces", "2"], "spaces must be from 3 to 8"),
        (["--quota", "3"], "need a suit"),
        (["--suit", "moons", "--quota", "2"], "skill is missing"),
        (["--seed", "-1"], "a seed is a whole number"),
        (["--move-limit", "0"], "--move-limit must be from 1"),
        (["--suit", "moons", "--cards", "Author,Pact", "--level", "6", "--quota", "1"],
         "--suited-cards must be 2 different cards of Moons"),
        (["--suit", "moons", "--skill", "1", "--cards", "Author,Pact", "--quota", "1"],
         "--suited-cards must be 1 card of Moons"),
    ],
)  # fmt: skip
def test_bad_parameters_exit_2(args: list[str], message: str) -> None:
    result = run(["play", "three-towers", *args], input="")
    assert result.exit_code == 2
    assert message in result.stderr


@pytest.mark.parametrize("command", ["play", "deal", "autoplay", "solve", "odds"])
@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("ZZZ", '--suited-cards: unknown card "ZZZ": give a card name'),
        ("Author Forst", '--suited-cards: unknown card "Forst"'),
        ("", "--suited-cards is empty: give cards (The Decktet) by name or code"),
        ("  ", "--suited-cards is empty"),
        ("5ML,,7ML", '--suited-cards "5ML,,7ML" has an empty item between commas'),
        ("5ML,", '--suited-cards "5ML," has an empty item between commas'),
    ],
)
def test_bad_cards_name_the_option_and_exit_2(command: str, cards: str, message: str) -> None:
    """Every command that takes a game's cards says which option holds the bad card, with no
    traceback; an empty item is refused, not dropped (the GM typed a card there)."""
    args = [command, "three-towers", "--suit", "moons", "--suited-cards", cards, "--quota", "2"]
    result = run(args, input="")
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert isinstance(result.exception, SystemExit)  # a message, not an uncaught error


@pytest.mark.parametrize("command", ["deal", "odds"])
def test_bad_cards_name_the_alias_that_was_typed(command: str) -> None:
    """A value given as ``--cards`` is blamed on ``--cards``, not on the name it stands for; the
    two given together are refused, not one silently dropped."""
    base = [command, "three-towers", "--suit", "moons", "--quota", "2"]
    result = run([*base, "--cards", ""], input="")
    assert result.exit_code == 2, result.output
    assert "--cards is empty: give cards" in result.stderr
    assert "--suited-cards" not in result.stderr
    result = run([*base, "--cards", "Author", "--suited-cards", "Forest"], input="")
    assert result.exit_code == 2, result.output
    assert "--suited-cards and --cards name the same parameter: give one" in result.stderr


def test_gm_cards_build_the_deck() -> None:
    args = ["--suit", "moons", "--cards", "Author,Forest", "--quota", "2", "--level", "5"]
    result = run(["deal", "three-towers", *args, "--seed", "9", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    moons = {c for c in data["deal"] if "M" in c}
    assert moons == {"2MK", "5ML"}
    assert data["params"]["variant"]["suited_cards"] == ["2MK", "5ML"]


# ---- deck, deal, games ---------------------------------------------------------------------------


def test_deck_json() -> None:
    # The deck's table, as GET /v1/decks/{deck} serves it (the Decktet is the default deck).
    result = run(["deck", "--json"])
    assert result.exit_code == 0
    table = json.loads(result.stdout)
    assert table == json.loads(run(["deck", "decktet", "--json"]).stdout)
    assert table["deck"] == "decktet"
    suits = {s["letter"]: s["name"] for s in table["suits"]}
    cards = table["cards"]
    assert len(cards) == 45
    by_name = {c["name"]: c for c in cards}
    assert by_name["the Author"]["value"] == 2
    assert [suits[s] for s in by_name["the Author"]["suits"]] == ["Moons", "Knots"]
    assert by_name["the Author"]["code"] == "2MK"
    assert by_name["the Huntress"]["value"] == 10
    assert by_name["the Harvest"]["rank"] == "Pawn"
    assert by_name["the Consul"]["rank"] == "Court"
    assert by_name["the Ace of Moons"]["value"] == 1
    assert by_name["the Excuse"]["rank"] is None
    assert [c["code"] for c in cards] == [c.code for c in DECKTET]


def test_deck_table() -> None:
    result = run(["deck"])
    assert result.exit_code == 0
    for name in ("the Author", "the Huntress", "the Excuse", "the Chance Meeting"):
        assert name in result.stdout


def test_unknown_deck_lists_the_decks() -> None:
    result = run(["deck", "tarot"])
    assert result.exit_code == 2
    assert 'unknown deck "tarot"' in result.stderr and "decktet" in result.stderr


def test_deal_with_a_seed_is_stable_and_matches_the_library() -> None:
    args = ["deal", "three-towers", "--level", "7", "--seed", "31337"]
    first, second = run(args), run(args)
    assert first.exit_code == 0
    assert first.stdout == second.stdout
    expected = ThreeTowers(level=7).deal(31337)
    assert ", ".join(c.name for c in expected) in first.stdout
    data = json.loads(run([*args, "--json"]).stdout)
    assert data["game"] == "three-towers"
    assert data["seed"] == 31337
    assert data["deal"] == [c.code for c in expected]
    assert data["names"] == [c.name for c in expected]
    assert data["params"]["level"] == 7
    # The names line reads back as the same deal.
    assert tuple(card(n) for n in data["names"]) == expected


def test_quota_deal_json_matches_the_library() -> None:
    result = run(["deal", "three-towers", *QUOTA_ARGS, "--seed", "77", "--json"])
    assert json.loads(result.stdout)["deal"] == [c.code for c in QUOTA_GAME.deal(77)]


def test_deal_without_a_seed_prints_the_drawn_seed() -> None:
    result = run(["deal", "three-towers", "--level", "4"])
    assert result.exit_code == 0
    match = re.search(r"seed (\d+) \(drawn at random\)", result.stdout)
    assert match is not None
    expected = ThreeTowers(level=4).deal(int(match.group(1)))
    assert ", ".join(c.name for c in expected) in result.stdout


def test_games_lists_the_registry() -> None:
    result = run(["games"])
    assert result.exit_code == 0
    for word in ("three-towers", "level", "--move-limit", "2..9", "moons"):
        assert word in result.stdout
    data = json.loads(run(["games", "--json"]).stdout)
    (tt,) = [g for g in data if g["name"] == "three-towers"]
    params = {p["name"]: p for p in tt["parameters"]}
    assert params["level"]["default"] == 9 and params["level"]["maximum"] == 9
    # Options are named after the parameters; a game's single cards parameter also takes --cards.
    assert params["suited_cards"]["option"] == "--suited-cards"
    assert params["suited_cards"]["options"] == ["--suited-cards", "--cards"]
    assert params["undo"]["options"] == ["--undo"]


# ---- verify --------------------------------------------------------------------------------------


@pytest.fixture
def won_record(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    seed, line = next(
        (s, found) for s in range(50) if (found := shortest_win(QUOTA_GAME, s)) is not None
    )
    state = QUOTA_GAME.new_state(seed)
    for code in line:
        state.push_code(code)
    path = tmp_path / "record.json"
    path.write_text(state.record().to_json(), encoding="utf-8")
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_verify_accepts_a_good_record(won_record: tuple[Path, dict[str, Any]]) -> None:
    path, data = won_record
    result = run(["verify", str(path)])
    assert result.exit_code == 0
    tier = data["tier"].replace("_", " ")
    assert flat(result.stdout) == f"OK: {data['outcome']['summary']} ({tier})"
    from_stdin = run(["verify", "-"], input=path.read_text(encoding="utf-8"))
    assert from_stdin.exit_code == 0 and from_stdin.stdout.startswith("OK:")


def test_verify_rejects_a_changed_outcome(
    won_record: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    _, data = won_record
    data["outcome"]["degree"] += 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data), encoding="utf-8")
    result = run(["verify", str(tampered)])
    assert result.exit_code == 1
    assert "the record claims" in result.stderr


def test_verify_rejects_a_changed_move(
    won_record: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    _, data = won_record
    data["moves"] = data["moves"][:-1]  # the winning move removed: the check did not end
    tampered = tmp_path / "short.json"
    tampered.write_text(json.dumps(data), encoding="utf-8")
    result = run(["verify", str(tampered)])
    assert result.exit_code == 1
    assert "still in progress" in result.stderr
    data["moves"][0] = "99"
    result = run(["verify", "-"], input=json.dumps(data))
    assert result.exit_code == 1
    assert "move 1 (99) cannot be replayed" in flat(result.stderr)


def test_verify_rejects_garbage() -> None:
    result = run(["verify", "-"], input="not json")
    assert result.exit_code == 1
    assert "not valid JSON" in result.stderr


def test_verify_names_the_json_that_is_no_record_in_json_words() -> None:
    result = run(["verify", "-"], input="[1, 2]")
    assert result.exit_code == 1
    assert "a game record is a JSON object, not an array" in result.stderr


def test_verify_refuses_a_file_that_is_not_text_in_words(tmp_path: Path) -> None:
    binary = tmp_path / "record.json"
    binary.write_bytes(b"\xff\xfe{}")
    result = run(["verify", str(binary)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "is not a JSON record: it is not UTF-8 text" in result.stderr


@pytest.mark.parametrize(("moves", "reason"), [(1, "the ogre kicked the table"), (0, None)])
def test_verify_says_a_cancelled_check_was_cancelled(
    tmp_path: Path, moves: int, reason: str | None
) -> None:
    """A check the GM called off verifies (its deal was the committed one) and is said to be
    cancelled, with the GM's reason, not "in progress"."""
    service = SessionService()
    created = service.create(ThreeTowers.quota_check("moons", skill=4, quota=2), seed=3)
    for _ in range(moves):
        service.move(created.check_id, service.view(created.check_id).legal_moves[0])
    service.cancel(created.check_id, reason)
    path = tmp_path / "revealed.json"
    path.write_text(service.record(created.check_id).to_json(), encoding="utf-8")
    result = run(["verify", str(path)])
    assert result.exit_code == 0, result.output
    said = f"cancelled by the GM after {moves} move{'s' if moves != 1 else ''}"
    assert said + (f" ({reason})" if reason else "\n") in result.stdout
    assert "in progress" not in result.stdout


# ---- the installed console script ----------------------------------------------------------------


def test_installed_console_script_plays_through_a_pipe() -> None:
    script = shutil.which("skillcheck")
    assert script is not None, "the console script is missing: run pip install -e ."
    done = subprocess.run(
        [script, "play", "three-towers", *QUOTA_ARGS, "--seed", "3"],
        input="d1\nq\ny\n",
        capture_output=True,
        text=True,
        env={**os.environ, **TERMINAL},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "FAILURE" in done.stdout and "Seed 3" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["odds", "hanoy", "--deals", "3", "--csv", "{missing}/x.csv"], "there is no folder"),
        (["odds", "hanoy", "--deals", "3", "--json", "{missing}/x.json"], "there is no folder"),
        (["odds", "hanoy", "--deals", "3", "--png", "{missing}/x.png"], "there is no folder"),
        (["odds", "hanoy", "--deals", "3", "--json", "{folder}"], "is a folder: give a file name"),
        (["autoplay", "tripeaks", "--seed", "1", "--record", "{missing}/x.json"],
         "there is no folder"),
        (["play", "hanoy", "--seed", "1", "--record", "{missing}/x.json"], "there is no folder"),
    ],
)  # fmt: skip
def test_an_output_file_that_cannot_be_written_is_refused_before_the_work(
    tmp_path: Path, args: list[str], said: str
) -> None:
    """A table or a game that took minutes is not lost to a mistyped folder at the end: the
    file is checked first, and the refusal names the option and the folder (exit 2)."""
    missing = tmp_path / "no-such-folder"
    given = [a.format(missing=missing, folder=tmp_path) for a in args]
    result = run(given, input="")
    assert result.exit_code == 2, result.output
    assert said in result.stderr and "Invalid value for '--" in result.stderr
    assert isinstance(result.exception, SystemExit)
    assert not missing.exists()


def test_a_range_written_backwards_says_so() -> None:
    result = run(["odds", "three-towers", "--level", "9..6"])
    assert result.exit_code == 2
    assert 'level "9..6" runs backwards: write the smaller end first (6..9)' in result.stderr


def test_solve_refuses_a_time_budget_that_is_not_positive() -> None:
    result = run(["solve", "hanoy", "--seed", "1", "--max-seconds", "-1"])
    assert result.exit_code == 2 and "--max-seconds" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "three-towers", "--seed", "1", "--max-states", "-5"],
        ["solve", "three-towers", "--seed", "1", "--max-states", "0"],
        ["odds", "hanoy", "--deals", "2", "--workers", "1", "--solver-states", "0"],
    ],
)
def test_a_position_budget_must_be_positive(args: list[str]) -> None:
    """A budget of no positions used to be taken and answered "unknown" (or every deal lost)."""
    result = run(args)
    assert result.exit_code == 2
    assert "is not in the range x>=1" in result.stderr and args[-2] in result.stderr


def test_odds_names_the_listed_value_that_leaves_no_cell() -> None:
    """--rules basic,tritowers with a target: basic can hold no target, and the refusal said
    only "a target score needs the TriTowers rules", not which listed value was at fault."""
    result = CliRunner().invoke(
        main, ["odds", "tripeaks", "--rules", "basic,tritowers", "--target", "60"]
    )
    assert result.exit_code == 2
    said = flat(result.output)
    assert 'rules "basic" leaves no cell of the table' in said and "TriTowers" in said, said
