"""The Decktet: six suits, 45 cards, rank order, names and short card codes.

Card codes are the rank's character followed by the card's suit letters in conventional suit
order: ``2MK`` is the Author (2, Moons and Knots), ``AM`` the Ace of Moons, ``PMSL`` the Harvest
(a Pawn), ``CMWK`` the Consul (a Court), ``XM`` the Huntress (the Crown of Moons; X is Roman ten),
``E`` the Excuse. Rank characters (``A 2-9 P C X E``) and suit letters (``M S W L Y K``) never
overlap, so a run of codes written together (``9MS8MS``) reads back unambiguously.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from attrs import frozen

from skillcheck.cards import Deck, register_deck
from skillcheck.errors import UnknownCardError, UnknownSuitError, quoted

__all__ = [
    "DECKTET",
    "DECKTET_DECK",
    "NUMERALS",
    "Card",
    "Rank",
    "Suit",
    "card",
    "parse_cards",
    "split_codes",
]


class Suit(enum.Enum):
    """The six Decktet suits, in conventional order."""

    MOONS = "moons"
    SUNS = "suns"
    WAVES = "waves"
    LEAVES = "leaves"
    WYRMS = "wyrms"
    KNOTS = "knots"

    @property
    def letter(self) -> str:
        return _SUIT_LETTERS[self]

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def title(self) -> str:
        return self.value.capitalize()

    @classmethod
    def parse(cls, text: str | Suit) -> Suit:
        """A suit from its name (any case, singular or plural) or its letter."""
        if isinstance(text, Suit):
            return text
        key = str(text).strip().lower()
        for suit in cls:
            if key in (suit.value, suit.value[:-1], suit.letter.lower()):
                return suit
        if key == "wood":  # the old name of Leaves
            return cls.LEAVES
        valid = ", ".join(s.value for s in cls)
        raise UnknownSuitError(f"unknown suit {quoted(text)}: the suits are {valid}")


_SUIT_LETTERS = {
    Suit.MOONS: "M",
    Suit.SUNS: "S",
    Suit.WAVES: "W",
    Suit.LEAVES: "L",
    Suit.WYRMS: "Y",
    Suit.KNOTS: "K",
}
_SUIT_SYMBOLS = {
    Suit.MOONS: "☾",
    Suit.SUNS: "☼",
    Suit.WAVES: "≈",
    Suit.LEAVES: "♣",
    Suit.WYRMS: "§",
    Suit.KNOTS: "⌘",
}


class Rank(enum.IntEnum):
    """Ranks in play order: Ace < 2 < ... < 9 < Pawn < Court < Crown.

    The enum value is the position in that order; :attr:`number` is the printed Decktet value
    (Crown = 10, Pawns and Courts have none).
    """

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    PAWN = 10
    COURT = 11
    CROWN = 12

    @property
    def number(self) -> int | None:
        if self is Rank.CROWN:
            return 10
        if self in (Rank.PAWN, Rank.COURT):
            return None
        return int(self)

    @property
    def char(self) -> str:
        return _RANK_CHARS[self]

    @property
    def label(self) -> str:
        """The rank for people: ``Ace``, ``2``..``9``, ``Pawn``, ``Court``, ``Crown``."""
        if Rank.TWO <= self <= Rank.NINE:
            return str(int(self))
        return self.name.capitalize()

    @property
    def is_numeral(self) -> bool:
        return Rank.TWO <= self <= Rank.NINE


_RANK_CHARS = {r: (str(int(r)) if r.is_numeral else r.name[0]) for r in Rank}
_RANK_CHARS[Rank.CROWN] = "X"
_CHAR_RANKS = {c: r for r, c in _RANK_CHARS.items()}


@frozen(repr=False, order=False)
class Card:
    """One Decktet card. ``index`` is its place in :data:`DECKTET` (the canonical order)."""

    index: int
    name: str
    rank: Rank | None
    suits: tuple[Suit, ...]

    def __repr__(self) -> str:
        return f"card({self.code!r})"

    def __str__(self) -> str:
        return self.name

    @property
    def code(self) -> str:
        if 0 <= self.index < len(_CODES) and DECKTET[self.index] is self:
            return _CODES[self.index]  # the 45 cards' codes are made once (a hot path)
        return self._make_code()

    def _make_code(self) -> str:
        if self.rank is None:
            return "E"
        return self.rank.char + "".join(s.letter for s in self.suits)

    @property
    def short_name(self) -> str:
        """The name without a leading "the": ``Lunatic``, ``Ace of Moons``."""
        return self.name[4:] if self.name.startswith("the ") else self.name

    @property
    def title(self) -> str:
        """The name with a capital: ``The Lunatic``."""
        return self.name[:1].upper() + self.name[1:]

    @property
    def label(self) -> str:
        """Name with rank, as error messages use it: ``the Lunatic (6)``."""
        if self.rank is None:
            return self.name
        return f"{self.name} ({self.rank.label})"

    def bears(self, suit: Suit) -> bool:
        return suit in self.suits

    def shares_suit(self, other: Card) -> bool:
        return not set(self.suits).isdisjoint(other.suits)

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """A card from its code or its name (any case, "the" optional)."""
        if isinstance(text, Card):
            return text
        found = _LOOKUP.get(_normalise(text))
        if found is None:
            found = _by_code(str(text).strip())
        if found is None:
            names = ", ".join(c.short_name for c in DECKTET)
            raise UnknownCardError(
                f"unknown card {quoted(text)}: give a card name ({names}) or a code such as 2MK"
            )
        return found


def _normalise(text: str) -> str:
    key = " ".join(str(text).strip().lower().replace("-", " ").split())
    return key[4:] if key.startswith("the ") else key


def _by_code(text: str) -> Card | None:
    text = text.upper()
    if not text or (text[0] not in _CHAR_RANKS and text != "E"):
        return None
    if text == "E":
        return DECKTET[-1]
    rank = _CHAR_RANKS[text[0]]
    try:
        suits = frozenset(Suit.parse(ch) for ch in text[1:])
    except UnknownSuitError:
        return None
    if len(suits) != len(text) - 1:
        return None
    return _BY_RANK_SUITS.get((rank, suits))


def _build_deck() -> tuple[Card, ...]:
    m, s, w, le, y, k = Suit
    table: list[tuple[str, Rank | None, tuple[Suit, ...]]] = []
    table += [(f"the Ace of {suit.title}", Rank.ACE, (suit,)) for suit in Suit]
    numerals = [
        ("the Author", 2, (m, k)), ("the Desert", 2, (s, y)), ("the Origin", 2, (w, le)),
        ("the Journey", 3, (m, w)), ("the Painter", 3, (s, k)), ("the Savage", 3, (le, y)),
        ("the Mountain", 4, (m, s)), ("the Sailor", 4, (w, le)), ("the Battle", 4, (y, k)),
        ("the Forest", 5, (m, le)), ("the Discovery", 5, (s, w)), ("the Soldier", 5, (y, k)),
        ("the Lunatic", 6, (m, w)), ("the Penitent", 6, (s, y)), ("the Market", 6, (le, k)),
        ("the Chance Meeting", 7, (m, le)), ("the Castle", 7, (s, k)), ("the Cave", 7, (w, y)),
        ("the Diplomat", 8, (m, s)), ("the Mill", 8, (w, le)), ("the Betrayal", 8, (y, k)),
        ("the Pact", 9, (m, s)), ("the Darkness", 9, (w, y)), ("the Merchant", 9, (le, k)),
    ]  # fmt: skip
    table += [(name, Rank(r), suits) for name, r, suits in numerals]
    table += [
        ("the Harvest", Rank.PAWN, (m, s, le)),
        ("the Watchman", Rank.PAWN, (m, y, k)),
        ("the Light Keeper", Rank.PAWN, (s, w, k)),
        ("the Borderland", Rank.PAWN, (w, le, y)),
        ("the Consul", Rank.COURT, (m, w, k)),
        ("the Rite", Rank.COURT, (m, le, y)),
        ("the Island", Rank.COURT, (s, w, y)),
        ("the Window", Rank.COURT, (s, le, k)),
    ]
    crowns = ["the Huntress", "the Bard", "the Sea", "the End", "the Calamity", "the Windfall"]
    table += [(name, Rank.CROWN, (suit,)) for name, suit in zip(crowns, Suit, strict=True)]
    table.append(("the Excuse", None, ()))
    return tuple(Card(i, name, rank, suits) for i, (name, rank, suits) in enumerate(table))


#: All 45 cards in canonical order: Aces, numerals 2..9 (three per rank), Pawns, Courts, Crowns,
#: the Excuse. Deals start from this order (docs/rng.md).
DECKTET: tuple[Card, ...] = _build_deck()
_CODES: tuple[str, ...] = tuple(card._make_code() for card in DECKTET)
#: The 24 numerals 2..9, in canonical order.
NUMERALS: tuple[Card, ...] = tuple(c for c in DECKTET if c.rank is not None and c.rank.is_numeral)

_BY_RANK_SUITS = {(c.rank, frozenset(c.suits)): c for c in DECKTET if c.rank is not None}
_LOOKUP: dict[str, Card] = {}
for _card in DECKTET:
    _LOOKUP[_normalise(_card.name)] = _card
    if _card.rank is Rank.CROWN:
        _LOOKUP[f"crown of {_card.suits[0].value}"] = _card
_LOOKUP["meeting"] = _LOOKUP["chance meeting"]
_LOOKUP["lightkeeper"] = _LOOKUP["light keeper"]


def card(text: str | Card) -> Card:
    """Shorthand for :meth:`Card.parse`: ``card("lunatic")``, ``card("6MW")``."""
    return Card.parse(text)


_CODE_RUN = re.compile(r"E|[A2-9PCX][MSWLYK]+", re.IGNORECASE)


def split_codes(run: str) -> list[str]:
    """Split concatenated card codes (``9MS8MS``) into single codes."""
    codes = _CODE_RUN.findall(run)
    if "".join(codes).upper() != run.upper():
        raise UnknownCardError(
            f"cannot read {quoted(run)} as card codes: each code is a rank (A, 2-9, P, C, X) "
            "followed by suit letters (M S W L Y K), or E for the Excuse"
        )
    return codes


def parse_cards(items: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Cards from a string — names or codes separated by commas, or codes separated by spaces
    (``"2MK 3MW"``) — or from an iterable of names or codes (:meth:`Deck.parse_all`)."""
    return DECKTET_DECK.parse_all(items)


def _rank_json(c: Card) -> str | None:
    return None if c.rank is None else c.rank.label


def _card_json(c: Card) -> dict[str, object]:
    return {
        "code": c.code,
        "name": c.name,
        "short_name": c.short_name,
        "title": c.title,
        "label": c.label,
        "rank": _rank_json(c),
        "rank_char": "E" if c.rank is None else c.rank.char,
        "value": None if c.rank is None else c.rank.number,
        "suits": [s.letter for s in c.suits],
    }


def _suits_json() -> list[dict[str, object]]:
    return [{"letter": s.letter, "name": s.title, "symbol": s.symbol} for s in Suit]


#: The Decktet in the deck registry (``skillcheck.cards.DECKS["decktet"]``).
DECKTET_DECK = register_deck(
    Deck(
        name="decktet",
        title="The Decktet",
        cards=DECKTET,
        card_type=Card,
        parse=Card.parse,
        card_json=_card_json,
        suits_json=_suits_json,
        code_help="a rank (A, 2-9, P, C, X) then suit letters (M S W L Y K), or E: 2MK, AM, XM",
    )
)
