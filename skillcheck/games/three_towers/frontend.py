"""Three Towers in a terminal: its own look for ``skillcheck play``, ``solve`` and ``autoplay``.

The command line finds this module through the ``terminal_frontend`` hook
(:func:`skillcheck.terminal.frontend_for`): the towers as a table with the height of each tower
made only of the check's suit, the deck's top card, the progress towards the goal, and each move
in words. It also reads a deal for ``skillcheck solve three-towers --deal CARDS`` (the level
follows from the cards dealt) and shortens the solver's winning line before it is printed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from skillcheck.cards import DECKS, Deck
from skillcheck.cards.decktet import Card, Suit, parse_cards
from skillcheck.engine import Game, Move, State
from skillcheck.errors import ParseError
from skillcheck.games.three_towers.rules import (
    DECK,
    Ivory,
    Quota,
    ThreeTowers,
    ThreeTowersObservation,
    ThreeTowersState,
    TowerMove,
)
from skillcheck.solving import Solution
from skillcheck.terminal import (
    Frontend,
    card_label,
    card_style,
    card_text,
    drop_blank_lines,
    numbered_moves,
    suit_style,
)
from skillcheck.words import counted

__all__ = [
    "FRONTEND",
    "ThreeTowersFrontend",
    "describe_move",
    "game_from_deal",
    "render",
    "rules",
    "terminal_frontend",
]


def _deck() -> Deck:
    return DECKS[ThreeTowers.deck_name]


def _suit_style(suit: Suit) -> str:
    return suit_style(_deck(), suit.letter)


def _pure_height(towers: Sequence[Sequence[Card]], suit: Suit) -> int:
    return max((len(t) for t in towers if all(c.bears(suit) for c in t)), default=0)


def _tower_name(tower: Sequence[Card], number: int) -> Text:
    if not tower:
        return Text(f"empty tower {number}")
    top = tower[-1]
    return Text.assemble(f"tower {number} (", Text(top.name, style=card_style(top)), ")")


def describe_move(game: ThreeTowers, observation: ThreeTowersObservation, move: TowerMove) -> Text:
    """A move in words: ``the Market (6) from the deck onto empty tower 2``."""
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


def _short_move(game: ThreeTowers, observation: ThreeTowersObservation, move: TowerMove) -> Text:
    """A move in a few words, for small screens: ``Savage onto Battle``, ``Forest to empty 3``."""
    towers = observation.towers
    source = towers[move.source - 1] if move.source != DECK else ()
    card = observation.top_card if move.source == DECK else (source[-1] if source else None)
    target = towers[move.target - 1]
    text = Text(card.short_name, style=card_style(card)) if card else Text("nothing")
    if target:
        text.append_text(Text.assemble(" onto ", (target[-1].short_name, card_style(target[-1]))))
    else:
        text.append(f" to empty {move.target}")
    return text


def rules(game: ThreeTowers) -> str:
    """The rules in brief, for the in-game help."""
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


def render(
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
        towers.add_column(Text(suit.symbol, style=_suit_style(suit)), justify="right")
    towers.add_column("Cards, bottom → top")
    for number, tower in enumerate(observation.towers, 1):
        row: list[RenderableType] = [str(number)]
        if suit is not None:
            pure = bool(tower) and all(c.bears(suit) for c in tower)
            row.append(Text(str(len(tower)), style=f"bold {_suit_style(suit)}") if pure else "")
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
                f" on top, {counted(under, 'more card')} face down",
            ),
        )
    if isinstance(variant, Quota):
        quota, suit = variant.quota, variant.suit
        height = _pure_height(observation.towers, suit)
        bar = Text("■" * min(height, quota), style=_suit_style(suit))
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
        describe = _short_move if compact else describe_move
        parts.append(Text())
        parts += numbered_moves([(m.code, describe(game, observation, m)) for m in moves])
    if compact:
        parts = drop_blank_lines(parts)
    return Group(*parts)


def game_from_deal(cls: type[ThreeTowers], options: Mapping[str, Any], text: str) -> ThreeTowers:
    """The game an explicit deal implies: its level is the highest rank dealt (unless
    ``--level`` is given); a suit alone is the ivory goal; a suit and a quota make a quota check
    whose skill and suited cards are the deal's."""
    cards = parse_cards(text)
    numerals = [c for c in cards if c.rank is not None and c.rank.is_numeral]
    if not numerals:
        raise ParseError("the deal holds no numerals 2-9: give the deck order, top card first")
    params = {k: options[k] for k in ("spaces", "undo", "move_limit") if options.get(k) is not None}
    level = options.get("level")
    params["level"] = level if level is not None else max(int(c.rank) for c in numerals if c.rank)
    suit, quota = options.get("suit"), options.get("quota")
    if suit is not None and quota is not None:
        the_suit = Suit.parse(suit)
        chosen = [c for c in cards if c.bears(the_suit)]
        _deal_agrees(options, chosen, the_suit)
        return cls.from_options(suit=suit, quota=quota, suited_cards=chosen or None, **params)
    if quota is not None:
        raise ParseError("--quota needs --suit: the quota is a height of one suit's tower")
    return cls.from_options(suit=suit, **params)


