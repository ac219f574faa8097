"""Game options generated from each game's :class:`~skillcheck.engine.ParameterSpec`, and the
commands that take a game: one click subcommand per registered game.

Every parameter of a game becomes an option named after it (``suited_cards`` is
``--suited-cards``): a whole number (``--level 6``), a choice (``--suit moons``), cards of the
game's deck (``--suited-cards Author,Forest``; a game with a single cards parameter also takes
``--cards``) or a switch (``--wrap/--no-wrap``). An option whose name a command already uses
gets the prefix ``--game-``. The values go to the library unchanged (the game checks them, so
its messages are the ones shown) through ``Game.params_from_options`` and
:func:`~skillcheck.serialization.game_from_params`.
"""

from __future__ import annotations

import copy
import re
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import click
from attrs import frozen

from skillcheck.cards import DECKS, Deck
from skillcheck.engine import GAMES, Game, ParameterSpec, game_class
from skillcheck.errors import ParameterError, ParseError, SkillcheckError, quoted
from skillcheck.serialization import game_from_params
from skillcheck.terminal import item_code

from .common import library_errors

__all__ = [
    "GameCommand",
    "GameGroup",
    "GameOption",
    "build_game",
    "command_help",
    "default_game",
    "example_commands",
    "example_options",
    "game_options",
    "parse_range",
    "read_cards",
    "read_options",
    "read_values",
    "to_flags",
]

#: The option that every game with exactly one cards parameter also accepts.
CARDS_ALIAS = "--cards"


@frozen
class GameOption:
    """One game parameter as a command-line option."""

    spec: ParameterSpec
    #: The option's names, the main one first (a switch's "off" name is :attr:`off_flag`).
    flags: tuple[str, ...]
    #: The keyword click passes the value under.
    dest: str

    @property
    def flag(self) -> str:
        return self.flags[0]

    @property
    def off_flag(self) -> str:
        return "--no-" + self.flag[2:]

    def alias_dest(self, alias: str) -> str:
        """The keyword click passes an alias's value under (each alias is an option of its own,
        so that a message names the option that was typed)."""
        return self.dest + "__" + re.sub(r"\W", "_", alias.lstrip("-"))

    def pop(self, kwargs: dict[str, Any]) -> tuple[str, Any] | None:
        """``(the option typed, its value)`` removed from ``kwargs``; None if not given. Both a
        name and its alias given is a :class:`ParseError`."""
        given = [(self.flag, kwargs.pop(self.dest, None))]
        given += [(alias, kwargs.pop(self.alias_dest(alias), None)) for alias in self.flags[1:]]
        given = [(flag, value) for flag, value in given if value is not None]
        if len(given) > 1:
            raise ParseError(
                f"{' and '.join(flag for flag, _ in given)} name the same parameter: give one"
            )
        return given[0] if given else None

    @property
    def usage(self) -> str:
        """The option as ``skillcheck games`` lists it: ``--level``, ``--wrap/--no-wrap``."""
        return f"{self.flag}/{self.off_flag}" if self.spec.kind == "bool" else self.flag


def game_options(cls: type[Game[Any]], taken: Collection[str] = ()) -> tuple[GameOption, ...]:
    """The options of ``cls``'s parameters; ``taken`` are option names the command already has."""
    specs = cls.parameters()
    cards = [s for s in specs if s.kind == "cards"]
    out: list[GameOption] = []
    for spec in specs:
        base = spec.name.replace("_", "-")
        flag = f"--{base}"
        if flag in taken or (spec.kind == "bool" and f"--no-{base}" in taken):
            flag = f"--game-{base}"
        flags: tuple[str, ...] = (flag,)
        alias_free = CARDS_ALIAS not in taken and all(s.name != "cards" for s in specs)
        if spec.kind == "cards" and len(cards) == 1 and alias_free and flag != CARDS_ALIAS:
            flags += (CARDS_ALIAS,)
        dest = "param_" + re.sub(r"\W", "_", spec.name)
        out.append(GameOption(spec, flags, dest))
    return tuple(out)


def allowed_text(spec: ParameterSpec) -> str:
    """The values a parameter allows, in a few words."""
    if spec.kind == "int":
        if spec.minimum is not None and spec.maximum is not None:
            return f"{spec.minimum}..{spec.maximum}"
        if spec.minimum is not None:
            return f"{spec.minimum} or more"
        return "a whole number" if spec.maximum is None else f"up to {spec.maximum}"
    if spec.kind == "choice":
        return ", ".join(spec.choices or ())
    if spec.kind == "bool":
        return "on or off"
    deck = DECKS.get(spec.deck or "")
    if deck is None:
        return f"cards of the deck {spec.deck}"
    title = deck.title.removeprefix("The ")  # "The Decktet": a name, its capital kept
    return f"cards of the {title if title != deck.title else title[:1].lower() + title[1:]}"


def default_text(spec: ParameterSpec) -> str:
    if spec.default is None:
        return "none"
    if isinstance(spec.default, bool):
        return "on" if spec.default else "off"
    if isinstance(spec.default, list | tuple):
        return ",".join(item_code(c) for c in spec.default)
    return str(spec.default)


