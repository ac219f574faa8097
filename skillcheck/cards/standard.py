"""The standard 52-card deck: four suits, Ace to King, card codes and names.

A card code is the rank character followed by the suit letter: ``AS`` the Ace of Spades, ``10H``
the 10 of Hearts (ten is written ``10``), ``KD`` the King of Diamonds, ``7C`` the 7 of Clubs.
Parsing also reads ``T`` for ten (``TH``), lowercase, suit symbols (``A♠``), surrounding spaces
and names (``ace of spades``, ``10 of hearts``, ``ten of hearts``, ``the Queen of Clubs``).

These codes belong to this deck only: ``AS`` is the Ace of Spades here and the Ace of Suns in the
Decktet (:mod:`skillcheck.cards.decktet`); a game names the deck it uses.

The canonical order (:data:`STANDARD`, where deals start) is suit by suit in bridge order, Spades,
Hearts, Diamonds, Clubs, and within each suit Ace, 2, ..., 10, Jack, Queen, King: a card's
``index`` is ``13 * suit position + rank - 1`` (``AS`` 0, ``KS`` 12, ``AH`` 13, ``KC`` 51).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from attrs import field, frozen

from skillcheck.cards import DECKS, Deck, register_deck
from skillcheck.errors import UnknownCardError, UnknownSuitError, quoted

__all__ = [
    "STANDARD",
    "STANDARD_DECK",
    "Colour",
    "PlayingCard",
    "StandardRank",
    "StandardSuit",
    "parse_standard_cards",
]


class Colour(enum.StrEnum):
    """A suit's colour (a ``str``: ``Colour.RED == "red"``)."""

    RED = "red"
    BLACK = "black"


class StandardSuit(enum.Enum):
    """The four suits in canonical (bridge) order: Spades, Hearts, Diamonds, Clubs.

    The value is the lowercase plural name, as the converter writes suits.
    """

    SPADES = "spades"
    HEARTS = "hearts"
    DIAMONDS = "diamonds"
    CLUBS = "clubs"

    @property
    def letter(self) -> str:
        """``S``, ``H``, ``D`` or ``C``."""
        return _SUIT_LETTERS[self]

    @property
    def symbol(self) -> str:
        """``♠``, ``♥``, ``♦`` or ``♣``."""
        return _SUIT_SYMBOLS[self]

    @property
    def colour(self) -> Colour:
        """Hearts and Diamonds are red, Spades and Clubs black."""
        return _SUIT_COLOURS[self]

    @property
    def title(self) -> str:
        """The name for people: ``Spades``."""
        return self.value.capitalize()

    @property
    def position(self) -> int:
        """Place in the canonical order: Spades 0, Hearts 1, Diamonds 2, Clubs 3."""
        return _SUIT_POSITIONS[self]

    @classmethod
    def parse(cls, text: str | StandardSuit) -> StandardSuit:
        """A suit from its name (any case, singular or plural), its letter or its symbol."""
        if isinstance(text, StandardSuit):
            return text
        found = _SUIT_LOOKUP.get(str(text).strip().lower())
        if found is None:
            raise UnknownSuitError(
                f"unknown suit {quoted(text)}: the suits of the standard deck are spades (S, ♠), "
                "hearts (H, ♥), diamonds (D, ♦) and clubs (C, ♣)"
            )
        return found


_SUIT_LETTERS = {
    StandardSuit.SPADES: "S",
    StandardSuit.HEARTS: "H",
    StandardSuit.DIAMONDS: "D",
    StandardSuit.CLUBS: "C",
}
_SUIT_SYMBOLS = {
    StandardSuit.SPADES: "♠",
    StandardSuit.HEARTS: "♥",
    StandardSuit.DIAMONDS: "♦",
    StandardSuit.CLUBS: "♣",
}
_SUIT_COLOURS = {
    StandardSuit.SPADES: Colour.BLACK,
    StandardSuit.HEARTS: Colour.RED,
    StandardSuit.DIAMONDS: Colour.RED,
    StandardSuit.CLUBS: Colour.BLACK,
}
_SUIT_POSITIONS = {suit: i for i, suit in enumerate(StandardSuit)}
_SUIT_LOOKUP: dict[str, StandardSuit] = {}
for _suit in StandardSuit:
    for _key in (_suit.value, _suit.value[:-1], _suit.letter.lower(), _suit.symbol):
        _SUIT_LOOKUP[_key] = _suit


