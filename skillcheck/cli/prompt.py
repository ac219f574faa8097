"""Playing a check at the terminal prompt: any game, drawn by its front end.

While a check is being played, everything shown to the player is built from
``state.observation()`` and the legal moves: never from the hidden cards or the position code.
The seed is shown only once the check is over (the seed determines the deal).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import click
from attrs import frozen
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from skillcheck.engine import Game, Move, State, UndoPolicy
from skillcheck.errors import ParseError, SkillcheckError, quoted
from skillcheck.terminal import Frontend
from skillcheck.words import counted

from .common import fail, outcome_panel

__all__ = ["Command", "play_check", "prompt_help", "read_command"]

#: The solver budget (positions) for proving a live check can no longer be won.
DEAD_CHECK_STATES = 200_000


@frozen
class Command:
    """What the player typed: an action ("move", "undo", "concede", "help", "quit", "none") or
    an error message; ``move`` for "move"."""

    action: str
    move: Any = None
    error: str | None = None


WORDS = {
    "u": "undo",
    "undo": "undo",
    "c": "concede",
    "concede": "concede",
    "h": "help",
    "help": "help",
    "?": "help",
    "f": "finish",
    "finish": "finish",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
}


def _parses(game: Game[Any], text: str) -> Move | None:
    try:
        move: Move = game.parse_move(text)
    except ParseError:
        return None
    return move


def _other_spelling(game: Game[Any], move: Move) -> str | None:
    """Another way to write ``move``'s code that is not a number (``1-2`` for ``12``), if the
    game reads one."""
    code = move.code
    for at in range(1, len(code)):
        for mark in ("-", " "):
            spelled = code[:at] + mark + code[at:]
            if _parses(game, spelled) == move:
                return spelled
    return None


def read_command(text: str, game: Game[Any], state: State[Any], moves: Sequence[Move]) -> Command:
    """Read a line typed at the prompt: a move number, a move code or a command word.

    A line such as ``12`` can be both the 12th move of the list and a move code. If both
    readings are legal and differ, nothing is done and the player is asked to write ``#12`` (the
    numbered move) or the code another way.
    """
    text = text.strip()
    if not text:
        return Command("none")
    word = WORDS.get(text.lower())
    if word is not None:
        return Command(word)
    numbered: Move | None = None
    number_text = text[1:].strip() if text.startswith("#") else text
    if number_text.isdigit():
        number = int(number_text)
        if 1 <= number <= len(moves):
            numbered = moves[number - 1]
        elif text.startswith("#") or _parses(game, text) is None:
            count = len(moves)
            return Command(
                "error",
                error=f"there is no move {number}: the moves are numbered 1 to {count}"
                if count
                else "there is no legal move",
            )
    if text.startswith("#") and numbered is not None:
        return Command("move", numbered)
    try:
        coded = game.parse_move(text)
    except ParseError as exc:
        if numbered is not None:
            return Command("move", numbered)
        return Command("error", error=exc.message)
    if numbered is not None and numbered != coded and state.is_legal(coded):
        spelled = _other_spelling(game, coded)
        other = f", or write the code as {spelled}" if spelled else ""
        return Command(
            "error",
            error=f"{quoted(text)} is ambiguous: it is both move number {text} ({numbered.code}) "
            f"and the move code {coded.code}; type #{text} for the numbered move{other}",
        )
    if numbered is not None and not state.is_legal(coded):
        return Command("move", numbered)
    return Command("move", coded)


def prompt_help(game: Game[Any], frontend: Frontend, state: State[Any]) -> RenderableType:
    """What may be typed at the prompt, with a move code of this position as the example: a
    table, so that a long line wraps under its own meaning at any width."""
    keys = Table.grid(padding=(0, 2))
    keys.add_column(no_wrap=True)
    keys.add_column()
    keys.add_row("1, 2, ...", "a move from the list (#12 when 12 is also a move code)")
    example = next(iter(state.legal_moves), None)
    if example is not None:
        words = frontend.describe_move(game, state.observation(), example).plain
        keys.add_row(example.code, f"a move code, as the list shows it: {words}")
    else:
        keys.add_row("CODE", "a move code, as the list shows it")
    undo_note = {
        UndoPolicy.OFF: " (switched off for this check)",
        UndoPolicy.SAFE: " (only a move that turned up no hidden card)",
    }.get(game.undo_policy, "")
    keys.add_row("u", f"undo the last move{undo_note}")
    if state.finish_offered:
        keys.add_row(
            "f", "finish a won check for you (once every card is seen and the win is sure)"
        )
    keys.add_row("c or q", "concede the check (asks first)")
    keys.add_row("h", "this help")
    return Group(
        Text("At the prompt, type:"),
        Padding(keys, (0, 0, 0, 2)),
        Text("End of input (Ctrl-D) or Ctrl-C concedes at once."),
    )


class _Player:
    """Reads the player's lines; echoes them when stdin is not a terminal (logs read well)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.stdin: TextIO = sys.stdin
        self.interactive = self.stdin.isatty()
        self.interrupted = False

    def ask(self, prompt: Text) -> str | None:
        """A line, or None at the end of input or on Ctrl-C (``interrupted`` tells which)."""
        try:
            line = self.console.input(prompt)
        except (EOFError, KeyboardInterrupt) as exc:
            self.interrupted = isinstance(exc, KeyboardInterrupt)
            self.console.print()
            return None
        if not self.interactive:
            self.console.print(Text(line), highlight=False)
        return line

    def confirm(self, question: str) -> bool:
        answer = self.ask(Text.assemble((question, "bold"), " [y/N] "))
        return answer is None or answer.strip().lower() in ("y", "yes")


