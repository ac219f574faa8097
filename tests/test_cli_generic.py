"""The command line over every registered game: each game's examples through every command.

The options come from each game's parameters, so these tests name no game: they loop over the
registry (:data:`skillcheck.engine.GAMES`) and each game's ``examples()``. A tiny game defined
here (registered only while a test runs) checks what the registry's games may not exercise: the
generic terminal front end, a game without a solver, the ``--cards`` alias, a game's own
commands and the front-end hook.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import click
import pytest
from attrs import field, frozen
from click.testing import CliRunner, Result
from rich.text import Text

from skillcheck.board import Board, Meter, MoveView, Zone
from skillcheck.cards import deck_named
from skillcheck.cards.standard import PlayingCard
from skillcheck.cli import main
from skillcheck.cli.options import build_game, example_options, game_options, to_flags
from skillcheck.engine import (
    GAMES,
    EndReason,
    Game,
    Move,
    Observation,
    Outcome,
    ParameterSpec,
    State,
    Status,
    Tiers,
    int_in_range,
    is_bool,
)
from skillcheck.errors import ParameterError, ParseError
from skillcheck.records import GameRecord, verify
from skillcheck.rng import Pcg32
from skillcheck.serialization import game_from_params, game_params
from skillcheck.terminal import Frontend, frontend_for

TERMINAL = {"COLUMNS": "100", "LINES": "40"}
SEED = 5
#: Moves a scripted session plays by itself before it concedes (when no winning line is known).
SCRIPTED_MOVES = 30


def run(args: Sequence[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, env=TERMINAL)


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


CASES = [
    pytest.param(name, index, id=f"{name}-{index}")
    for name, cls in GAMES.items()
    for index in range(len(cls.examples()))
]


def example(name: str, index: int) -> tuple[Game[Any], list[str]]:
    """The example's game and the command-line options that build it."""
    cls = GAMES[name]
    params = cls.examples()[index]
    game = game_from_params(name, json.loads(json.dumps(params)))
    options = example_options(cls, params)
    assert options is not None, f"{name} example {index} cannot be written as options"
    assert build_game(cls, options) == game
    return game, to_flags(game_options(cls), options)


def parse_deal(game: Game[Any], codes: Sequence[str]) -> State[Any]:
    return game.state_from_deal(deck_named(game.deck_name).parse_all(codes))


# ---- every registered game -----------------------------------------------------------------------


def test_games_json_lists_every_game_with_its_options_and_examples() -> None:
    result = run(["games", "--json"])
    assert result.exit_code == 0, result.output
    listed = {g["name"]: g for g in json.loads(result.stdout)}
    assert list(listed) == list(GAMES)
    for name, cls in GAMES.items():
        entry = listed[name]
        assert entry["title"] == cls.title and entry["deck"] == cls.deck_name
        assert [p["name"] for p in entry["parameters"]] == [s.name for s in cls.parameters()]
        names = [n for p in entry["parameters"] for n in p["options"]]
        assert len(names) == len(set(names)), names
        assert len(entry["examples"]) == len(cls.examples())
        assert all(e["options"] is not None for e in entry["examples"])
        assert "random" in entry["bots"]
    text = run(["games"])
    assert text.exit_code == 0
    for name in GAMES:
        assert name in text.stdout


@pytest.mark.parametrize("command", ["play", "deal", "solve", "autoplay", "odds"])
def test_help_of_each_game_shows_its_options(command: str) -> None:
    for name, cls in GAMES.items():
        result = run([command, name, "--help"])
        assert result.exit_code == 0, result.output
        out = flat(result.stdout)
        for spec in cls.parameters():
            assert "--" + spec.name.replace("_", "-") in out
            if spec.kind == "int" and spec.minimum is not None and spec.maximum is not None:
                assert f"{spec.minimum}..{spec.maximum}" in out
            for choice in spec.choices or ():
                assert choice in out
        assert f"skillcheck {command} {name}" in out  # an example from the game's examples
    listing = run([command, "--help"])
    assert listing.exit_code == 0
    for name in GAMES:
        assert name in listing.stdout