class StandardRank(enum.IntEnum):
    """Ranks Ace = 1 to King = 13 (the value is the card's number; Ace is low)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def char(self) -> str:
        """The rank in a code: ``A``, ``2``..``10``, ``J``, ``Q``, ``K`` (ten is two characters)."""
        return _RANK_CHARS[self]

    @property
    def label(self) -> str:
        """The rank for people: ``Ace``, ``2``..``10``, ``Jack``, ``Queen``, ``King``."""
        return _RANK_LABELS[self]

    @property
    def is_face(self) -> bool:
        """Jack, Queen or King."""
        return self >= StandardRank.JACK


_RANK_LABELS = {
    r: (str(int(r)) if StandardRank.TWO <= r <= StandardRank.TEN else r.name.capitalize())
    for r in StandardRank
}
_RANK_CHARS = {r: (label if label.isdigit() else label[0]) for r, label in _RANK_LABELS.items()}
_RANK_WORDS = (
    "ace", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "ten", "jack", "queen", "king",
)  # fmt: skip


def _to_suit(suit: str | StandardSuit) -> StandardSuit:
    return StandardSuit.parse(suit)


@frozen(repr=False, eq=False, order=False)
class PlayingCard:
    """One card of the standard deck.

    Build cards with :meth:`parse`, :meth:`of` or from :data:`STANDARD` (``STANDARD[i]`` is the card
    with ``index`` i); the 52 cards there are the shared instances. ``index``, ``code`` and
    ``colour`` are computed once when a card is made. Two cards are equal when they have the same
    rank and suit; equality and hashing look at ``index`` only (solvers hash cards a lot).
    """

    rank: StandardRank = field(converter=StandardRank)
    suit: StandardSuit = field(converter=_to_suit)
    #: Place in the canonical order (:data:`STANDARD`), 0..51.
    index: int = field(init=False)
    #: The canonical code: ``AS``, ``10H``, ``KD``.
    code: str = field(init=False)
    #: ``Colour.RED`` or ``Colour.BLACK`` (the suit's colour).
    colour: Colour = field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "index", 13 * self.suit.position + int(self.rank) - 1)
        object.__setattr__(self, "code", self.rank.char + self.suit.letter)
        object.__setattr__(self, "colour", self.suit.colour)

    def __eq__(self, other: object) -> bool:
        if type(other) is PlayingCard:
            return self.index == other.index
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if type(other) is PlayingCard:
            return self.index != other.index
        return NotImplemented

    def __hash__(self) -> int:
        return self.index

    def __repr__(self) -> str:
        return f"PlayingCard.parse({self.code!r})"

    def __str__(self) -> str:
        return self.name

    @property
    def value(self) -> int:
        """The rank as a plain number: Ace 1 .. King 13."""
        return int(self.rank)

    @property
    def name(self) -> str:
        """``Ace of Spades``, ``10 of Hearts``, ``Queen of Clubs``."""
        return f"{self.rank.label} of {self.suit.title}"

    @property
    def short_name(self) -> str:
        """The name without a leading "the", as in the Decktet: the same as :attr:`name`."""
        return self.name

    @property
    def title(self) -> str:
        """The name with a capital, as in the Decktet: the same as :attr:`name`."""
        return self.name

    @property
    def label(self) -> str:
        """The card as error messages name it: ``the 10 of Hearts``."""
        return f"the {self.name}"

    @property
    def glyph(self) -> str:
        """Rank and suit symbol: ``A♠``, ``10♥`` (:meth:`parse` reads it back)."""
        return self.rank.char + self.suit.symbol

    @property
    def is_red(self) -> bool:
        return self.colour is Colour.RED

    @classmethod
    def of(cls, rank: int | StandardRank, suit: str | StandardSuit) -> PlayingCard:
        """The shared instance with this rank (1..13) and suit (a suit, its name or letter)."""
        position = StandardSuit.parse(suit).position
        try:
            return STANDARD[13 * position + StandardRank(rank) - 1]
        except ValueError:
            raise UnknownCardError(
                f"there is no rank {quoted(rank)} in the standard deck: ranks run from 1 (Ace) to "
                "13 (King)"
            ) from None

    @classmethod
    def parse(cls, text: str | PlayingCard) -> PlayingCard:
        """A card from its code (``AS``, ``10H``, ``TH``, ``A♠``) or its name (``ace of spades``).

        Any case, surrounding spaces and a leading "the" are fine; anything else raises
        :class:`UnknownCardError` saying what could not be read and what is allowed.
        """
        if type(text) is PlayingCard:
            return text
        key = str(text)
        found = _LOOKUP.get(key)  # the canonical codes, without normalising (the hot path)
        if found is None:
            found = _LOOKUP.get(_normalise(key))
        if found is None:
            raise UnknownCardError(_unknown_card_message(text))
        return found


def _normalise(text: str) -> str:
    key = " ".join(text.strip().lower().split())
    return key[4:] if key.startswith("the ") else key


def _build_deck() -> tuple[PlayingCard, ...]:
    return tuple(PlayingCard(rank, suit) for suit in StandardSuit for rank in StandardRank)


#: All 52 cards in canonical order: Spades, Hearts, Diamonds, Clubs, each Ace, 2, ..., 10, Jack,
#: Queen, King (``STANDARD[card.index] is card``). Deals start from this order (docs/rng.md):
#: ``deck = list(STANDARD); Pcg32(seed).shuffle(deck)``.
STANDARD: tuple[PlayingCard, ...] = _build_deck()

# Every accepted spelling, normalised (lowercase, single spaces, no leading "the"), plus the
# canonical codes as written, so parsing a canonical code is one dictionary look-up.
_LOOKUP: dict[str, PlayingCard] = {}
for _card in STANDARD:
    _rank_codes = {_card.rank.char.lower()} | ({"t"} if _card.rank is StandardRank.TEN else set())
    _rank_words = {_card.rank.label.lower(), _RANK_WORDS[_card.rank - 1]} | _rank_codes
    _suit = _card.suit
    for _r in _rank_codes:
        for _s in (_suit.letter.lower(), _suit.symbol):
            _LOOKUP[_r + _s] = _card
    for _r in _rank_words:
        for _s in (_suit.value, _suit.value[:-1], _suit.letter.lower(), _suit.symbol):
            _LOOKUP[f"{_r} of {_s}"] = _card
    _LOOKUP[_card.code] = _card
_RANK_PREFIXES = {key[:-1] for key in _LOOKUP if " " not in key and key == key.lower()}

_ALLOWED = (
    "a card of the standard deck is a code, a rank (A, 2-10 or T, J, Q, K) then a suit letter "
    "(S, H, D, C) or symbol (♠ ♥ ♦ ♣), such as AS, 10H, TH, KD, or a name such as "
    '"ace of spades", "10 of hearts", "queen of clubs"'
)


def _unknown_card_message(text: object) -> str:
    """Say what in ``text`` could not be read, what is allowed, and whether another deck has it."""
    key = _normalise(str(text))
    if not key:
        return f"no card given ({quoted(text)}): {_ALLOWED}"
    words = key.split()
    if "of" in words:
        at = words.index("of")
        rank, suit = " ".join(words[:at]), " ".join(words[at + 1 :])
        problems = []
        if not rank:
            problems.append('no rank before "of" (ace, 2-10, jack, queen, king)')
        elif not any(k.startswith(f"{rank} of ") for k in _LOOKUP):
            problems.append(f"{quoted(rank)} is not a rank (ace, 2-10, jack, queen, king)")
        if not suit:
            problems.append('no suit after "of" (spades, hearts, diamonds, clubs)')
        elif suit not in _SUIT_LOOKUP:
            problems.append(f"{quoted(suit)} is not a suit (spades, hearts, diamonds, clubs)")
        detail = "; ".join(problems) or 'a card name is a rank, "of" and a suit'
    elif len(key) > 1 and key[:-1] in _RANK_PREFIXES:
        detail = f"{quoted(str(text).strip()[-1])} is not a suit letter (S, H, D, C)"
    elif key[:2] in _RANK_PREFIXES or key[:1] in _RANK_PREFIXES:
        detail = "a code is one rank and one suit letter"
    elif len(key) > 3:
        detail = "it is neither a card code nor a card name"
    else:
        detail = "it does not start with a rank (A, 2-10 or T, J, Q, K)"
    message = f"unknown card {quoted(text)}: {detail}; {_ALLOWED}"
    other = _other_deck_hint(text)
    return f"{message} ({other})" if other else message


def _other_deck_hint(text: object) -> str | None:
    for deck in DECKS.values():
        if deck.name == "standard":
            continue
        try:
            found = deck.parse(text)
        except Exception:  # a hint only: never let another deck's parser change the error
            continue
        return f"{quoted(text)} is {found.label} in the {quoted(deck.name)} deck, not this one"
    return None


def parse_standard_cards(items: str | Iterable[str | PlayingCard]) -> tuple[PlayingCard, ...]:
    """Cards from codes or names separated by commas or spaces, or from an iterable of them
    (:meth:`Deck.parse_all <skillcheck.cards.Deck.parse_all>`): ``"AS 10H KD"``, ``"AS,
    TH,kd"`` and ``"ace of spades, 10 of hearts"`` all work."""
    return STANDARD_DECK.parse_all(items)


def _card_json(c: PlayingCard) -> dict[str, Any]:
    return {
        "code": c.code,
        "name": c.name,
        "short_name": c.short_name,
        "title": c.title,
        "label": c.label,
        "glyph": c.glyph,
        "rank": c.rank.label,
        "rank_char": c.rank.char,
        "value": c.value,
        "suit": c.suit.letter,
        "suits": [c.suit.letter],
        "colour": c.colour.value,
    }


def _suits_json() -> list[dict[str, Any]]:
    return [
        {"letter": s.letter, "name": s.title, "symbol": s.symbol, "colour": s.colour.value}
        for s in StandardSuit
    ]


#: The standard deck in the deck registry (``skillcheck.cards.DECKS["standard"]``).
STANDARD_DECK = register_deck(
    Deck(
        name="standard",
        title="Standard 52-card deck",
        cards=STANDARD,
        card_type=PlayingCard,
        parse=PlayingCard.parse,
        card_json=_card_json,
        suits_json=_suits_json,
        code_help="a rank (A, 2-10 or T, J, Q, K) then a suit letter (S H D C): AS, 10H, TH, KD",
    )
)
