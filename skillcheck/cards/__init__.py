"""Decks of cards: the Decktet (``decktet``) and the standard 52-card deck (``standard``).

Each deck parses its own codes: ``AS`` is the Ace of Spades in the standard deck and the Ace of
Suns in the Decktet, and a game names the deck it uses (``Game.deck_name``). :data:`DECKS` is
the registry front ends read (``skillcheck deck NAME``, ``GET /v1/decks/{deck}``).

For convenience the Decktet's names (``Card``, ``Suit``, ``Rank``, ...) are also importable from
here, as they were before there was a second deck.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from attrs import frozen

from skillcheck.errors import ParseError, UnknownCardError, UnknownDeckError, quoted

__all__ = [
    "DECKS",
    "CardLike",
    "Deck",
    "deck_named",
    "refuse_repeated",
    "register_deck",
    "repeated",
]


class CardLike(Protocol):
    """What every deck's cards offer a front end: a compact code and names for people."""

    @property
    def code(self) -> str: ...

    @property
    def label(self) -> str: ...


@frozen
class Deck:
    """One deck: its cards in canonical order and how to read and show them.

    ``card_json`` gives one card as plain JSON (at least ``code``, ``name`` and ``label``);
    ``suits_json`` the deck's suits (at least ``letter`` and ``name``), so a page draws any deck
    from :meth:`table` alone.
    """

    name: str
    title: str
    cards: tuple[Any, ...]
    card_type: type
    parse: Callable[[Any], Any]
    card_json: Callable[[Any], dict[str, Any]]
    suits_json: Callable[[], list[dict[str, Any]]]
    code_help: str

    def parse_all(self, items: str | Iterable[Any]) -> tuple[Any, ...]:
        """Cards from a string or from an iterable of names or codes.

        In a string, items are separated by commas (``"2 of Spades, 7S"``, the line ``skillcheck
        deal`` prints) or by spaces (``"2S 7S"``): each comma-separated part is one card if it
        reads as one (a name may hold spaces), else its words are cards. A blank part is
        skipped. An unknown card's error names the word at fault, or the whole part when its
        first word is no card (a misspelt name: "Jack of Diamnds")."""
        if not isinstance(items, str):
            return tuple(self.parse(item) for item in items)
        cards: list[Any] = []
        for part in (p.strip() for p in items.split(",")):
            if not part:
                continue
            try:
                cards.append(self.parse(part))
                continue
            except UnknownCardError as whole:
                words = part.split()
                if len(words) == 1:
                    raise
                try:
                    cards.append(self.parse(words[0]))
                except UnknownCardError:
                    raise whole from None
            cards.extend(self.parse(word) for word in words[1:])
        return tuple(cards)

    def table(self) -> dict[str, Any]:
        """The whole deck as plain data: ``{"deck", "title", "suits", "cards"}``."""
        return {
            "deck": self.name,
            "title": self.title,
            "suits": self.suits_json(),
            "cards": [self.card_json(c) for c in self.cards],
        }


def repeated(cards: Iterable[Any]) -> list[Any]:
    """The cards found more than once in ``cards``, each once, in the order first seen (for
    a refusal that names them: "the deal holds the Pact twice")."""
    seen: set[Any] = set()
    twice: list[Any] = []
    for item in cards:
        if item in seen and item not in twice:
            twice.append(item)
        seen.add(item)
    return twice


def refuse_repeated(
    cards: Iterable[Any], what: str, written: Callable[[Any], str] = lambda card: card.label
) -> None:
    """Raise :class:`~skillcheck.errors.ParseError` naming each card ``cards`` holds more than
    once ("the deal holds the Pact twice"); ``written`` spells a card (its label by default)."""
    twice = repeated(cards)
    if twice:
        raise ParseError(f"{what} holds {', '.join(written(card) for card in twice)} twice")


DECKS: dict[str, Deck] = {}


def register_deck(deck: Deck) -> Deck:
    DECKS[deck.name] = deck
    return deck


def deck_named(name: str) -> Deck:
    """A deck by its registry name; :class:`UnknownDeckError` names the decks there are."""
    try:
        return DECKS[name]
    except KeyError:
        raise UnknownDeckError(
            f"unknown deck {quoted(name)}: the decks are {', '.join(sorted(DECKS))}"
        ) from None


# The built-in decks register themselves on import (after the names above exist).
from skillcheck.cards import decktet as _decktet  # noqa: E402
from skillcheck.cards import standard as _standard  # noqa: E402
from skillcheck.cards.decktet import (  # noqa: E402
    DECKTET,
    NUMERALS,
    Card,
    Rank,
    Suit,
    card,
    parse_cards,
    split_codes,
)

__all__ += ["DECKTET", "NUMERALS", "Card", "Rank", "Suit", "card", "parse_cards", "split_codes"]
del _decktet, _standard