@pytest.mark.parametrize(("name", "index"), CASES)
def test_deal_json_replays(name: str, index: int) -> None:
    game, flags = example(name, index)
    result = run(["deal", name, *flags, "--seed", str(SEED), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["deal"] == [c.code for c in game.deal(SEED)]
    assert data["params"] == game_params(game) and data["seed"] == SEED
    assert data["deal_order"] == game.deal_order
    assert len(data["names"]) == len(data["deal"])
    state = parse_deal(game, data["deal"])
    assert state.code() == game.new_state(SEED).code()
    human = run(["deal", name, *flags, "--seed", str(SEED)])
    assert human.exit_code == 0 and game.describe() in human.stdout


@pytest.mark.parametrize(("name", "index"), CASES)
def test_the_printed_names_line_pastes_into_solve(name: str, index: int) -> None:
    """`deal` says its names line "can be pasted wherever cards are read": `solve --deal` reads
    it back as the same deal (it used to split "2 of Spades" into three words)."""
    game, flags = example(name, index)
    human = run(["deal", name, *flags, "--seed", str(SEED)])
    assert human.exit_code == 0, human.output
    names = human.stdout.strip().splitlines()[-1]
    result = run(["solve", name, *flags, "--deal", names, "--json", "--max-states", "1"])
    if game.solver() is None:
        assert "has no solver" in result.stderr
        return
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deal"] == [c.code for c in game.deal(SEED)]


def _replays_to_a_win(game: Game[Any], deal: Sequence[str], codes: Sequence[str]) -> bool:
    state = parse_deal(game, deal)
    for code in codes:
        state.push_code(code)
    return state.outcome is not None and state.outcome.success


@pytest.mark.parametrize(("name", "index"), CASES)
def test_solve_by_seed(name: str, index: int) -> None:
    game, flags = example(name, index)
    result = run(["solve", name, *flags, "--seed", str(SEED), "--json", "--max-seconds", "60"])
    if game.solver() is None:
        assert result.exit_code == 2 and "has no solver" in result.stderr
        return
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["result"] in ("win", "loss", "unknown")
    assert data["deal"] == [c.code for c in game.deal(SEED)]
    moves = [game.parse_move(code) for code in data["codes"]]
    assert data["moves"] == [game.move_json(m) for m in moves]
    if data["result"] == "win":
        assert _replays_to_a_win(game, data["deal"], data["codes"])
        if "min_moves" in data:
            assert data["min_moves"] == len(data["codes"])
    human = run(["solve", name, *flags, "--seed", str(SEED), "--max-seconds", "60"])
    assert human.exit_code == 0 and f"Result {data['result'].upper()}" in human.stdout


@pytest.mark.parametrize(("name", "index"), CASES)
def test_autoplay_writes_a_record_that_verifies(name: str, index: int, tmp_path: Path) -> None:
    _, flags = example(name, index)
    record = tmp_path / "npc.json"
    result = run(["autoplay", name, *flags, "--seed", str(SEED), "--record", str(record)])
    assert result.exit_code == 0, result.output
    state = verify(GameRecord.load(record))
    assert state.outcome is not None
    assert ("SUCCESS" if state.outcome.success else "FAILURE") in result.stdout
    assert f"seed {SEED}" in result.stdout
    checked = run(["verify", str(record)])
    assert checked.exit_code == 0 and checked.stdout.startswith("OK:")


def typed(state: State[Any], move: Move) -> str:
    """What to type for ``move``: its code, or ``#N`` (its number in the list) when the code is
    a number too, which the prompt could read either way."""
    if not move.code.isdigit():
        return move.code
    return f"#{list(state.legal_moves).index(move) + 1}"


def scripted_session(game: Game[Any], seed: int) -> tuple[list[str], list[str], State[Any]]:
    """Lines to type for a whole check, the moves they make and the state they end in: the
    solver's winning line when there is one, else the first legal move each turn and then a
    concession."""
    start = game.new_state(seed)
    state = start.copy()
    lines: list[str] = []
    solver = game.solver()
    solution = solver.solve(start, max_states=200_000) if solver is not None else None
    if solution is not None and solution.result == "win":
        # A solver's line may pass a move limit (solvers ignore it): the check ends there.
        for move in solution.moves:
            if state.is_terminal():
                break
            lines.append(typed(state, move))
            state.push(move)
    while not state.is_terminal() and len(lines) < SCRIPTED_MOVES:
        move = next(iter(state.legal_moves))
        lines.append(typed(state, move))
        state.push(move)
    codes = [m.code for m in state.moves]
    if not state.is_terminal():
        state.concede()
        lines += ["c", "y"]
    return lines, codes, state


@pytest.mark.parametrize(("name", "index"), CASES)
def test_play_a_scripted_session_to_the_end(name: str, index: int, tmp_path: Path) -> None:
    game, flags = example(name, index)
    lines, codes, expected = scripted_session(game, SEED)
    record = tmp_path / "check.json"
    result = run(
        ["play", name, *flags, "--seed", str(SEED), "--record", str(record)],
        input="".join(f"{line}\n" for line in ["h", *lines]),
    )
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert expected.outcome is not None
    assert expected.outcome.summary in out
    assert ("SUCCESS" if expected.outcome.success else "FAILURE") in out
    assert f"{game.title} · move 1" in out and "the check is over" in out
    assert "concede the check" in out  # the help was shown
    assert f"Seed {SEED}" in out
    saved = GameRecord.load(record)
    assert saved.outcome == expected.outcome
    assert list(saved.moves) == codes
    checked = run(["verify", str(record)])
    assert checked.exit_code == 0, checked.output
    tier = game.tier(expected.outcome).text.lower()  # graded again from the replay
    assert flat(checked.stdout) == f"OK: {expected.outcome.summary} ({tier})"


@pytest.mark.parametrize(("name", "index"), CASES)
def test_odds_of_two_deals(name: str, index: int) -> None:
    game, flags = example(name, index)
    result = run(["odds", name, *flags, "--deals", "2", "--workers", "1", "--json", "-"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == name and data["deals"] == 2 and data["axes"] == {}
    assert len(data["cells"]) == len(data["methods"]) >= 1
    assert all(c["trials"] == 2 for c in data["cells"])
    table = run(["odds", name, *flags, "--deals", "2", "--workers", "1"])
    assert table.exit_code == 0 and "%" in table.stdout and game.title in table.stdout


def test_unknown_game_is_refused_by_every_command() -> None:
    for command in ("play", "deal", "solve", "autoplay", "odds"):
        result = run([command, "no-such-game"])
        assert result.exit_code == 2
        assert 'unknown game "no-such-game"' in result.stderr
        assert all(name in result.stderr for name in GAMES)


# ---- a tiny game of the test's own ---------------------------------------------------------

TOY_SUITS = ("spades", "hearts")


def _toy_suit(_instance: Any, _attribute: Any, value: Any) -> None:
    if value not in TOY_SUITS:
        raise ParameterError("suit", f"suit {value!r} is not allowed: the suits are spades, hearts")


@frozen
class Pick(Move):
    take: bool

    @property
    def code(self) -> str:
        return "k" if self.take else "s"


@frozen
class PickObservation(Observation):
    top: str | None
    left: int
    kept: tuple[str, ...]
    outcome: Outcome | None

    def legal_moves(self) -> list[Pick]:
        return [] if self.outcome is not None or self.top is None else [Pick(True), Pick(False)]

    def code(self) -> str:
        return f"{self.top or '-'}+{max(self.left - 1, 0)} {''.join(self.kept) or '-'}"


@frozen
class ToyPick(Game[Pick]):
    """Keep ``keep`` of the cards as they come off the deck (k keeps the top card, s skips it)."""

    name: ClassVar[str] = "toy-pick"
    title: ClassVar[str] = "Toy Pick"
    summary: ClassVar[str] = "keep enough cards as they come off a small deck"
    deck_name: ClassVar[str] = "standard"

    length: int = field(default=4, validator=int_in_range("length", 2, 13))
    suit: str = field(default="spades", validator=_toy_suit)
    keep: int = field(default=2, validator=int_in_range("keep", 1, 13))
    favourites: tuple[PlayingCard, ...] | None = None
    undo: bool = field(default=True, validator=is_bool("undo"))
    move_limit: int | None = field(
        default=None, validator=int_in_range("move_limit", 1, 1000, optional=True)
    )

    def __attrs_post_init__(self) -> None:
        if self.keep > self.length:
            raise ParameterError("keep", f"keep {self.keep} is more than the {self.length} cards")

    @classmethod
    def parameters(cls) -> tuple[ParameterSpec, ...]:
        return (
            ParameterSpec("length", "int", 4, "cards in the deck", 2, 13),
            ParameterSpec("suit", "choice", "spades", "the deck's suit", choices=TOY_SUITS),
            ParameterSpec("keep", "int", 2, "cards to keep", 1, 13),
            ParameterSpec(
                "favourites",
                "cards",
                None,
                "the GM's favourite cards",
                optional=True,
                deck="standard",
            ),
            ParameterSpec("undo", "bool", True, "whether moves may be taken back"),
            ParameterSpec("move_limit", "int", None, "moves allowed", 1, 1000, optional=True),
        )

    @classmethod
    def examples(cls) -> tuple[dict[str, Any], ...]:
        return ({"length": 4, "keep": 2}, {"suit": "hearts", "keep": 1, "undo": False})

    def default_tiers(self) -> Tiers:
        # A plug-in written when undo was a switch: it still takes ``undo: bool`` (on is full).
        return Tiers(2, -2)

    @classmethod
    def commands(cls) -> Sequence[Any]:
        @click.command("hello")
        def hello() -> None:
            """Say hello."""
            click.echo("hello from the toy")

        return (hello,)

    def deal(self, seed: int) -> tuple[PlayingCard, ...]:
        cards = [PlayingCard.of(rank, self.suit) for rank in range(1, self.length + 1)]
        Pcg32(seed).shuffle(cards)
        return tuple(cards)

    def state_from_deal(self, deal: Sequence[Any], seed: int | None = None) -> PickState:
        cards = tuple(PlayingCard.parse(c) for c in deal)
        return PickState(self, cards, 0, (), seed=seed, deal=cards)

    def parse_move(self, code: str) -> Pick:
        text = code.strip().lower()
        if text not in ("k", "s"):
            raise ParseError(f"cannot read move {code!r}: k keeps the top card, s skips it")
        return Pick(text == "k")

    def state_from_code(self, code: str) -> PickState:
        deck_text, _, kept_text = code.partition("/")
        deck = tuple(PlayingCard.parse(c) for c in deck_text.split())
        kept = tuple(PlayingCard.parse(c) for c in kept_text.split())
        return PickState(self, deck, 0, kept)

    def goal_text(self) -> str:
        return f"Keep {self.keep} cards as they come off the deck."

    def board(self, observation: PickObservation) -> Board:
        top = () if observation.top is None else (observation.top,)
        n = len(observation.kept)
        return Board(
            (
                Zone("deck", "Deck", "pile", top, observation.left, accepts=False),
                Zone("kept", "Kept", "row", observation.kept, n),
            ),
            (Meter("kept", "Kept", n, self.keep, f"{n} of {self.keep}"),),
            goal=self.goal_text(),
        )

    def move_view(self, observation: PickObservation, move: Pick) -> MoveView:
        what = "keep" if move.take else "skip"
        return MoveView(move.code, "deck", "kept" if move.take else None, f"{what} the top card")


class PickState(State[Pick]):
    game: ToyPick

    def __init__(
        self,
        game: ToyPick,
        deck: tuple[PlayingCard, ...],
        position: int,
        kept: tuple[PlayingCard, ...],
        *,
        seed: int | None = None,
        deal: tuple[PlayingCard, ...] | None = None,
    ) -> None:
        super().__init__(game, seed, deal)
        self._deck, self._position, self._kept = deck, position, kept
        self._outcome = self._evaluate()

    def _move_error(self, move: Pick) -> str | None:
        if not isinstance(move, Pick):
            return f"{move!r} is not a move of this game"
        return "the deck is empty" if self._position >= len(self._deck) else None

    def _apply(self, move: Pick) -> None:
        if move.take:
            self._kept += (self._deck[self._position],)
        self._position += 1

    def _generate_moves(self) -> Iterator[Pick]:
        if self._position < len(self._deck):
            yield Pick(True)
            yield Pick(False)

    def _goal_outcome(self) -> Outcome | None:
        if len(self._kept) < self.game.keep:
            return None
        left = len(self._deck) - self._position
        return Outcome(Status.WON, EndReason.GOAL, left, f"success: kept {len(self._kept)}")

    def _loss_outcome(self, reason: EndReason) -> Outcome:
        n = len(self._kept)
        return Outcome(
            Status.LOST, reason, n - self.game.keep,
            f"failure: {reason.value}; kept {n} of {self.game.keep}",
        )  # fmt: skip

    def _snapshot(self) -> tuple[int, tuple[PlayingCard, ...]]:
        return self._position, self._kept

    def _restore(self, snapshot: tuple[int, tuple[PlayingCard, ...]]) -> None:
        self._position, self._kept = snapshot

    def observation(self) -> PickObservation:
        top = self._deck[self._position].code if self._position < len(self._deck) else None
        return PickObservation(
            top, len(self._deck) - self._position, tuple(c.code for c in self._kept),
            self._outcome,
        )  # fmt: skip

    def hidden_codes(self) -> frozenset[str]:
        return frozenset(c.code for c in self._deck[self._position + 1 :])

    def code(self) -> str:
        deck = " ".join(c.code for c in self._deck[self._position :])
        return f"{deck}/{' '.join(c.code for c in self._kept)}"

    def _copy_position(self) -> PickState:
        return PickState(self.game, self._deck, self._position, self._kept)


@pytest.fixture
def toy() -> Iterator[type[ToyPick]]:
    GAMES[ToyPick.name] = ToyPick
    try:
        yield ToyPick
    finally:
        GAMES.pop(ToyPick.name, None)


def test_a_game_without_a_frontend_is_drawn_from_its_board(
    toy: type[ToyPick], tmp_path: Path
) -> None:
    game = ToyPick()
    state = game.new_state(SEED)
    top = state.observation().top
    assert top is not None
    record = tmp_path / "toy.json"
    result = run(["play", "toy-pick", "--seed", str(SEED), "--record", str(record)],
                 input="h\nx\nk\nu\nk\nk\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert "Toy Pick · move 1" in out
    assert f"{PlayingCard.parse(top).glyph} on top, 3 more cards face down" in out
    assert "Kept □□ 0 of 2" in out and "Goal Keep 2 cards" in out
    assert "1. k keep the top card 2. s skip the top card" in out
    assert "cannot read move 'x'" in out
    assert "k a move code, as the list shows it: keep the top card" in out  # the help
    assert "↶ Took back k keep the top card" in out
    assert "SUCCESS" in out
    never_seen = state.deal[3] if state.deal else None  # the 3rd card was on top at the end
    assert never_seen is not None and "Never seen, in dealing order" in out
    assert out.endswith("skillcheck verify " + str(record))
    saved = GameRecord.load(record)
    assert saved.moves == ("k", "undo", "k", "k")
    assert verify(saved).outcome == saved.outcome


def test_a_game_without_a_solver(toy: type[ToyPick]) -> None:
    result = run(["solve", "toy-pick", "--seed", "1"])
    assert result.exit_code == 2
    assert "Toy Pick has no solver" in result.stderr
    odds = run(["odds", "toy-pick", "--length", "3..4", "--keep", "1,3", "--deals", "2",
                "--workers", "1", "--json", "-"])  # fmt: skip
    assert odds.exit_code == 0, odds.output
    data = json.loads(odds.stdout)
    assert data["methods"] == ["random"]
    assert [c["params"] for c in data["cells"]] == [
        {"length": 3, "keep": 1}, {"length": 3, "keep": 3},
        {"length": 4, "keep": 1}, {"length": 4, "keep": 3},
    ]  # fmt: skip
    bad = run(["odds", "toy-pick", "--keep", "5", "--deals", "1", "--workers", "1"])
    assert bad.exit_code == 2 and "keep 5 is more than the 4 cards" in bad.stderr


def test_options_are_generated_from_the_parameters(toy: type[ToyPick]) -> None:
    help_text = flat(run(["play", "toy-pick", "--help"]).stdout)
    for word in (
        "--length N",
        "2..13",
        "--suit NAME",
        "spades, hearts",
        "--favourites CARDS",
        "--cards CARDS The same as --favourites.",
        "--undo / --no-undo",
        "--move-limit N",
        "skillcheck play toy-pick --suit hearts --keep 1 --no-undo",
    ):
        assert word in help_text, word
    # The single cards parameter takes --cards too, names or codes; the game checks the values.
    for option in ("--favourites", "--cards"):
        result = run(["deal", "toy-pick", option, "AS, king of hearts", "--seed", "1", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["params"]["favourites"] == ["AS", "KH"]
    bad = run(["deal", "toy-pick", "--suit", "clubs"])
    assert bad.exit_code == 2 and "the suits are spades, hearts" in bad.stderr
    replay = run(["play", "toy-pick", "--suit", "hearts", "--no-undo", "--seed", "2"], input="")
    assert "skillcheck play toy-pick --suit hearts --no-undo --seed 2" in replay.stdout
    listed = {g["name"]: g for g in json.loads(run(["games", "--json"]).stdout)}["toy-pick"]
    options = {p["name"]: p["options"] for p in listed["parameters"]}
    assert options["favourites"] == ["--favourites", "--cards"]
    assert options["undo"] == ["--undo", "--no-undo"]
    assert listed["solver"] is False and listed["commands"] == ["hello"]
    assert listed["examples"][1]["options"] == ["--suit", "hearts", "--keep", "1", "--no-undo"]


def test_a_games_own_commands_are_mounted(toy: type[ToyPick]) -> None:
    result = run(["toy-pick", "hello"])
    assert result.exit_code == 0 and result.stdout == "hello from the toy\n"
    assert "toy-pick" in run(["--help"]).stdout


def test_autoplay_with_the_random_bot(toy: type[ToyPick]) -> None:
    result = run(["autoplay", "toy-pick", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert verify(GameRecord.from_json(result.stdout)).outcome is not None
    bad = run(["autoplay", "toy-pick", "--bot", "genius"])
    assert bad.exit_code == 2 and "the bots are random" in bad.stderr


class _Custom(Frontend):
    def render(self, game: Any, observation: Any, moves: Any, compact: bool = False) -> Text:
        return Text("A CUSTOM VIEW")


@frozen
class ToyWithFrontend(ToyPick):
    name: ClassVar[str] = "toy-custom"

    @classmethod
    def terminal_frontend(cls) -> Frontend:
        return _Custom()


def test_the_frontend_hook() -> None:
    assert type(frontend_for(ToyPick)) is Frontend
    assert isinstance(frontend_for(ToyWithFrontend), _Custom)
    GAMES[ToyWithFrontend.name] = ToyWithFrontend
    try:
        result = run(["play", "toy-custom", "--seed", "1"], input="")
    finally:
        GAMES.pop(ToyWithFrontend.name)
    assert result.exit_code == 0 and "A CUSTOM VIEW" in result.stdout
    for cls in GAMES.values():
        assert isinstance(frontend_for(cls), Frontend)


def test_zone_marks_read_as_the_page_shows_them() -> None:
    """The terminal printed Hanoy's lead column as "(lead, progress: 1 of 4)": the page's quiet
    flags (skillcheck.board.QUIET_MARKS) show no words, and a progress mark only its words."""
    result = CliRunner().invoke(main, ["play", "hanoy", "--cards", "4", "--seed", "1"],
                                input="c\ny\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert re.search(r"\(\d of 4\)", result.output), result.output
    assert "lead" not in result.output and "progress:" not in result.output
