"""The command line: ``skillcheck play | deal | deck | games | verify | solve | autoplay | odds``.

Every game parameter goes through the library (``ThreeTowers.from_options``), so the messages a
person sees for bad parameters are the library's. Library errors are printed in red on stderr
and exit with status 2 (``verify`` exits 1 for a record that does not check out).

Game-specific code lives in one :class:`Frontend` per game, looked up by the game's registry
name: how the command line's options build the game, how a position is drawn, how a move is put
into words, and the rules summary of the in-game help. A new game (Tri Peaks, the Tower of Hanoy)
plugs in by registering itself in :mod:`skillcheck.engine` and adding its frontend to
:data:`FRONTENDS`.

While a check is being played, everything shown to the player is built from
``state.observation()`` and the legal moves: never from the hidden deck or the position code. The
seed is shown only once the check is over (the seed determines the deck's order).
"""

from __future__ import annotations

import importlib.metadata
import json
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NoReturn, TextIO

import attrs
import click
from attrs import frozen
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from skillcheck import __version__
from skillcheck.cards import DECKTET, Card, Rank, Suit
from skillcheck.engine import GAMES, Game, Move, Outcome, State, game_class
from skillcheck.errors import ParseError, SkillcheckError
from skillcheck.games.three_towers import (
    DECK,
    Ivory,
    Quota,
    ThreeTowers,
    ThreeTowersObservation,
    TowerMove,
)
from skillcheck.odds import PERFECT_PLAY_STATES
from skillcheck.records import GameRecord, read_json_object, verify
from skillcheck.rng import draw_seed, validate_seed
from skillcheck.serialization import game_params

__all__ = ["FRONTENDS", "Frontend", "GameOptions", "main"]

#: Exit status for bad parameters and other errors reported by the library (as click's usage
#: errors); ``verify`` uses 1 for a record that does not check out.
EXIT_ERROR = 2
EXIT_INVALID_RECORD = 1
#: The solver budget (positions) for proving a live check can no longer be won.
DEAD_CHECK_STATES = 200_000

SUIT_STYLES: dict[Suit, str] = {
    Suit.MOONS: "bright_blue",
    Suit.SUNS: "yellow",
    Suit.WAVES: "cyan",
    Suit.LEAVES: "green",
    Suit.WYRMS: "red",
    Suit.KNOTS: "magenta",
}


# ---- consoles and errors -------------------------------------------------------------------------


def _stdout() -> Console:
    # Built per call so that click's test runner (which swaps sys.stdout) captures the output.
    return Console(highlight=False)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False)


def _fail(message: str, status: int = EXIT_ERROR) -> NoReturn:
    _stderr().print(Text(message, style="bold red"), soft_wrap=True)
    raise click.exceptions.Exit(status)


@contextmanager
def _library_errors(status: int = EXIT_ERROR) -> Iterator[None]:
    """Report any :class:`SkillcheckError` as a red message and an exit status, no traceback."""
    try:
        yield
    except SkillcheckError as exc:
        _fail(exc.message, status)


# ---- cards ---------------------------------------------------------------------------------------


def suit_style(card: Card) -> str:
    return SUIT_STYLES[card.suits[0]] if card.suits else "white"


def suit_symbols(card: Card) -> Text:
    text = Text()
    for suit in card.suits:
        text.append(suit.symbol, style=SUIT_STYLES[suit])
    return text


def card_text(card: Card) -> Text:
    """A card as ``Lunatic 6 ☾≈``: name, rank and suit symbols, coloured by suit."""
    text = Text(card.short_name, style=f"bold {suit_style(card)}")
    if card.rank is not None:
        text.append(f" {card.rank.label}")
    if card.suits:
        text.append(" ")
        text.append_text(suit_symbols(card))
    return text


def card_label(card: Card) -> Text:
    """A card as the library's messages name it (``the Lunatic (6)``), coloured by suit."""
    return Text(card.label, style=suit_style(card))


def rank_json(card: Card) -> int | str | None:
    """The rank for JSON: 1..10 (Ace..Crown), "pawn", "court", or null for the Excuse."""
    if card.rank is None:
        return None
    if card.rank in (Rank.PAWN, Rank.COURT):
        return card.rank.name.lower()
    return card.rank.number


def card_json(card: Card) -> dict[str, Any]:
    return {
        "code": card.code,
        "name": card.name,
        "rank": rank_json(card),
        "suits": [s.value for s in card.suits],
    }


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


# ---- game options and frontends ------------------------------------------------------------------