def option_help(spec: ParameterSpec, *, ranges: bool = False) -> str:
    """The help of a parameter's option: its help, allowed values and default."""
    allowed = allowed_text(spec)
    if spec.kind == "cards":
        deck = DECKS.get(spec.deck or "")
        allowed += ", names or codes separated by commas"
        if deck is not None:
            allowed += f" ({deck.code_help})"
    elif ranges and spec.kind == "int":
        allowed += "; a number, a range (2..5) or a list (1,3)"
    elif ranges and spec.kind == "choice":
        allowed += "; one, or a list (a,b)"
    said = f"{spec.help[:1].upper()}{spec.help[1:]}. Allowed: {allowed}."
    if spec.default is None and any(w in spec.help for w in ("left out", "default:", "(none:")):
        return said  # the help says what leaving it out does ("off in basic, on in tritowers")
    return f"{said} Default: {default_text(spec)}."


def click_options(options: Sequence[GameOption], *, ranges: bool = False) -> list[click.Parameter]:
    """click options for ``options``; with ``ranges`` whole numbers and choices take several
    values (a range or a list), as an odds table's axes do."""
    params: list[click.Parameter] = []
    for opt in options:
        spec = opt.spec
        text = option_help(spec, ranges=ranges)
        if spec.kind == "bool":
            params.append(
                click.Option([f"{opt.flag}/{opt.off_flag}", opt.dest], default=None, help=text)
            )
        elif spec.kind == "int" and not ranges:
            params.append(click.Option([opt.flag, opt.dest], type=int, metavar="N", help=text))
        else:
            metavar = {"int": "N|A..B|A,B", "choice": "NAME", "cards": "CARDS"}[spec.kind]
            if ranges and spec.kind == "choice":
                metavar = "NAME[,NAME]"
            params.append(click.Option([opt.flag, opt.dest], metavar=metavar, help=text))
        for alias in opt.flags[1:]:
            same = f"The same as {opt.flag}."
            params.append(click.Option([alias, opt.alias_dest(alias)], metavar=metavar, help=same))
    return params


def read_cards(spec: ParameterSpec, value: Any, flag: str | None = None) -> list[str]:
    """Card codes from what was typed: names or codes separated by commas (or by spaces when
    there is no comma and the whole is not one card's name). An empty value, an empty item
    between commas and an unknown card are :class:`ParseError` naming the option."""
    deck: Deck = DECKS[spec.deck or ""]
    where = flag or "--" + spec.name.replace("_", "-")
    if not isinstance(value, str):
        return [_read_card(deck, str(v), where) for v in value]
    allowed = f"give cards ({deck.title}) by name or code, separated by commas"
    if not value.strip():
        raise ParseError(f"{where} is empty: {allowed}")
    parts = [p.strip() for p in value.split(",")] if "," in value else [value.strip()]
    if not all(parts):
        raise ParseError(f"{where} {quoted(value)} has an empty item between commas: {allowed}")
    codes: list[str] = []
    for part in parts:
        try:
            codes.append(item_code(deck.parse(part)))
        except SkillcheckError as exc:
            if " " not in part:
                raise ParseError(f"{where}: {exc.message}") from None
            codes += [_read_card(deck, word, where) for word in part.split()]
    return codes


def _read_card(deck: Deck, text: str, where: str) -> str:
    try:
        return item_code(deck.parse(text))
    except SkillcheckError as exc:
        raise ParseError(f"{where}: {exc.message}") from None


