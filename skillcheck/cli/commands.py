"""The commands ``play``, ``deal``, ``deck``, ``games`` and ``verify``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, TextIO

import attrs
import click
from rich.table import Table
from rich.text import Text

from skillcheck.cards import deck_named
from skillcheck.engine import GAMES, Game
from skillcheck.records import GameRecord, read_json_object, verify
from skillcheck.rng import draw_seed, validate_seed
from skillcheck.serialization import game_params
from skillcheck.terminal import card_style, deck_of, frontend_for, item_code, suit_text
from skillcheck.words import counted

from .common import (
    EXIT_INVALID_RECORD,
    OutputFile,
    fail,
    library_errors,
    print_json,
    stdout,
)
from .options import (
    GameCommand,
    GameGroup,
    allowed_text,
    build_game,
    click_options,
    default_game,
    default_text,
    example_commands,
    example_options,
    game_options,
    read_options,
    to_flags,
)
from .prompt import play_check

__all__ = [
    "deal",
    "deck",
    "first_examples",
    "games",
    "option_names",
    "play",
    "verify_command",
]

SEED_HELP = "Deal from this seed, 0..2^53-1 (default: a fresh random seed)."


def option_names(params: Sequence[click.Parameter]) -> set[str]:
    """Every option name ``params`` use (so that game options keep clear of them)."""
    names = {"-h", "--help"}
    for param in params:
        if isinstance(param, click.Option):
            names.update(param.opts, param.secondary_opts)
    return names


def first_examples(command: str, extra: Sequence[str] = ()) -> Callable[[], list[str]]:
    """The command on each game's first example (for a command's help, made when shown)."""

    def lines() -> list[str]:
        return [
            line
            for cls in GAMES.values()
            for line in example_commands(cls, command, limit=1, extra=extra)
        ]

    return lines


# ---- play ----------------------------------------------------------------------------------------


def _play_command(cls: type[Game[Any]]) -> click.Command:
    own: list[click.Parameter] = [
        click.Option(["--seed"], type=int, help=SEED_HELP),
        click.Option(
            ["--record"],
            type=OutputFile(),
            help="Write the game record (JSON) to this file at the end.",
        ),
        click.Option(
            ["--end-when-lost"],
            is_flag=True,
            help="End the check as soon as the game's solver proves it can no longer be won.",
        ),
    ]
    options = game_options(cls, option_names(own))

    def run(seed: int | None, record: Path | None, end_when_lost: bool, **kwargs: Any) -> None:
        with library_errors():
            flat = read_options(options, kwargs)
            game = build_game(cls, flat)
            frontend = frontend_for(cls)
            seed = draw_seed() if seed is None else validate_seed(seed)
        replay = ["skillcheck", "play", cls.name, *to_flags(options, flat), "--seed", str(seed)]
        if end_when_lost:
            replay.append("--end-when-lost")
        if sys.stdin.isatty():
            with suppress(ImportError):  # line editing and history at the prompt
                import readline  # noqa: F401
        with library_errors():
            try:
                play_check(stdout(), game, frontend, seed, replay, record, end_when_lost)
            except KeyboardInterrupt:
                fail("interrupted", 130)

    text = (
        f"Play a check of {cls.title} in the terminal. {cls.summary}\n\n"
        "Type a move's number or code at the prompt, u to undo, c to concede, h for help. The "
        "seed is shown when the check is over, with the command that replays the same deal."
    )
    return GameCommand(
        cls.name,
        params=[*click_options(options), *own],
        callback=run,
        help=text,
        examples=lambda: example_commands(cls, "play", limit=4),
        short_help=cls.summary or cls.title,
    )


play = GameGroup(
    "play",
    _play_command,
    help="Play a check of GAME in the terminal. GAME is a registered game (`skillcheck games`); "
    "`skillcheck play GAME --help` lists its options.",
    examples=first_examples("play"),
    short_help="Play a check of GAME in the terminal.",
)


# ---- deal ----------------------------------------------------------------------------------------


def _card_name(item: Any) -> str:
    deck = deck_of(item)
    return str(deck.card_json(item).get("name", item_code(item))) if deck else str(item)


def _deal_command(cls: type[Game[Any]]) -> click.Command:
    own: list[click.Parameter] = [
        click.Option(["--seed"], type=int, help=SEED_HELP),
        click.Option(["--json", "as_json"], is_flag=True, help="Print JSON."),
    ]
    options = game_options(cls, option_names(own))

    def run(seed: int | None, as_json: bool, **kwargs: Any) -> None:
        with library_errors():
            flat = read_options(options, kwargs)
            game = build_game(cls, flat)
            drawn = seed is None
            seed = draw_seed() if seed is None else validate_seed(seed)
            items = tuple(game.deal(seed))
            params = game_params(game)
        if as_json:
            print_json({
                "game": cls.name, "params": params, "seed": seed,
                "deal": [item_code(i) for i in items], "names": [_card_name(i) for i in items],
                "deal_order": cls.deal_order,
            })  # fmt: skip
            return
        console = stdout()
        console.print(Text(game.describe(), style="bold"))
        console.print(Text(f"seed {seed}" + (" (drawn at random)" if drawn else "")))
        table = Table(title=None, show_edge=False)
        table.add_column("#", justify="right")
        table.add_column("code")
        table.add_column("card")
        table.add_column("rank", justify="right")
        table.add_column("suits")
        for number, item in enumerate(items, 1):
            table.add_row(str(number), item_code(item), *_card_cells(item))
        console.print(table)
        console.print(Text(f"In dealing order: {cls.deal_order}.", style="dim"))
        console.print(Text(", ".join(_card_name(i) for i in items)), soft_wrap=True)

    text = (
        f"Print the deal of {cls.title} for a seed, in the game's dealing order "
        f"({cls.deal_order}).\n\nThe comma-separated names line can be pasted wherever cards "
        "are read."
    )
    return GameCommand(
        cls.name,
        params=[*click_options(options), *own],
        callback=run,
        help=text,
        examples=lambda: example_commands(cls, "deal", limit=2, extra=["--seed", "7"]),
        short_help=cls.summary or cls.title,
    )


def _card_cells(item: Any) -> list[Text | str]:
    deck = deck_of(item)
    if deck is None:
        return [str(item), "", ""]
    info = deck.card_json(item)
    suits = Text(" ").join(suit_text(deck, str(s), name=True) for s in info.get("suits") or [])
    rank = info.get("rank")
    return [Text(str(info.get("name")), style=card_style(item, deck)), str(rank or ""), suits]


deal = GameGroup(
    "deal",
    _deal_command,
    help="Print the deal of GAME for a seed, in the game's dealing order (`--json` for scripts).",
    examples=first_examples("deal", ["--seed", "7"]),
    short_help="Print the deal of GAME for a seed.",
)


# ---- deck ----------------------------------------------------------------------------------------


@click.command()
@click.argument("name", metavar="[DECK]", default="decktet", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def deck(name: str, as_json: bool) -> None:
    """List the cards of a deck (the decks are those games deal from; default: decktet).

    `--json` prints the deck's table: {"deck", "title", "suits", "cards"}.
    """
    with library_errors():
        chosen = deck_named(name)
    if as_json:
        print_json(chosen.table())
        return
    table = Table(title=chosen.title, show_edge=False)
    table.add_column("code")
    table.add_column("card")
    table.add_column("rank", justify="right")
    table.add_column("suits")
    for card in chosen.cards:
        table.add_row(chosen.card_json(card)["code"], *_card_cells(card))
    stdout().print(table)


# ---- games ---------------------------------------------------------------------------------------


def _game_json(cls: type[Game[Any]]) -> dict[str, Any]:
    game = default_game(cls)
    options = {o.spec.name: o for o in game_options(cls)}
    parameters = []
    for spec in cls.parameters():
        option = options[spec.name]
        names = [*option.flags, option.off_flag] if spec.kind == "bool" else list(option.flags)
        parameters.append({**attrs.asdict(spec), "option": option.flag, "options": names})
    examples = []
    for params in cls.examples():
        flat = example_options(cls, params)
        flags = None if flat is None else to_flags(game_options(cls), flat)
        examples.append({"params": params, "options": flags})
    return {
        "name": cls.name,
        "title": cls.title,
        "summary": cls.summary,
        "deck": cls.deck_name,
        "deal_order": cls.deal_order,
        "playable": True,
        "parameters": parameters,
        "examples": examples,
        "solver": game is not None and game.solver() is not None,
        "bots": list(game.bots()) if game is not None else [],
        "odds_presets": list(game.odds_presets()) if game is not None else [],
        "commands": [c.name for c in cls.commands() if isinstance(c, click.Command)],
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def games(as_json: bool) -> None:
    """List the games, their parameters (with their command-line options) and examples.

    `--json` prints a list of {"name", "title", "summary", "deck", "deal_order", "parameters",
    "examples", "solver", "bots", "odds_presets", "commands"}.
    """
    if as_json:
        print_json([_game_json(cls) for cls in GAMES.values()])
        return
    console = stdout()
    for name, cls in GAMES.items():
        info = _game_json(cls)
        console.print(Text.assemble((name, "bold"), f"  ({cls.title})"))
        if cls.summary:
            console.print(Text(cls.summary))
        table = Table(show_edge=False)
        table.add_column("parameter / option", no_wrap=True)
        table.add_column("default")
        table.add_column("allowed")
        table.add_column("help", ratio=1)
        for spec, option in zip(cls.parameters(), game_options(cls), strict=True):
            label = Text(spec.name, style="bold")
            label.append(f"\n{option.usage}", style="cyan")
            for alias in option.flags[1:]:
                label.append(f"\n{alias}", style="cyan")
            table.add_row(label, default_text(spec), allowed_text(spec), Text(spec.help))
        console.print(table)
        note = frontend_for(cls).options_note
        if note:
            console.print(Text(note, style="dim"))
        facts = [f"deck: {cls.deck_name}", f"bots: {', '.join(info['bots']) or 'none'}"]
        facts.append("solver: yes" if info["solver"] else "solver: none")
        if info["odds_presets"]:
            facts.append(f"odds presets: {', '.join(info['odds_presets'])}")
        if info["commands"]:
            facts.append(f"commands: skillcheck {name} {'|'.join(info['commands'])}")
        console.print(Text(" · ".join(facts), style="dim"))
        examples = example_commands(cls, "play")
        if examples:
            console.print(Text("Examples:", style="bold"))
            for line in examples:
                console.print(Text(f"  {line}"), soft_wrap=True)
        console.print()


# ---- verify --------------------------------------------------------------------------------------


@click.command(name="verify")
@click.argument("record_file", metavar="RECORD", type=click.File("r", encoding="utf-8"))
def verify_command(record_file: TextIO) -> None:
    """Replay a game record and check its outcome.

    RECORD is a JSON file written by `play --record`, a check session's revealed record (its seed
    and salt are checked against the commitment published before play), or - for stdin. Exits 0
    and prints OK with the outcome, or exits 1 with the reason the record does not check out.
    """
    from skillcheck.sessions import (
        REVEALED_FORMAT,
        CheckStatus,
        RevealedRecord,
        seed_provenance,
    )

    try:
        text = record_file.read()
    except UnicodeDecodeError as exc:
        fail(
            f"{record_file.name} is not a JSON record: it is not UTF-8 text ({exc.reason} at "
            f"byte {exc.start})",
            EXIT_INVALID_RECORD,
        )
    check: RevealedRecord | None = None
    with library_errors(EXIT_INVALID_RECORD):
        data = read_json_object(text, "a game record")
        if data.get("format") == REVEALED_FORMAT:
            # A check's revealed record: the seed and salt must match the published commitment.
            check = RevealedRecord.from_dict(data)
            state, record = check.verify(), check.record
        else:
            record = GameRecord.from_dict(data)
            state = verify(record)
    outcome = state.outcome
    moves = counted(len(state.moves), "move")
    if outcome is not None:
        summary = outcome.summary
    elif check is not None and check.status is CheckStatus.CANCELLED:
        reason = f" ({check.cancel_reason})" if check.cancel_reason else ""
        summary = f"cancelled by the GM after {moves}{reason}"
    else:
        summary = f"in progress after {moves}"
    tier = record.grade(state)
    if tier is not None:
        summary = f"{summary} ({tier.text.lower()})"
    if check is not None:
        summary = f"the seed matches the commitment; {summary}"
    out = stdout()
    out.print(Text.assemble(("OK", "bold green"), f": {summary}"), soft_wrap=True)
    if check is not None:
        # Who chose the deal is part of what the commitment proves (docs/sessions.md).
        who = seed_provenance(check.seed_chosen)
        out.print(f"seed: {who}", soft_wrap=True, highlight=False)
        if check.hints_used:
            taken = counted(check.hints_used, "hint")
            out.print(f"hints: the player took {taken}", soft_wrap=True, highlight=False)