@frozen
class GameOptions:
    """The game options as the command line gave them (None: not given, the game's default)."""

    level: int | None = None
    spaces: int | None = None
    suit: str | None = None
    skill: int | None = None
    quota: int | None = None
    cards: str | None = None
    undo: bool = True
    move_limit: int | None = None

    def flags(self) -> list[str]:
        """The command-line flags that give these options back (for the replay command)."""
        out: list[str] = []
        for name in ("level", "spaces", "suit", "skill", "quota", "cards", "move_limit"):
            value = getattr(self, name)
            if value is not None:
                out += [f"--{name.replace('_', '-')}", str(value)]
        if not self.undo:
            out.append("--no-undo")
        return out


#: The command-line option of each library parameter (for ``skillcheck games``).
OPTION_NAMES = {
    "level": "--level",
    "spaces": "--spaces",
    "suit": "--suit",
    "skill": "--skill",
    "quota": "--quota",
    "suited_cards": "--cards",
    "undo": "--no-undo",
    "move_limit": "--move-limit",
}


@frozen
class Frontend:
    """What the command line knows about one game."""

    #: Build the game from the command-line options (library errors propagate).
    build: Callable[[GameOptions], Game[Any]]
    #: Draw a position from its observation; ``moves`` numbered, or None once the check is over;
    #: the last argument asks for a compact view (for a short terminal).
    render: Callable[[Any, Any, Sequence[Any] | None, bool], RenderableType]
    #: Put a legal move into words, from the observation before the move.
    describe_move: Callable[[Any, Any, Any], Text]
    #: The rules, briefly, for the in-game help.
    rules: Callable[[Any], str]
    #: How the command-line options map to the game's parameters (``skillcheck games``).
    options_note: str = ""