def _height(console: Console, renderable: RenderableType) -> int:
    """The number of lines ``renderable`` takes on ``console``."""
    return len(console.render_lines(renderable, console.options, pad=False))


def _move_rule(console: Console, title: str) -> None:
    console.rule(Text(title, style="bold"), style="dim")


def play_check(
    console: Console,
    game: Game[Any],
    frontend: Frontend,
    seed: int,
    replay: list[str],
    record: Path | None,
    end_when_lost: bool = False,
) -> State[Any]:
    """Play one check in the terminal; returns the final state.

    With ``end_when_lost`` (a GM's option) the check ends as soon as the solver proves that the
    true deal leaves no winning line."""
    state = game.new_state(seed)
    player = _Player(console)
    notice: RenderableType | None = Text(
        "Type h for help. Good luck!" if game.undo else "Undo is off. Type h for help.",
        style="dim",
    )
    ended_by: str | None = None
    while not state.is_terminal():
        observation = state.observation()
        moves = list(state.legal_moves)
        finish = state.finishing_line()
        if player.interactive:
            console.clear()
        _move_rule(console, f"{game.title} · move {len(state.moves) + 1}")
        board = frontend.render(game, observation, moves, False)
        if player.interactive and _height(console, board) + 4 > console.height:
            board = frontend.render(game, observation, moves, True)
        console.print(board)
        console.print()
        if notice is not None:
            console.print(notice)
            notice = None
        if finish:
            console.print(
                Text(
                    "Every card is seen and the win is certain: type f to have it played out.",
                    style="green",
                )
            )
        keys = (
            "number or code · "
            + ("f finish · " if finish else "")
            + ("u undo · " if game.undo else "")
            + "c concede · h help"
        )
        line = player.ask(Text.assemble(("Your move", "bold"), f" ({keys}): "))
        if line is None:
            state.concede()
            why = "Interrupted" if player.interrupted else "End of input"
            ended_by = f"{why}: the check is conceded."
            break
        command = read_command(line, game, state, moves)
        if command.action == "none":
            continue
        if command.action == "error":
            notice = Text(f"✗ {command.error}", style="red")
        elif command.action == "help":
            notice = Panel(
                Group(Text(frontend.rules(game) + "\n"), prompt_help(game, frontend, state)),
                title="Help",
                title_align="left",
                border_style="dim",
            )
        elif command.action == "finish":
            if finish:
                for move in finish:
                    state.push(move)
                done = counted(len(finish), "move")
                ended_by = f"Finished for you in {done}: the win was certain."
            else:
                notice = Text(f"✗ {state.finish_refusal()}", style="red")
        elif command.action in ("concede", "quit"):
            if player.confirm("Concede the check? It ends as a failure."):
                state.concede()
                ended_by = "You conceded the check."
            else:
                notice = Text("The check goes on.", style="dim")
        elif command.action == "undo":
            try:
                undone = state.undo()
            except SkillcheckError as exc:
                notice = Text(f"✗ {exc.message}", style="red")
            else:
                # The position is back to where the move was made: describe it from there.
                description = frontend.describe_move(game, state.observation(), undone)
                notice = Text.assemble(("↶ Took back ", "yellow"), f"{undone.code}  ", description)
        else:
            move = command.move
            try:
                state.push(move)
            except SkillcheckError as exc:
                notice = Text(f"✗ {exc.message}", style="red")
            else:
                # Described from the observation before the move, which was legal there.
                description = frontend.describe_move(game, observation, move)
                notice = Text.assemble(("✓ ", "green"), f"{move.code}  ", description)
                if (
                    end_when_lost
                    and not state.is_terminal()
                    and state.end_if_unwinnable(max_states=DEAD_CHECK_STATES)
                ):
                    ended_by = "No winning line remains with the cards left: the check ends."
    if ended_by is not None:
        notice = Text(ended_by, style="dim")
    _show_end(console, player, game, frontend, state, notice, replay, record)
    return state


def _show_end(
    console: Console,
    player: _Player,
    game: Game[Any],
    frontend: Frontend,
    state: State[Any],
    last: RenderableType | None,
    replay: list[str],
    record: Path | None,
) -> None:
    outcome = state.outcome
    assert outcome is not None
    if player.interactive:
        console.clear()
    _move_rule(console, f"{game.title} · the check is over")
    console.print(frontend.render(game, state.observation(), None, False))
    console.print()
    revealed = frontend.reveal(game, state)  # the check is over: hidden cards may be shown
    if revealed is not None:
        console.print(revealed)
        console.print()
    if last is not None:
        console.print(last)
    console.print(outcome_panel(outcome, state))
    console.print(Text.assemble(("Seed ", "bold"), str(state.seed)))
    console.print(Text.assemble(("Replay ", "bold"), shlex.join(replay)), soft_wrap=True)
    if record is None and player.interactive:
        answer = player.ask(Text("Save the game record? File name (Enter to skip): ", "bold"))
        record = Path(answer.strip()) if answer and answer.strip() else None
    if record is not None:
        try:
            record.write_text(state.record().to_json() + "\n", encoding="utf-8")
        except OSError as exc:
            # Nothing is lost: the record goes to stdout instead.
            click.echo(state.record().to_json())
            fail(f"cannot write the record to {record}: {exc.strerror or exc}")
        verify_command = shlex.join(["skillcheck", "verify", str(record)])
        console.print(
            Text.assemble(
                ("Record ", "bold"), f"written to {record}; check it with: {verify_command}"
            ),
            soft_wrap=True,
        )
    else:
        console.print(Text("Add --record FILE to save the game record as JSON.", style="dim"))
