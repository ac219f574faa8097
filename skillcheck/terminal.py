"""Drawing any game in a terminal with rich: cards of any deck, boards, meters and moves.

A game's terminal front end is a :class:`Frontend`. The base class draws the game's
:class:`~skillcheck.board.Board` (zones, meters, the goal) and offers its moves through
:meth:`Game.move_view <skillcheck.engine.Game.move_view>`, so every registered game can be
played, solved and watched in a terminal without a line of its own. A game that wants its own
look subclasses :class:`Frontend` and overrides what it needs.

The command line finds a game's front end with :func:`frontend_for`, through the hook named
:data:`FRONTEND_HOOK` (``terminal_frontend``), looked up in this order:

1. a classmethod ``terminal_frontend()`` on the game class, returning a :class:`Frontend` or
   None;
2. a module ``frontend`` in the game's own package (beside the module that defines the game
   class) with a function ``terminal_frontend(game_class)`` returning a :class:`Frontend`, or
   None for a class it does not draw;
3. otherwise the generic :class:`Frontend`.

Everything drawn while a check runs comes from the player's observation and the legal moves,
never from the hidden cards (:meth:`Frontend.reveal` is called only once a check is over).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from skillcheck.board import QUIET_MARKS, WORD_MARKS, Board, Meter, Zone
from skillcheck.cards import DECKS, Deck
from skillcheck.errors import SkillcheckError
from skillcheck.words import counted

if TYPE_CHECKING:
    from skillcheck.engine import Game, Move, State
    from skillcheck.solving import Solution

__all__ = [
    "FRONTEND_HOOK",
    "Frontend",
    "card_label",
    "card_style",
    "card_text",
    "code_text",
    "deck_of",
    "drop_blank_lines",
    "frontend_for",
    "item_code",
    "numbered_moves",
    "render_board",
    "suit_style",
    "suit_text",
]

#: The name of the optional hook that gives a game's own terminal front end.
FRONTEND_HOOK = "terminal_frontend"

#: Suit colours for decks whose suits have no colour of their own, in the deck's suit order
#: (the Decktet: moons, suns, waves, leaves, wyrms, knots).
PALETTE = ("bright_blue", "yellow", "cyan", "green", "red", "magenta", "bright_cyan", "white")
#: Suit colours for decks whose suits name one (the standard deck's red and black).
COLOURS = {"red": "red", "black": "default"}
FACE_DOWN = "▒▒"


# ---- cards of any deck ---------------------------------------------------------------------------


@functools.cache
def _suits(deck_name: str) -> dict[str, dict[str, Any]]:
    """The deck's suits by letter, each with its ``style``."""
    out: dict[str, dict[str, Any]] = {}
    for position, suit in enumerate(DECKS[deck_name].suits_json()):
        colour = suit.get("colour")
        style = COLOURS.get(str(colour)) if colour else None
        out[str(suit["letter"])] = {**suit, "style": style or PALETTE[position % len(PALETTE)]}
    return out


def deck_of(card: Any) -> Deck | None:
    """The registered deck whose cards are of ``card``'s type, or None."""
    for deck in DECKS.values():
        if isinstance(card, deck.card_type):
            return deck
    return None


def item_code(item: Any) -> str:
    """The code of a dealt item (deals hold cards, and every card has a ``code``)."""
    return str(getattr(item, "code", item))


def suit_style(deck: Deck, letter: str) -> str:
    """The colour of a suit of ``deck``, by its letter."""
    suit = _suits(deck.name).get(letter)
    return str(suit["style"]) if suit else "white"


def suit_text(deck: Deck, letter: str, *, name: bool = False) -> Text:
    """A suit as its symbol (``☾``), or its symbol and name (``☾ moons``), coloured."""
    suit = _suits(deck.name).get(letter, {"symbol": letter, "name": letter, "style": "white"})
    text = f"{suit['symbol']} {str(suit['name']).lower()}" if name else str(suit["symbol"])
    return Text(text, style=str(suit["style"]))


def _info(card: Any, deck: Deck | None) -> tuple[dict[str, Any], Deck | None]:
    deck = deck or deck_of(card)
    if deck is None:
        return {"code": item_code(card), "name": str(card), "label": str(card)}, None
    return deck.card_json(card), deck


def card_style(card: Any, deck: Deck | None = None) -> str:
    """The colour of ``card``: its first suit's."""
    info, deck = _info(card, deck)
    suits = info.get("suits") or []
    return suit_style(deck, str(suits[0])) if deck is not None and suits else "white"