def read_options(options: Sequence[GameOption], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The flat game options given (removed from ``kwargs``), by parameter name."""
    flat: dict[str, Any] = {}
    for opt in options:
        given = opt.pop(kwargs)
        if given is None:
            continue
        flag, value = given
        cards = opt.spec.kind == "cards"
        flat[opt.spec.name] = read_cards(opt.spec, value, flag) if cards else value
    return flat


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
            f"cannot read {name} {quoted(text)}: give a number, a range like 1..8, or a list "
            "like 2,4,6"
        ) from None
    if not values and ".." in text:
        raise ParseError(
            f"{name} {quoted(text)} runs backwards: write the smaller end first "
            f"({'..'.join(reversed(text.split('..', 1)))})"
        )
    if not values:
        raise ParseError(f"{name} {quoted(text)} is empty: give a number, a range or a list")
    return values


def read_values(
    options: Sequence[GameOption], kwargs: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The options of an odds table (removed from ``kwargs``): ``(fixed, axes)``; an option
    given several values (a range or a list) is an axis."""
    fixed: dict[str, Any] = {}
    axes: dict[str, list[Any]] = {}
    for opt in options:
        spec, given = opt.spec, opt.pop(kwargs)
        if given is None:
            continue
        flag, value = given
        values: list[Any]
        if spec.kind == "int":
            values = parse_range(str(value), spec.name)
        elif spec.kind == "choice":
            values = [v.strip() for v in str(value).split(",") if v.strip()]
            if not values:
                raise ParseError(f"{spec.name} {quoted(value)} is empty: give one or more names")
        elif spec.kind == "cards":
            values = [read_cards(spec, value, flag)]
        else:
            values = [value]
        values = list(dict.fromkeys(values)) if spec.kind != "cards" else values
        if len(values) == 1:
            fixed[spec.name] = values[0]
        else:
            axes[spec.name] = values
    return fixed, axes


def to_flags(options: Sequence[GameOption], flat: Mapping[str, Any]) -> list[str]:
    """The command-line flags that give the flat options back (a replay command)."""
    out: list[str] = []
    for opt in options:
        value = flat.get(opt.spec.name)
        if value is None:
            continue
        if opt.spec.kind == "bool":
            out.append(opt.flag if value else opt.off_flag)
        elif opt.spec.kind == "cards" and not isinstance(value, str):
            out += [opt.flag, ",".join(item_code(c) for c in value)]
        else:
            out += [opt.flag, str(value)]
    return out


def build_game(cls: type[Game[Any]], flat: Mapping[str, Any]) -> Game[Any]:
    """The game of the flat options (library errors propagate). A refused parameter whose name
    is not an English word (``move_limit``) is named by its option (``--move-limit``), as the
    user typed it."""
    try:
        game: Game[Any] = game_from_params(cls.name, cls.params_from_options(dict(flat)))
    except ParameterError as exc:
        message = exc.message
        for opt in game_options(cls):
            if "_" in opt.spec.name:
                message = re.sub(rf"\b{re.escape(opt.spec.name)}\b", opt.flag, message)
        if message == exc.message:
            raise
        raise ParameterError(exc.parameter, message) from None
    return game


def _at(params: Any, path: Sequence[str]) -> Any:
    value = params
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def example_options(cls: type[Game[Any]], params: Mapping[str, Any]) -> dict[str, Any] | None:
    """The fewest flat options that build the same game as the example ``params`` (as records
    write them), or None when the options cannot express it."""
    try:
        target = game_from_params(cls.name, copy.deepcopy(dict(params)))
    except SkillcheckError:
        return None
    flat: dict[str, Any] = {}
    for spec in cls.parameters():
        value = _at(params, spec.where)
        if value is not None:
            flat[spec.name] = read_cards(spec, value) if spec.kind == "cards" else value

    def builds(options: dict[str, Any]) -> bool:
        try:
            return bool(build_game(cls, copy.deepcopy(options)) == target)
        except SkillcheckError:
            return False

    if not builds(flat):
        return None
    for name in list(flat):
        fewer = {k: v for k, v in flat.items() if k != name}
        if builds(fewer):
            flat = fewer
    return flat


def example_commands(
    cls: type[Game[Any]], command: str, *, limit: int | None = None, extra: Sequence[str] = ()
) -> list[str]:
    """Command lines running ``command`` on the game's examples (the first is the demo)."""
    options = game_options(cls)
    lines: list[str] = []
    for params in cls.examples()[:limit]:
        flat = example_options(cls, params)
        if flat is not None:
            lines.append(shlex.join(["skillcheck", command, cls.name, *to_flags(options, flat),
                                     *extra]))  # fmt: skip
    return lines


def default_game(cls: type[Game[Any]]) -> Game[Any] | None:
    """The game with its default parameters, else its first example's (for listing its bots
    and presets), or None."""
    try:
        return build_game(cls, {})
    except SkillcheckError:
        pass
    for params in cls.examples()[:1]:
        try:
            game: Game[Any] = game_from_params(cls.name, copy.deepcopy(dict(params)))
        except SkillcheckError:
            continue
        return game
    return None


def command_help(text: str, examples: Sequence[str]) -> str:
    """A command's help: ``text``, then its examples kept as written."""
    if not examples:
        return text
    return text + "\n\n\b\nExamples:\n" + "\n".join(f"  {line}" for line in examples)


class GameCommand(click.Command):
    """A command whose help ends with examples, made only when the help is shown."""

    def __init__(self, name: str, *, examples: Callable[[], Sequence[str]], **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._examples = examples

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = command_help(self.help or "", self._examples())
        super().format_help_text(ctx, formatter)


class GameGroup(click.Group):
    """A command that takes a game: ``skillcheck COMMAND GAME [OPTIONS]``, with one subcommand
    per registered game (built when used, so games registered later are there too)."""

    def __init__(
        self,
        name: str,
        build: Callable[[type[Game[Any]]], click.Command],
        *,
        help: str,
        short_help: str | None = None,
        examples: Callable[[], Sequence[str]] = list,
    ) -> None:
        super().__init__(
            name,
            help=help,
            short_help=short_help,
            subcommand_metavar="GAME [GAME OPTIONS]...",
        )
        self._build = build
        self._examples = examples

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = command_help(self.help or "", self._examples())
        super().format_help_text(ctx, formatter)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(GAMES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cls = GAMES.get(cmd_name)
        return None if cls is None else self._build(cls)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in GAMES:
            with library_errors():
                game_class(args[0])  # the library's message names the games
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, cls.summary or cls.title) for name, cls in GAMES.items()]
        if rows:
            with formatter.section("Games"):
                formatter.write_dl(rows)