def _game_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--level", type=int, help="Highest rank in the deck, 2..9 (difficulty)."),
        click.option("--spaces", type=int, help="Tower spaces, 3..8 (the rules say 5)."),
        click.option("--suit", help="The check's suit (ivory or quota): moons, suns, waves, ..."),
        click.option("--skill", type=int, help="Quota check: numerals of the suit in the deck."),
        click.option("--quota", type=int, help="Quota check: height of the suit's tower to win."),
        click.option(
            "--cards",
            metavar="CARDS",
            help="Quota check: the GM's choice of suited numerals, e.g. 'Author,Forest'.",
        ),
        click.option(
            "--undo/--no-undo", default=True, show_default=True, help="Allow taking moves back."
        ),
        click.option("--move-limit", type=int, help="Moves allowed before the check is lost."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _options_from(kwargs: dict[str, Any]) -> GameOptions:
    names = {f.name for f in attrs.fields(GameOptions)}
    return GameOptions(**{k: kwargs.pop(k) for k in list(kwargs) if k in names})


def _frontend(name: str) -> Frontend:
    game_class(name)  # raises UnknownGameError, naming the games
    frontend = FRONTENDS.get(name)
    if frontend is None:
        _fail(f"the command line cannot play {name!r} yet: it can play {', '.join(FRONTENDS)}")
    return frontend


# ---- Three Towers --------------------------------------------------------------------------------


def build_three_towers(options: GameOptions) -> ThreeTowers:
    params: dict[str, Any] = {"undo": options.undo, "move_limit": options.move_limit}
    if options.level is not None:
        params["level"] = options.level
    if options.spaces is not None:
        params["spaces"] = options.spaces
    return ThreeTowers.from_options(
        suit=options.suit,
        skill=options.skill,
        quota=options.quota,
        suited_cards=options.cards,
        **params,
    )


def _pure_height(towers: Sequence[Sequence[Card]], suit: Suit) -> int:
    return max((len(t) for t in towers if all(c.bears(suit) for c in t)), default=0)


def _tower_name(tower: Sequence[Card], number: int) -> Text:
    if not tower:
        return Text(f"empty tower {number}")
    top = tower[-1]
    return Text.assemble(f"tower {number} (", Text(top.name, style=suit_style(top)), ")")


def describe_three_towers_move(
    game: ThreeTowers, observation: ThreeTowersObservation, move: TowerMove
) -> Text:
    towers = observation.towers
    if move.source == DECK:
        card, source = observation.top_card, "the deck"
    else:
        tower = towers[move.source - 1]
        card, source = (tower[-1] if tower else None), f"tower {move.source}"
    moved = card_label(card) if card is not None else Text("nothing")
    return Text.assemble(
        moved, f" from {source} onto ", _tower_name(towers[move.target - 1], move.target)
    )


def three_towers_rules(game: ThreeTowers) -> str:
    variant = game.variant
    lines = [
        "Each move takes the deck's top card, or the top card of a tower, and puts it on a "
        "tower: on an empty space, or on a card of higher rank that shares a suit with it."
    ]
    if isinstance(variant, Quota):
        lines.append(
            f"You succeed as soon as a tower made only of {variant.suit.value} cards "
            f"({variant.suit.symbol}) holds {variant.quota} cards."
        )
    else:
        lines.append(
            "You win when the deck is empty and three towers each hold every rank from "
            f"{game.level} down to 2."
        )
        if isinstance(variant, Ivory):
            lines.append(f"One of the three must be made only of {variant.suit.value} cards.")
    return " ".join(lines)


def render_three_towers(
    game: ThreeTowers,
    observation: ThreeTowersObservation,
    moves: Sequence[TowerMove] | None,
    compact: bool = False,
) -> RenderableType:
    """The position, from the observation; ``compact`` for screens too short for the full view
    (no blank lines, moves in a few words so that they fit in columns)."""
    variant = game.variant
    suit = variant.suit if isinstance(variant, Ivory | Quota) else None
    parts: list[RenderableType] = [Text(game.describe(), style="italic")]

    towers = Table(box=None, pad_edge=False, padding=(0, 1), show_header=True)
    towers.add_column("Tower", justify="right", style="bold")
    if suit is not None:
        # The height of each tower made only of the suit's cards (the ivory/quota tower).
        towers.add_column(Text(suit.symbol, style=SUIT_STYLES[suit]), justify="right")
    towers.add_column("Cards, bottom → top")
    for number, tower in enumerate(observation.towers, 1):
        row: list[RenderableType] = [str(number)]
        if suit is not None:
            pure = bool(tower) and all(c.bears(suit) for c in tower)
            row.append(Text(str(len(tower)), style=f"bold {SUIT_STYLES[suit]}") if pure else "")
        if tower:
            row.append(Columns([card_text(c) for c in tower], padding=(0, 2)))
        else:
            row.append(Text("(empty)", style="dim"))
        towers.add_row(*row)
    parts += [Text(), towers, Text()]

    info = Table.grid(padding=(0, 2))
    info.add_column(style="bold")
    info.add_column()
    if observation.top_card is None:
        info.add_row("Deck", Text("empty", style="dim"))
    else:
        under = observation.cards_left - 1
        info.add_row(
            "Deck",
            Text.assemble(
                card_text(observation.top_card),
                f" on top, {under} more card{'s' if under != 1 else ''} face down",
            ),
        )
    if isinstance(variant, Quota):
        quota, suit = variant.quota, variant.suit
        height = _pure_height(observation.towers, suit)
        bar = Text("■" * min(height, quota), style=SUIT_STYLES[suit])
        bar.append("□" * max(quota - height, 0), style="dim")
        info.add_row(
            "Quota", Text.assemble(bar, f"  tallest {suit.value}-only tower: {height} of {quota}")
        )
    else:
        full = [t for t in observation.towers if len(t) == game.level - 1]
        goal = f"complete towers (ranks {game.level} to 2): {len(full)} of 3"
        if isinstance(variant, Ivory):
            done = _pure_height(full, variant.suit) > 0
            goal += f"; a complete {variant.suit.value}-only tower: {'yes' if done else 'not yet'}"
        info.add_row("Goal", goal)
    parts.append(info)

    if moves is not None:
        parts.append(Text())
        if not moves:
            parts.append(Text("No legal move.", style="bold"))
        else:
            parts.append(Text("Moves", style="bold"))
            describe = _short_move if compact else describe_three_towers_move
            items = [
                Text.assemble(
                    (f"{i:>2}. ", "bold"),
                    (f"{m.code:<3} ", "bold cyan"),
                    describe(game, observation, m),
                )
                for i, m in enumerate(moves, 1)
            ]
            parts.append(Columns(items, column_first=True, padding=(0, 3)))
    if compact:
        parts = [p for p in parts if not (isinstance(p, Text) and not p.plain)]
    return Group(*parts)


def _short_move(game: ThreeTowers, observation: ThreeTowersObservation, move: TowerMove) -> Text:
    """A move in a few words, for small screens: ``Savage onto Battle``, ``Forest to empty 3``."""
    towers = observation.towers
    source = towers[move.source - 1] if move.source != DECK else ()
    card = observation.top_card if move.source == DECK else (source[-1] if source else None)
    target = towers[move.target - 1]
    text = Text(card.short_name, style=suit_style(card)) if card else Text("nothing")
    if target:
        text.append_text(Text.assemble(" onto ", (target[-1].short_name, suit_style(target[-1]))))
    else:
        text.append(f" to empty {move.target}")
    return text


FRONTENDS: dict[str, Frontend] = {
    ThreeTowers.name: Frontend(
        build=build_three_towers,
        render=render_three_towers,
        describe_move=describe_three_towers_move,
        rules=three_towers_rules,
        options_note=(
            "The variant follows from the options: without --suit the standard game; --suit "
            "alone, the ivory variant; --suit with --skill and --quota (or --cards), the quota "
            "check."
        ),
    ),
}


# ---- the prompt ----------------------------------------------------------------------------------


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
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
}