def _deal_agrees(options: Mapping[str, Any], chosen: Sequence[Card], suit: Suit) -> None:
    """A quota check's skill and suited cards are the deal's: a ``--skill`` or
    ``--suited-cards`` given beside the deal must say the same, or it is refused (it used to be
    dropped without a word)."""
    held = f"the deal holds {counted(len(chosen), f'card of {suit.title}')}"
    skill = options.get("skill")
    if skill is not None and skill != len(chosen):
        raise ParseError(
            f"--skill {skill} does not match the deal: {held}, and the deal sets the skill "
            f"(give --skill {len(chosen)} or leave it out)"
        )
    given = options.get("suited_cards")
    if given is not None and set(parse_cards(given)) != set(chosen):
        names = ", ".join(c.name for c in chosen) or "none"
        raise ParseError(
            f"the suited cards given do not match the deal: {held} ({names}), and the deal "
            "sets them (leave them out)"
        )


class ThreeTowersFrontend(Frontend):
    """Three Towers' own look in a terminal (it keeps the command line's first design)."""

    options_note = (
        "The variant follows from the options: without --suit the standard game; --suit alone, "
        "the ivory variant; --suit with --skill and --quota (or --suited-cards), the quota check."
    )

    def render(
        self,
        game: Game[Any],
        observation: Any,
        moves: Sequence[Move] | None,
        compact: bool = False,
    ) -> RenderableType:
        assert isinstance(game, ThreeTowers)
        tower_moves = None if moves is None else [m for m in moves if isinstance(m, TowerMove)]
        return render(game, observation, tower_moves, compact)

    def describe_move(self, game: Game[Any], observation: Any, move: Move) -> Text:
        assert isinstance(game, ThreeTowers) and isinstance(move, TowerMove)
        return describe_move(game, observation, move)

    def rules(self, game: Game[Any]) -> str:
        assert isinstance(game, ThreeTowers)
        return rules(game)

    def reveal(self, game: Game[Any], state: State[Any]) -> RenderableType | None:
        """The deck's cards, top first (the top card was seen; the rest were face down)."""
        hidden: Sequence[Card] = state.remaining_deck if isinstance(state, ThreeTowersState) else ()
        if len(hidden) <= 1:
            return None
        return Group(
            Text("Still in the deck, top first:", style="dim"),
            Columns([card_text(c) for c in hidden], padding=(0, 3)),
        )

    def game_for_deal(
        self, cls: type[Game[Any]], options: Mapping[str, Any], text: str
    ) -> tuple[Game[Any], tuple[Any, ...]]:
        assert issubclass(cls, ThreeTowers)
        game = game_from_deal(cls, options, text)
        cards = parse_cards(text)
        game.state_from_deal(cards)  # the deal must be exactly this game's deck
        return game, cards

    def refine_solution(
        self, game: Game[Any], start: State[Any], solution: Solution[Any]
    ) -> Solution[Any]:
        """The solver's line is a search path with many detours: shorten it (loops cut, each
        stretch between two deck placements replaced by a shortest or shortcut path)."""
        if solution.result != "win" or not solution.moves:
            return solution
        from skillcheck.games.three_towers.lines import shorten_line

        assert isinstance(game, ThreeTowers) and isinstance(start, ThreeTowersState)
        return attrs.evolve(solution, moves=shorten_line(game, start, solution.moves))


FRONTEND = ThreeTowersFrontend()


def terminal_frontend(cls: type[Game[Any]]) -> Frontend | None:
    """The ``terminal_frontend`` hook: this front end for Three Towers, None for another game."""
    return FRONTEND if issubclass(cls, ThreeTowers) else None