def card_text(card: Any, deck: Deck | None = None) -> Text:
    """A card in a few characters, coloured by suit: ``Lunatic 6 ☾≈`` (a name, its rank and its
    suits' symbols), or the card's glyph where its deck has one (``A♠``)."""
    info, deck = _info(card, deck)
    style = card_style(card, deck)
    if info.get("glyph"):
        return Text(str(info["glyph"]), style=f"bold {style}")
    name = str(info.get("short_name") or info.get("name") or info["code"])
    text = Text(name, style=f"bold {style}")
    rank = info.get("rank")
    if rank and str(rank) not in name.split():
        text.append(f" {rank}")
    suits = [str(s) for s in info.get("suits") or []]
    if deck is not None and suits:
        symbols = Text()
        for letter in suits:
            symbols.append_text(suit_text(deck, letter))
        if symbols.plain not in name:
            text.append(" ")
            text.append_text(symbols)
    return text


def card_label(card: Any, deck: Deck | None = None) -> Text:
    """A card as the library's messages name it (``the Lunatic (6)``), coloured by suit."""
    info, deck = _info(card, deck)
    return Text(str(info.get("label") or info["code"]), style=card_style(card, deck))


def code_text(code: str | None, deck: Deck | None) -> Text:
    """A card code drawn as :func:`card_text`; None is a face-down card."""
    if code is None:
        return Text(FACE_DOWN, style="dim")
    if deck is None:
        return Text(code, style="bold")
    try:
        card = deck.parse(code)
    except SkillcheckError:
        return Text(code, style="bold")
    return card_text(card, deck)


def _game_deck(game: Game[Any]) -> Deck | None:
    return DECKS.get(getattr(game, "deck_name", ""))


# ---- the generic board ---------------------------------------------------------------------------


def _zone_cards(zone: Zone, deck: Deck | None) -> RenderableType:
    if zone.count == 0:
        return Text("(empty)", style="dim")
    shown = [code_text(code, deck) for code in zone.cards]
    unseen = zone.count - len(zone.cards)
    if zone.layout == "pile":
        if not zone.cards or zone.cards[-1] is None:
            return Text(f"{counted(zone.count, 'card')} face down")
        under = zone.count - 1
        if under <= 0:
            return shown[-1]
        more = f" on top, {counted(under, 'more card')}"
        return Text.assemble(shown[-1], more, " face down" if unseen > 0 else "")
    cards: list[RenderableType] = list(shown)
    if unseen > 0:
        cards.insert(0, Text(f"+{unseen} unseen", style="dim"))
    return Columns(cards, padding=(0, 2))


def _zone_marks(zone: Zone) -> Text:
    """A zone's marks in words, as the page shows them: "(1 of 4)", not "(lead, progress: ...)"."""
    marks = []
    for key, value in zone.extras.items():
        if value is True:
            if key not in QUIET_MARKS:
                marks.append(key.replace("_", " "))
        elif value not in (False, None):
            marks.append(str(value) if key in WORD_MARKS else f"{key.replace('_', ' ')}: {value}")
    return Text(f"  ({', '.join(marks)})" if marks else "", style="dim")


def _slot_grid(zones: Sequence[Zone], deck: Deck | None) -> Table:
    """Zones with grid places (``slot`` zones with ``x`` and ``y``) drawn where they lie."""
    width = max(z.x or 0 for z in zones) + 1
    grid = Table.grid(padding=(0, 1))
    for _ in range(width):
        grid.add_column()
    for y in sorted({z.y or 0 for z in zones}):
        row: list[RenderableType] = [Text("")] * width
        for zone in zones:
            if (zone.y or 0) == y:
                cell = code_text(zone.cards[-1], deck) if zone.cards else Text("··", style="dim")
                row[zone.x or 0] = cell
        grid.add_row(*row)
    return grid


def _meter_text(meter: Meter) -> Text:
    target = meter.target
    if target is not None and 0 < target <= 40:
        filled = max(0, min(meter.value, target))
        bar = Text("■" * filled, style="green")
        bar.append("□" * (target - filled), style="dim")
        return Text.assemble(bar, f"  {meter.text}")
    return Text(meter.text)