def read_command(text: str, game: Game[Any], state: State[Any], moves: Sequence[Move]) -> Command:
    """Read a line typed at the prompt: a move number, a move code or a command word.

    A line such as ``12`` can be both the 12th move of the list and the move code ``12`` (tower 1
    onto tower 2). If both readings are legal and differ, nothing is done and the player is asked
    to write ``#12`` (the numbered move) or ``1-2`` (the code).
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
        elif text.startswith("#") or not _reads_as_move(game, text):
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
        return Command(
            "error",
            error=f"{text!r} is ambiguous: it is both move number {text} ({numbered.code}) and "
            f"the move code {coded.code}; type #{text} for the numbered move, or write the code "
            f"with a dash ({coded.code[0]}-{coded.code[1:]})",
        )
    if numbered is not None and not state.is_legal(coded):
        return Command("move", numbered)
    return Command("move", coded)


def _reads_as_move(game: Game[Any], text: str) -> bool:
    try:
        game.parse_move(text)
    except ParseError:
        return False
    return True


PROMPT_HELP = """\
At the prompt, type:
  1, 2, ...  a move from the list (#12 when 12 is also a move code)
  d3         a move code: the deck's top card onto tower 3
  14         a move code: tower 1's top card onto tower 4
  u          undo the last move{undo_note}
  c or q     concede the check (asks first)
  h          this help
End of input (Ctrl-D) or Ctrl-C concedes at once."""


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
    true deck leaves no winning line."""
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
        keys = "number or code · " + ("u undo · " if game.undo else "") + "c concede · h help"
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
            undo_note = "" if game.undo else " (switched off for this check)"
            notice = Panel(
                Text(f"{frontend.rules(game)}\n\n{PROMPT_HELP.format(undo_note=undo_note)}"),
                title="Help",
                title_align="left",
                border_style="dim",
            )
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
    hidden: Sequence[Card] = getattr(state, "remaining_deck", ())
    if len(hidden) > 1:
        # The check is over: the cards under the top card may be shown now.
        console.print(Text("Still in the deck, top first:", style="dim"))
        console.print(Columns([card_text(c) for c in hidden], padding=(0, 3)))
        console.print()
    if last is not None:
        console.print(last)
    console.print(_outcome_panel(outcome, state))
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
            _fail(f"cannot write the record to {record}: {exc.strerror or exc}")
        verify_command = shlex.join(["skillcheck", "verify", str(record)])
        console.print(
            Text.assemble(
                ("Record ", "bold"), f"written to {record}; check it with: {verify_command}"
            ),
            soft_wrap=True,
        )
    else:
        console.print(Text("Add --record FILE to save the game record as JSON.", style="dim"))


def _outcome_panel(outcome: Outcome, state: State[Any]) -> Panel:
    success = outcome.success
    title = "SUCCESS" if success else "FAILURE"
    style = "green" if success else "red"
    body = Table.grid(padding=(0, 2))
    body.add_column(style="bold")
    body.add_column()
    body.add_row("Outcome", Text(outcome.summary))
    body.add_row("Degree of success", Text(f"{outcome.degree:+d}", style=f"bold {style}"))
    body.add_row("Moves made", str(len(state.moves)))
    return Panel(body, title=Text(title, style=f"bold {style}"), border_style=style, expand=False)


# ---- commands ------------------------------------------------------------------------------------


class _CommandsWithPlugins(click.Group):
    """The built-in commands plus those installed packages add through the entry-point group
    ``skillcheck.commands`` (the API adds ``serve``), loaded only when used, so the library
    never imports them."""

    def _plugins(self) -> dict[str, importlib.metadata.EntryPoint]:
        found = importlib.metadata.entry_points(group=PLUGIN_GROUP)
        return {ep.name: ep for ep in found}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._plugins()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        entry = None if command is not None else self._plugins().get(cmd_name)
        if entry is None:
            return command
        try:
            loaded = entry.load()
        except ImportError as exc:
            return _missing_extra(cmd_name, entry.value, exc)
        if not isinstance(loaded, click.Command):
            raise click.ClickException(f"{entry.value} is not a click command")
        return loaded


def _missing_extra(name: str, target: str, exc: ImportError) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def unavailable(args: tuple[str, ...]) -> None:
        """Needs the API extra: pip install 'skillcheck[api]'."""
        raise click.ClickException(
            f"`skillcheck {name}` ({target}) needs packages that are not installed "
            f"({exc.name or exc}): install them with  pip install 'skillcheck[api]'  "
            f"(from a checkout:  pip install '.[api]')"
        )

    return unavailable


PLUGIN_GROUP = "skillcheck.commands"


@click.group(cls=_CommandsWithPlugins, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="skillcheck")
def main() -> None:
    """Decktet card mini-games as RPG skill checks."""


@main.command()
@click.argument("game_name", metavar="GAME")
@_game_options
@click.option("--seed", type=int, help="Deal from this seed (default: a fresh random seed).")
@click.option(
    "--record",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the game record (JSON) to this file at the end.",
)
@click.option(
    "--end-when-lost",
    is_flag=True,
    help="End the check as soon as the solver proves it can no longer be won.",
)
def play(
    game_name: str, seed: int | None, record: Path | None, end_when_lost: bool, **kwargs: Any
) -> None:
    """Play a check of GAME (three-towers) in the terminal.

    GAME is a registered game (see `skillcheck games`). The seed is shown when the check is
    over, with the command that replays the same deal.

    \b
    Examples:
      skillcheck play three-towers --level 6
      skillcheck play three-towers --suit moons --skill 4 --quota 3
      skillcheck play three-towers --suit moons --quota 2 --cards Author,Forest --no-undo
    """
    options = _options_from(kwargs)
    with _library_errors():
        frontend = _frontend(game_name)
        game = frontend.build(options)
        seed = draw_seed() if seed is None else validate_seed(seed)
    replay = ["skillcheck", "play", game_name, *options.flags(), "--seed", str(seed)]
    if end_when_lost:
        replay.append("--end-when-lost")
    if sys.stdin.isatty():
        with suppress(ImportError):  # line editing and history at the prompt (not everywhere)
            import readline  # noqa: F401
    with _library_errors():
        try:
            play_check(_stdout(), game, frontend, seed, replay, record, end_when_lost)
        except KeyboardInterrupt:
            _fail("interrupted", 130)


@main.command()
@click.argument("game_name", metavar="GAME")
@_game_options
@click.option("--seed", type=int, help="The seed to deal from (default: a fresh random seed).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def deal(game_name: str, seed: int | None, as_json: bool, **kwargs: Any) -> None:
    """Print the deal of GAME for a seed, top card first.

    The comma-separated names line can be pasted wherever cards are read.
    """
    options = _options_from(kwargs)
    with _library_errors():
        frontend = _frontend(game_name)
        game = frontend.build(options)
        drawn = seed is None
        seed = draw_seed() if seed is None else validate_seed(seed)
        cards = [Card.parse(c) for c in game.deal(seed)]
        params = game_params(game)
    if as_json:
        _print_json(
            {
                "game": game_name,
                "params": params,
                "seed": seed,
                "deal": [c.code for c in cards],
                "names": [c.name for c in cards],
            }
        )
        return
    console = _stdout()
    describe = getattr(game, "describe", None)
    title = describe() if callable(describe) else game.title
    console.print(Text(str(title), style="bold"))
    console.print(Text(f"seed {seed}" + (" (drawn at random)" if drawn else "")))
    table = Table(title=None, show_edge=False)
    table.add_column("#", justify="right")
    table.add_column("code")
    table.add_column("card")
    table.add_column("rank", justify="right")
    table.add_column("suits")
    for number, card in enumerate(cards, 1):
        table.add_row(
            str(number),
            card.code,
            Text(card.name, style=suit_style(card)),
            card.rank.label if card.rank is not None else "",
            _suit_names(card),
        )
    console.print(table)
    console.print(Text("Top card first:", style="dim"))
    console.print(Text(", ".join(c.name for c in cards)), soft_wrap=True)


def _suit_names(card: Card) -> Text:
    return Text(" ").join(Text(f"{s.symbol} {s.value}", style=SUIT_STYLES[s]) for s in card.suits)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def deck(as_json: bool) -> None:
    """List the 45 cards of the Decktet."""
    if as_json:
        _print_json([card_json(c) for c in DECKTET])
        return
    table = Table(title="The Decktet", show_edge=False)
    table.add_column("code")
    table.add_column("card")
    table.add_column("rank", justify="right")
    table.add_column("suits")
    for card in DECKTET:
        table.add_row(
            card.code,
            Text(card.name, style=suit_style(card)),
            card.rank.label if card.rank is not None else "",
            _suit_names(card),
        )
    _stdout().print(table)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def games(as_json: bool) -> None:
    """List the games and their parameters."""
    if as_json:
        _print_json(
            [
                {
                    "name": name,
                    "title": cls.title,
                    "playable": name in FRONTENDS,
                    "parameters": [
                        {**attrs.asdict(p), "option": OPTION_NAMES.get(p.name)}
                        for p in cls.parameters()
                    ],
                }
                for name, cls in sorted(GAMES.items())
            ]
        )
        return
    console = _stdout()
    for name, cls in sorted(GAMES.items()):
        table = Table(
            title=Text.assemble((name, "bold"), f"  ({cls.title})"),
            title_justify="left",
            show_edge=False,
        )
        table.add_column("parameter / option", no_wrap=True)
        table.add_column("default")
        table.add_column("allowed")
        table.add_column("help", ratio=1)
        for p in cls.parameters():
            if p.choices:
                allowed = ", ".join(p.choices)
            elif p.minimum is not None or p.maximum is not None:
                allowed = f"{p.minimum}..{p.maximum}"
            else:
                allowed = p.kind
            default = "none" if p.default is None else str(p.default).lower()
            option = OPTION_NAMES.get(p.name)
            label = Text(p.name, style="bold")
            if option:
                label.append(f"\n{option}", style="cyan")
            table.add_row(label, default, allowed, Text(p.help))
        console.print(table)
        frontend = FRONTENDS.get(name)
        if frontend is None:
            console.print(Text("The command line cannot play this game yet.", style="dim"))
        elif frontend.options_note:
            console.print(Text(frontend.options_note, style="dim"))
        console.print()


@main.command(name="verify")
@click.argument("record_file", metavar="RECORD", type=click.File("r", encoding="utf-8"))
def verify_command(record_file: TextIO) -> None:
    """Replay a game record and check its outcome.

    RECORD is a JSON file written by `play --record`, a check session's revealed record (its seed
    and salt are checked against the commitment published before play), or - for stdin. Exits 0
    and prints OK with the outcome, or exits 1 with the reason the record does not check out.
    """
    from skillcheck.sessions import REVEALED_FORMAT, RevealedRecord

    text = record_file.read()
    revealed = False
    with _library_errors(EXIT_INVALID_RECORD):
        data = read_json_object(text, "a game record")
        if data.get("format") == REVEALED_FORMAT:
            # A check's revealed record: the seed and salt must match the published commitment.
            state = RevealedRecord.from_dict(data).verify()
            revealed = True
        else:
            state = verify(GameRecord.from_dict(data))
    outcome = state.outcome
    summary = (
        outcome.summary if outcome is not None else f"in progress after {len(state.moves)} moves"
    )
    if revealed:
        summary = f"the seed matches the commitment; {summary}"
    _stdout().print(Text.assemble(("OK", "bold green"), f": {summary}"), soft_wrap=True)


# ---- analysis: solve, autoplay, odds -------------------------------------------------------------


def _three_towers_only(game_name: str, command: str) -> None:
    if game_class(game_name) is not ThreeTowers:
        _fail(f"{command} knows only three-towers so far")


def game_from_deal(
    deal_text: str, spaces: int | None, suit: str | None, quota: int | None, **params: Any
) -> tuple[ThreeTowers, tuple[Card, ...]]:
    """The game an explicit deal implies: its level is the highest rank dealt; a suit alone is
    the ivory goal; a suit and a quota make a quota check whose suited cards are the deal's."""
    from skillcheck.cards import parse_cards

    cards = parse_cards(deal_text)
    numerals = [c for c in cards if c.rank is not None and c.rank.is_numeral]
    if not numerals:
        raise ParseError("the deal holds no numerals 2-9: give the deck order, top card first")
    level = max(int(c.rank) for c in numerals if c.rank is not None)
    if spaces is not None:
        params["spaces"] = spaces
    if suit is not None and quota is not None:
        chosen = [c for c in cards if c.bears(Suit.parse(suit))]
        game = ThreeTowers.from_options(
            suit=suit, quota=quota, suited_cards=chosen or None, level=level, **params
        )
    else:
        if quota is not None:
            raise ParseError("--quota needs --suit: the quota is a height of one suit's tower")
        game = ThreeTowers.from_options(suit=suit, level=level, **params)
    game.state_from_deal(cards)  # the deal must be exactly this game's deck
    return game, cards


def _move_json(move: TowerMove) -> dict[str, Any]:
    return {"from": "deck" if move.source == DECK else move.source, "to": move.target}


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option(
    "--deal",
    "deal_text",
    metavar="CARDS",
    help="The deck order, top card first: names or codes separated by commas.",
)
@_game_options
@click.option("--seed", type=int, help="Solve the deal of this seed (with the game options).")
@click.option(
    "--max-states",
    type=int,
    default=2_000_000,
    show_default=True,
    help="Give up (result unknown) after this many positions.",
)
@click.option("--max-seconds", type=float, help="Give up (result unknown) after this long.")
@click.option(
    "--shorten/--no-shorten",
    default=True,
    show_default=True,
    help="Shorten the winning line (the search's own path has many detours).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def solve(
    game_name: str, deal_text: str | None, seed: int | None, max_states: int,
    max_seconds: float | None, shorten: bool, as_json: bool, **kwargs: Any,
) -> None:  # fmt: skip
    """Solve a deal of GAME with perfect information: win (with a winning line), loss (a proof
    that no line exists) or unknown (the budget ran out).

    \b
    Without --suit the goal is the standard one; --suit alone is Ivory; --suit with --quota is
    the quota check. With --deal the level follows from the cards dealt.

    \b
    Examples:
      skillcheck solve three-towers --deal "Author,Desert,Origin,Journey,Painter,Savage"
      skillcheck solve three-towers --seed 7 --suit moons --skill 6 --quota 5 --json
    """
    from skillcheck.games.three_towers.solver import solve as solve_deal

    options = _options_from(kwargs)
    with _library_errors():
        _three_towers_only(game_name, "solve")
        if deal_text is not None:
            if seed is not None:
                raise ParseError("give either --deal or --seed, not both")
            game, cards = game_from_deal(
                deal_text, options.spaces, options.suit, options.quota,
                undo=options.undo, move_limit=options.move_limit,
            )  # fmt: skip
        else:
            game = build_three_towers(options)
            seed = draw_seed() if seed is None else validate_seed(seed)
            cards = game.deal(seed)
        solution = solve_deal(game, cards, max_states=max_states, max_seconds=max_seconds)
        if solution.result == "win" and shorten:
            from skillcheck.games.three_towers.lines import shorten_line

            line = shorten_line(game, game.state_from_deal(cards), solution.moves)
            solution = attrs.evolve(solution, moves=line)
    if as_json:
        _print_json({
            "result": solution.result,
            "moves": [_move_json(m) for m in solution.moves],
            "codes": [m.code for m in solution.moves],
            "states": solution.states,
            "seconds": round(solution.seconds, 4),
            "game": game.name, "params": game_params(game), "seed": seed,
            "deal": [c.code for c in cards],
        })  # fmt: skip
        return
    console = _stdout()
    console.print(Text(game.describe(), style="bold"))
    if seed is not None:
        console.print(f"seed {seed}")
    style = {"win": "bold green", "loss": "bold red", "unknown": "bold yellow"}[solution.result]
    console.print(
        Text.assemble(
            ("Result ", "bold"),
            (solution.result.upper(), style),
            f"  ({solution.states:,} positions, {solution.seconds:.2f} s)",
        )
    )
    if solution.result == "loss":
        console.print("No sequence of legal moves wins this deal (every position was searched).")
    elif solution.result == "unknown":
        console.print("The budget ran out first: raise --max-states or --max-seconds.")
    else:
        state = game.state_from_deal(cards)
        console.print(f"A winning line of {len(solution.moves)} moves:")
        for number, move in enumerate(solution.moves, 1):
            description = describe_three_towers_move(game, state.observation(), move)
            state.push(move)
            console.print(Text.assemble(f"{number:4d}. ", (move.code, "bold"), "  ", description))


@main.command()
@click.argument("game_name", metavar="GAME")
@_game_options
@click.option("--seed", type=int, help="Deal from this seed (default: a fresh random seed).")
@click.option(
    "--bot",
    type=click.Choice(["fast", "strong"]),
    default="fast",
    show_default=True,
    help="fast: a heuristic; strong: samples deck orders and solves them.",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the game record (JSON) to this file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the game record as JSON.")
def autoplay(
    game_name: str, seed: int | None, bot: str, record: Path | None, as_json: bool,
    **kwargs: Any,
) -> None:  # fmt: skip
    """Let a fair bot play a check of GAME (it sees only what a player sees): an NPC's check.

    \b
    Example:
      skillcheck autoplay three-towers --suit suns --skill 6 --quota 4 --bot strong
    """
    from skillcheck.games.three_towers.bots import autoplay as run_bot

    options = _options_from(kwargs)
    with _library_errors():
        _three_towers_only(game_name, "autoplay")
        game = build_three_towers(options)
        seed = draw_seed() if seed is None else validate_seed(seed)
        state = run_bot(game, bot, seed)
    if record is not None:
        record.write_text(state.record().to_json() + "\n", encoding="utf-8")
    if as_json:
        click.echo(state.record().to_json())
        return
    console = _stdout()
    console.print(Text(f"{bot} bot · seed {seed}", style="bold"))
    console.print(render_three_towers(game, state.observation(), None, False))
    assert state.outcome is not None
    console.print(_outcome_panel(state.outcome, state))


def parse_range(text: str, name: str) -> list[int]:
    """``3``, ``1..8`` or ``2,4,6`` as a list of whole numbers."""
    try:
        if ".." in text:
            low, high = (int(part) for part in text.split("..", 1))
            values = list(range(low, high + 1))
        else:
            values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ParseError(
            f"cannot read {name} {text!r}: give a number, a range like 1..8, or a list like 2,4,6"
        ) from None
    if not values:
        raise ParseError(f"{name} {text!r} is empty: give a number, a range or a list")
    return values


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--suit", help="The quota check's suit; without it, the standard game per level.")
@click.option(
    "--skill",
    "skills",
    default="1..8",
    show_default=True,
    help="Skills: a number, a range (1..8) or a list (2,4,6).",
)
@click.option(
    "--quota",
    "quotas",
    default="1..8",
    show_default=True,
    help="Quotas: a number, a range or a list (cells with quota > skill are skipped).",
)
@click.option(
    "--level",
    "levels",
    default="9",
    show_default=True,
    help="Level (a range such as 6..9 for the standard game's table).",
)
@click.option("--spaces", type=int, default=5, show_default=True, help="Tower spaces, 3..8.")
@click.option("--deals", type=int, default=200, show_default=True, help="Deals per cell.")
@click.option(
    "--bot",
    "bots",
    multiple=True,
    type=click.Choice(["perfect", "fast", "strong"]),
    help="Methods to compare (repeat the option); default: perfect and fast.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Master seed: the same seed gives the same table.",
)
@click.option("--workers", type=int, help="Worker processes (default: one per core).")
@click.option(
    "--solver-states",
    type=int,
    default=PERFECT_PLAY_STATES,
    show_default=True,
    help="Perfect play: positions per deal before a deal counts as undecided.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the table as CSV.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the table as JSON.",
)
@click.option(
    "--png",
    "png_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a heatmap (needs matplotlib).",
)
def odds(
    game_name: str, suit: str | None, skills: str, quotas: str, levels: str, spaces: int,
    deals: int, bots: tuple[str, ...], seed: int, workers: int | None, solver_states: int,
    csv_path: Path | None, json_path: Path | None, png_path: Path | None,
) -> None:  # fmt: skip
    """Success probabilities with 95 % confidence intervals (Wilson), perfect play beside the
    fair bots, over seeded deals on every core.

    \b
    Examples:
      skillcheck odds three-towers --suit moons --skill 1..8 --quota 1..8 --deals 100
      skillcheck odds three-towers --level 6..9 --deals 50 --bot perfect --bot fast
    """
    from concurrent.futures import ProcessPoolExecutor

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from skillcheck.games.three_towers.odds import quota_odds, standard_odds

    methods = list(bots) or ["perfect", "fast"]
    with _library_errors():
        _three_towers_only(game_name, "odds")
        validate_seed(seed)
        level_list = parse_range(levels, "level")
        if workers is not None and workers < 1:
            raise ParseError(f"workers {workers} is not allowed: give at least 1")
        progress = Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TimeRemainingColumn(), console=_stderr(), transient=True,
        )  # fmt: skip
        with progress, ProcessPoolExecutor(max_workers=workers) as pool:
            task = progress.add_task("playing deals", total=None)

            def update(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            if suit is None:
                table = standard_odds(
                    level_list, spaces=spaces, deals=deals, methods=methods, seed=seed,
                    executor=pool, progress=update, solver_states=solver_states,
                )  # fmt: skip
            else:
                if len(level_list) != 1:
                    raise ParseError("a quota table is for one level: give --level N")
                table = quota_odds(
                    suit, parse_range(skills, "skill"), parse_range(quotas, "quota"),
                    level=level_list[0], spaces=spaces, deals=deals, methods=methods, seed=seed,
                    executor=pool, progress=update, solver_states=solver_states,
                )  # fmt: skip
        if csv_path is not None:
            csv_path.write_text(table.to_csv(), encoding="utf-8")
        if json_path is not None:
            json_path.write_text(table.to_json() + "\n", encoding="utf-8")
        if png_path is not None:
            table.heatmap(png_path)
    _print_odds(table)


def _print_odds(table: Any) -> None:
    console = _stdout()
    quota_table = table.suit is not None
    title = (
        f"Quota checks · {table.suit.value} · {table.spaces} spaces"
        if quota_table
        else f"Three Towers · {table.spaces} spaces"
    )
    caption = f"{table.deals} deals per cell · seed {table.seed}"
    out = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    keys: list[tuple[int, int | None, int | None]] = []
    for cell in table.cells:
        key = (cell.level, cell.skill, cell.quota)
        if key not in keys:
            keys.append(key)
    if quota_table:
        out.add_column("level", justify="right")
        out.add_column("skill", justify="right")
        out.add_column("quota", justify="right")
    else:
        out.add_column("level", justify="right")
    for method in table.methods:
        out.add_column(f"{method}\nrate [95 % CI]", justify="right")
    undecided = 0
    for level, skill, quota in keys:
        row = [str(level)] + ([str(skill), str(quota)] if quota_table else [])
        for method in table.methods:
            cell = table.cell(method, level=level, skill=skill, quota=quota)
            if cell is None:
                row.append("")
                continue
            low, high = cell.interval
            undecided += cell.undecided
            row.append(f"{100 * cell.rate:5.1f} % [{100 * low:.0f}–{100 * high:.0f}]")
        out.add_row(*row)
    console.print(out)
    if undecided:
        console.print(Text(
            f"{undecided} perfect-play games were undecided within the solver budget and count as "
            "failures: the perfect rates are lower bounds (raise --solver-states).", style="yellow",
        ))  # fmt: skip


if __name__ == "__main__":  # pragma: no cover
    main()
