"""The Decktet cards, checked against the card table of /work/shared/reference/decktet.md.

The table below is typed in from that reference document (not from skillcheck.cards), so a typo
in the library's card data fails here.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from skillcheck import (
    DECKTET,
    NUMERALS,
    Card,
    ParseError,
    Rank,
    Suit,
    UnknownCardError,
    UnknownSuitError,
    card,
    level_deck,
    parse_cards,
    quota_deck,
)
from skillcheck.cards import split_codes

SUIT_NAMES = ("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots")

# (rank label, card name, suits) exactly as the reference table lists them.
REFERENCE_TABLE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Ace", "the Ace of Moons", ("Moons",)),
    ("Ace", "the Ace of Suns", ("Suns",)),
    ("Ace", "the Ace of Waves", ("Waves",)),
    ("Ace", "the Ace of Leaves", ("Leaves",)),
    ("Ace", "the Ace of Wyrms", ("Wyrms",)),
    ("Ace", "the Ace of Knots", ("Knots",)),
    ("2", "the Author", ("Moons", "Knots")),
    ("2", "the Desert", ("Suns", "Wyrms")),
    ("2", "the Origin", ("Waves", "Leaves")),
    ("3", "the Journey", ("Moons", "Waves")),
    ("3", "the Painter", ("Suns", "Knots")),
    ("3", "the Savage", ("Leaves", "Wyrms")),
    ("4", "the Mountain", ("Moons", "Suns")),
    ("4", "the Sailor", ("Waves", "Leaves")),
    ("4", "the Battle", ("Wyrms", "Knots")),
    ("5", "the Forest", ("Moons", "Leaves")),
    ("5", "the Discovery", ("Suns", "Waves")),
    ("5", "the Soldier", ("Wyrms", "Knots")),
    ("6", "the Lunatic", ("Moons", "Waves")),
    ("6", "the Penitent", ("Suns", "Wyrms")),
    ("6", "the Market", ("Leaves", "Knots")),
    ("7", "the Chance Meeting", ("Moons", "Leaves")),
    ("7", "the Castle", ("Suns", "Knots")),
    ("7", "the Cave", ("Waves", "Wyrms")),
    ("8", "the Diplomat", ("Moons", "Suns")),
    ("8", "the Mill", ("Waves", "Leaves")),
    ("8", "the Betrayal", ("Wyrms", "Knots")),
    ("9", "the Pact", ("Moons", "Suns")),
    ("9", "the Darkness", ("Waves", "Wyrms")),
    ("9", "the Merchant", ("Leaves", "Knots")),
    ("Pawn", "the Harvest", ("Moons", "Suns", "Leaves")),
    ("Pawn", "the Watchman", ("Moons", "Wyrms", "Knots")),
    ("Pawn", "the Light Keeper", ("Suns", "Waves", "Knots")),
    ("Pawn", "the Borderland", ("Waves", "Leaves", "Wyrms")),
    ("Court", "the Consul", ("Moons", "Waves", "Knots")),
    ("Court", "the Rite", ("Moons", "Leaves", "Wyrms")),
    ("Court", "the Island", ("Suns", "Waves", "Wyrms")),
    ("Court", "the Window", ("Suns", "Leaves", "Knots")),
    ("Crown", "the Huntress", ("Moons",)),
    ("Crown", "the Bard", ("Suns",)),
    ("Crown", "the Sea", ("Waves",)),
    ("Crown", "the End", ("Leaves",)),
    ("Crown", "the Calamity", ("Wyrms",)),
    ("Crown", "the Windfall", ("Knots",)),
    ("none", "the Excuse", ()),
)

RANK_BY_LABEL = {
    "Ace": Rank.ACE,
    **{str(n): Rank(n) for n in range(2, 10)},
    "Pawn": Rank.PAWN,
    "Court": Rank.COURT,
    "Crown": Rank.CROWN,
    "none": None,
}


def _suit_names(c: Card) -> set[str]:
    return {s.value.capitalize() for s in c.suits}


def test_the_reference_table_itself_has_45_cards() -> None:
    assert len(REFERENCE_TABLE) == 45
    assert len({name for _, name, _ in REFERENCE_TABLE}) == 45


def test_there_are_45_cards_with_distinct_names_and_codes() -> None:
    assert len(DECKTET) == 45
    assert len({c.name for c in DECKTET}) == 45
    assert len({c.code for c in DECKTET}) == 45
    assert [c.index for c in DECKTET] == list(range(45))


@pytest.mark.parametrize(("rank_label", "name", "suits"), REFERENCE_TABLE)
def test_every_card_matches_the_reference_table(
    rank_label: str, name: str, suits: tuple[str, ...]
) -> None:
    matches = [c for c in DECKTET if c.name == name]
    assert len(matches) == 1, f"{name} should be in the deck exactly once"
    (c,) = matches
    assert c.rank is RANK_BY_LABEL[rank_label]
    assert _suit_names(c) == set(suits)
    assert len(c.suits) == len(suits)


def test_the_library_has_no_card_missing_from_the_reference_table() -> None:
    expected = {(name, RANK_BY_LABEL[r], frozenset(s)) for r, name, s in REFERENCE_TABLE}
    actual = {(c.name, c.rank, frozenset(_suit_names(c))) for c in DECKTET}
    assert actual == expected


def test_suits_within_a_card_are_in_conventional_order() -> None:
    order = list(Suit)
    assert [s.value.capitalize() for s in order] == list(SUIT_NAMES)
    for c in DECKTET:
        positions = [order.index(s) for s in c.suits]
        assert positions == sorted(positions), c.name


@pytest.mark.parametrize("rank", range(2, 10))
def test_every_suit_appears_exactly_once_per_numeral_rank(rank: int) -> None:
    cards = [c for c in DECKTET if c.rank == Rank(rank)]
    assert len(cards) == 3
    counts = Counter(s for c in cards for s in c.suits)
    assert counts == Counter({s: 1 for s in Suit})


def test_each_suit_has_one_card_of_each_rank_ace_to_crown() -> None:
    for suit in Suit:
        ranks = sorted(c.rank for c in DECKTET if c.rank is not None and c.bears(suit))
        plain = [r for r in ranks if r not in (Rank.PAWN, Rank.COURT)]
        assert plain == [Rank.ACE, *(Rank(n) for n in range(2, 10)), Rank.CROWN]


def test_numerals_are_the_24_cards_of_ranks_2_to_9() -> None:
    assert len(NUMERALS) == 24
    assert {c.name for c in NUMERALS} == {name for r, name, _ in REFERENCE_TABLE if r.isdigit()}
    assert all(len(c.suits) == 2 for c in NUMERALS)


def test_rank_order_ace_numerals_pawn_court_crown() -> None:
    order = [Rank.ACE, *(Rank(n) for n in range(2, 10)), Rank.PAWN, Rank.COURT, Rank.CROWN]
    assert sorted(Rank) == order
    for lower, higher in itertools.pairwise(order):
        assert lower < higher
    assert Rank.NINE < Rank.PAWN < Rank.COURT < Rank.CROWN
    assert Rank.ACE < Rank.TWO


def test_rank_number_is_the_printed_value() -> None:
    assert Rank.ACE.number == 1
    for n in range(2, 10):
        assert Rank(n).number == n
    assert Rank.CROWN.number == 10
    assert Rank.PAWN.number is None
    assert Rank.COURT.number is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("LUNATIC", "the Lunatic"),
        ("lunatic", "the Lunatic"),
        ("The Lunatic", "the Lunatic"),
        ("the chance meeting", "the Chance Meeting"),
        ("Chance Meeting", "the Chance Meeting"),
        ("Meeting", "the Chance Meeting"),
        ("the light keeper", "the Light Keeper"),
        ("BETRAYAL", "the Betrayal"),
        ("  the   Merchant ", "the Merchant"),
        ("ace of knots", "the Ace of Knots"),
        ("the Excuse", "the Excuse"),
    ],
)
def test_lookup_by_name_is_case_insensitive_with_optional_the(text: str, name: str) -> None:
    assert Card.parse(text).name == name
    assert card(text) is Card.parse(text)


@pytest.mark.parametrize(("rank_label", "name", "suits"), REFERENCE_TABLE)
def test_every_card_is_found_by_its_reference_name(
    rank_label: str, name: str, suits: tuple[str, ...]
) -> None:
    found = Card.parse(name)
    assert found.name == name
    assert Card.parse(name.upper()) is found
    assert Card.parse(name.removeprefix("the ")) is found


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("2MK", "the Author"),
        ("9MS", "the Pact"),
        ("8YK", "the Betrayal"),
        ("AM", "the Ace of Moons"),
        ("PMSL", "the Harvest"),
        ("CMWK", "the Consul"),
        ("XM", "the Huntress"),
        ("XK", "the Windfall"),
        ("E", "the Excuse"),
    ],
)
def test_lookup_by_code(code: str, name: str) -> None:
    assert Card.parse(code).name == name
    assert Card.parse(code.lower()).name == name


def test_code_is_rank_character_then_suit_letters() -> None:
    letters = {"Moons": "M", "Suns": "S", "Waves": "W", "Leaves": "L", "Wyrms": "Y", "Knots": "K"}
    rank_chars = {"Ace": "A", "Pawn": "P", "Court": "C", "Crown": "X"}
    for rank_label, name, suits in REFERENCE_TABLE:
        expected = (
            "E"
            if rank_label == "none"
            else rank_chars.get(rank_label, rank_label) + "".join(letters[s] for s in suits)
        )
        assert Card.parse(name).code == expected


@pytest.mark.parametrize("c", DECKTET, ids=lambda c: c.code)
def test_code_round_trip(c: Card) -> None:
    assert Card.parse(c.code) is c
    assert Card.parse(c.code.lower()) is c
    assert Card.parse(c.name) is c


def test_split_codes_reads_concatenated_codes() -> None:
    assert split_codes("9MS8MS") == ["9MS", "8MS"]
    assert split_codes("2mk3swAMXKE") == ["2mk", "3sw", "AM", "XK", "E"]
    every = "".join(c.code for c in DECKTET)
    assert [Card.parse(x) for x in split_codes(every)] == list(DECKTET)


def test_split_codes_rejects_junk() -> None:
    with pytest.raises(UnknownCardError):
        split_codes("9MS8ZZ")
    with pytest.raises(ParseError):
        split_codes("MS9")


def test_parse_cards_reads_names_and_codes() -> None:
    assert parse_cards("lunatic, 2MK ,the Pact") == (
        Card.parse("6MW"),
        Card.parse("2MK"),
        Card.parse("9MS"),
    )
    assert parse_cards(["Author", "XM"]) == (Card.parse("2MK"), Card.parse("XM"))


@pytest.mark.parametrize("text", ["the Joker", "Betrayer", "2MS", "9ZZ", "", "Z"])
def test_unknown_card_is_a_parse_error_listing_the_cards(text: str) -> None:
    with pytest.raises(UnknownCardError) as info:
        Card.parse(text)
    assert isinstance(info.value, ParseError)
    message = str(info.value)
    for name in ("Author", "Chance Meeting", "Betrayal", "Light Keeper", "Huntress", "Excuse"):
        assert name in message


@pytest.mark.parametrize("text", ["purple", "X", "wood chips", ""])
def test_unknown_suit_is_a_parse_error_listing_the_suits(text: str) -> None:
    with pytest.raises(UnknownSuitError) as info:
        Suit.parse(text)
    assert isinstance(info.value, ParseError)
    message = str(info.value).lower()
    for name in SUIT_NAMES:
        assert name.lower() in message


@pytest.mark.parametrize(
    ("text", "suit"),
    [
        ("Moons", Suit.MOONS),
        ("moon", Suit.MOONS),
        ("SUNS", Suit.SUNS),
        ("w", Suit.WAVES),
        ("Leaves", Suit.LEAVES),
        ("wood", Suit.LEAVES),
        ("y", Suit.WYRMS),
        ("knot", Suit.KNOTS),
    ],
)
def test_suit_lookup(text: str, suit: Suit) -> None:
    assert Suit.parse(text) is suit


@pytest.mark.parametrize("level", range(2, 10))
def test_level_deck_holds_the_numerals_up_to_level(level: int) -> None:
    deck = level_deck(level)
    assert len(deck) == 3 * (level - 1)
    assert len(set(deck)) == len(deck)
    expected = {name for r, name, _ in REFERENCE_TABLE if r.isdigit() and int(r) <= level}
    assert {c.name for c in deck} == expected


@pytest.mark.parametrize("suit", list(Suit))
@pytest.mark.parametrize("level", [4, 7, 9])
def test_quota_deck_is_the_non_suit_numerals_plus_the_chosen_suited_ones(
    level: int, suit: Suit
) -> None:
    suited_available = [c for c in level_deck(level) if c.bears(suit)]
    assert len(suited_available) == level - 1  # one card of each rank 2..level bears the suit
    chosen = suited_available[::2]
    deck = quota_deck(level, suit, chosen)
    assert len(set(deck)) == len(deck)
    in_deck_suited = {c for c in deck if c.bears(suit)}
    assert in_deck_suited == set(chosen)
    others = {c for c in deck if not c.bears(suit)}
    expected_others = {
        Card.parse(name)
        for r, name, suits in REFERENCE_TABLE
        if r.isdigit() and int(r) <= level and suit.value.capitalize() not in suits
    }
    assert others == expected_others
    assert len(deck) == 3 * (level - 1) - (level - 1) + len(chosen)


def test_a_deal_may_be_codes_separated_by_spaces_or_names_separated_by_commas() -> None:
    from skillcheck.cards.decktet import parse_cards

    assert [c.code for c in parse_cards("2MK 3MW  9LK")] == ["2MK", "3MW", "9LK"]
    assert [c.code for c in parse_cards("the Author, Chance Meeting")] == ["2MK", "7ML"]
    assert [c.code for c in parse_cards("Chance Meeting")] == ["7ML"]
    with pytest.raises(UnknownCardError):
        parse_cards("2MK 3XX")