def render_board(
    board: Board, deck: Deck | None, *, title: str = "", compact: bool = False
) -> list[RenderableType]:
    """The board's zones, meters and goal, as rich renderables (one per block)."""
    parts: list[RenderableType] = []
    if title:
        parts.append(Text(title, style="italic"))
    placed = [z for z in board.zones if z.layout == "slot" and z.x is not None]
    listed = [z for z in board.zones if z not in placed]
    if placed:
        parts += [Text(), _slot_grid(placed, deck)]
    if listed:
        table = Table(box=None, pad_edge=False, padding=(0, 1), show_header=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for zone in listed:
            cards = _zone_cards(zone, deck)
            marks = _zone_marks(zone)
            cell: RenderableType = Group(cards, marks) if marks.plain and not compact else cards
            table.add_row(zone.label, cell)
        parts += [Text(), table]
    if board.meters:
        meters = Table.grid(padding=(0, 2))
        meters.add_column(style="bold")
        meters.add_column()
        for meter in board.meters:
            meters.add_row(meter.label, _meter_text(meter))
        parts += [Text(), meters]
    if board.goal and not compact:
        parts += [Text(), Text.assemble(("Goal ", "bold"), board.goal)]
    return parts


def numbered_moves(items: Sequence[tuple[str, Text]]) -> list[RenderableType]:
    """``1. code  description`` for each move, in columns (or a line saying there is none)."""
    if not items:
        return [Text("No legal move.", style="bold")]
    width = max(len(code) for code, _ in items) + 1
    rows = [
        Text.assemble((f"{i:>2}. ", "bold"), (f"{code:<{width}} ", "bold cyan"), text)
        for i, (code, text) in enumerate(items, 1)
    ]
    return [Text("Moves", style="bold"), Columns(rows, column_first=True, padding=(0, 3))]


def drop_blank_lines(parts: Sequence[RenderableType]) -> list[RenderableType]:
    return [p for p in parts if not (isinstance(p, Text) and not p.plain)]


# ---- front ends ----------------------------------------------------------------------------------


class Frontend:
    """How a terminal draws one game. This base class is the generic front end: it draws
    :meth:`Game.board <skillcheck.engine.Game.board>` and the moves' views, so it plays any
    game. Subclass it for a game's own look; every method may be overridden alone.
    """

    #: A note for ``skillcheck games`` on how the options combine (plain words, or empty).
    options_note: str = ""

    def render(
        self,
        game: Game[Any],
        observation: Any,
        moves: Sequence[Move] | None,
        compact: bool = False,
    ) -> RenderableType:
        """The position, drawn from the observation only; ``moves`` are the legal moves to
        number (None once the check is over); ``compact`` for a short terminal."""
        parts = render_board(
            game.board(observation), _game_deck(game), title=game.describe(), compact=compact
        )
        if moves is not None:
            views = [game.move_view(observation, m) for m in moves]
            parts += [Text(), *numbered_moves([(v.code, Text(v.text)) for v in views])]
        return Group(*(drop_blank_lines(parts) if compact else parts))

    def describe_move(self, game: Game[Any], observation: Any, move: Move) -> Text:
        """A legal move in words, from the observation before it is made."""
        return Text(game.move_view(observation, move).text)

    def rules(self, game: Game[Any]) -> str:
        """The rules in brief, for the in-game help: by default the game's goal."""
        return game.goal_text()

    def reveal(self, game: Game[Any], state: State[Any]) -> RenderableType | None:
        """Once a check is over: the cards the player never saw (None when there are none)."""
        hidden = state.hidden_codes()
        deal = state.deal or ()
        cards = [item for item in deal if item_code(item) in hidden]
        if not cards:
            return None
        deck = _game_deck(game)
        return Group(
            Text(f"Never seen, in dealing order ({game.deal_order}):", style="dim"),
            Columns([card_text(c, deck) for c in cards], padding=(0, 3)),
        )

    def game_for_deal(
        self, cls: type[Game[Any]], options: Mapping[str, Any], text: str
    ) -> tuple[Game[Any], tuple[Any, ...]]:
        """The game and the deal for ``skillcheck solve GAME --deal TEXT``: by default the game
        of the options and :meth:`Game.parse_deal <skillcheck.engine.Game.parse_deal>`."""
        from skillcheck.odds import game_from_options

        game = game_from_options(cls.name, options)
        return game, tuple(game.parse_deal(text))

    def refine_solution(
        self, game: Game[Any], start: State[Any], solution: Solution[Any]
    ) -> Solution[Any]:
        """A solver's winning line made fit to print (shorter, tidier) from ``start``; by
        default the line as the solver gave it."""
        return solution


@functools.cache
def _module_frontend(module_name: str) -> Any:
    package = module_name.rpartition(".")[0]
    if not package:
        return None
    name = f"{package}.frontend"
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return importlib.import_module(name) if found is not None else None


def frontend_for(cls: type[Game[Any]]) -> Frontend:
    """The terminal front end of a game class (see the module's docstring for the lookup)."""
    found: Any = None
    hook = getattr(cls, FRONTEND_HOOK, None)
    if callable(hook):
        found = hook()
    if found is None:
        module = _module_frontend(cls.__module__)
        module_hook = getattr(module, FRONTEND_HOOK, None)
        if callable(module_hook):
            found = module_hook(cls)
    if found is None:
        return Frontend()
    if not isinstance(found, Frontend):
        raise TypeError(
            f"{cls.__name__}.{FRONTEND_HOOK} gave {found!r}: a front end is a "
            "skillcheck.terminal.Frontend"
        )
    return found
