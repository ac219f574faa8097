"""The standard 52-card deck (skillcheck.cards.standard): codes, names, order, parsing, registry."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcheck.cards import DECKS, deck_named
from skillcheck.cards.decktet import Card
from skillcheck.cards.standard import (
    STANDARD,
    STANDARD_DECK,
    Colour,
    PlayingCard,
    StandardRank,
    StandardSuit,
    parse_standard_cards,
)
from skillcheck.errors import ParseError, UnknownCardError, UnknownSuitError
from skillcheck.serialization import converter

# Typed in here, not derived from the library, so a slip in the library's tables fails.
SUIT_LETTERS = "SHDC"
RANK_CHARS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_LABELS = ("Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King")
SUIT_NAMES = ("Spades", "Hearts", "Diamonds", "Clubs")
CANONICAL_CODES = [r + s for s in SUIT_LETTERS for r in RANK_CHARS]


def test_fifty_two_distinct_cards_in_canonical_order() -> None:
    assert len(STANDARD) == 52
    assert len(set(STANDARD)) == 52
    assert len({c.code for c in STANDARD}) == 52
    assert [c.code for c in STANDARD] == CANONICAL_CODES
    assert [c.index for c in STANDARD] == list(range(52))
    assert STANDARD[0].code == "AS"
    assert STANDARD[12].code == "KS"
    assert STANDARD[13].code == "AH"
    assert STANDARD[51].code == "KC"
    assert list(StandardSuit) == [
        StandardSuit.SPADES,
        StandardSuit.HEARTS,
        StandardSuit.DIAMONDS,
        StandardSuit.CLUBS,
    ]


def test_ranks_and_suits() -> None:
    assert [int(r) for r in StandardRank] == list(range(1, 14))
    assert tuple(r.char for r in StandardRank) == RANK_CHARS
    assert tuple(r.label for r in StandardRank) == RANK_LABELS
    assert [s.letter for s in StandardSuit] == list(SUIT_LETTERS)
    assert [s.symbol for s in StandardSuit] == ["♠", "♥", "♦", "♣"]
    assert [s.colour for s in StandardSuit] == ["black", "red", "red", "black"]
    assert [s.title for s in StandardSuit] == list(SUIT_NAMES)
    assert StandardSuit.parse("heart") is StandardSuit.HEARTS
    assert StandardSuit.parse(" d ") is StandardSuit.DIAMONDS
    assert StandardSuit.parse("♣") is StandardSuit.CLUBS
    with pytest.raises(UnknownSuitError, match="spades"):
        StandardSuit.parse("moons")


def test_card_attributes() -> None:
    ten = PlayingCard.parse("10H")
    assert ten.rank is StandardRank.TEN and int(ten.rank) == 10 and ten.value == 10
    assert ten.suit is StandardSuit.HEARTS
    assert ten.colour is Colour.RED and str(ten.colour) == "red" and ten.is_red
    assert ten.name == "10 of Hearts" == ten.short_name == str(ten)
    assert ten.label == "the 10 of Hearts"
    assert ten.glyph == "10♥"
    assert repr(ten) == "PlayingCard.parse('10H')"
    ace = STANDARD[0]
    assert (ace.code, ace.name, ace.label) == ("AS", "Ace of Spades", "the Ace of Spades")
    assert ace.colour is Colour.BLACK
    assert PlayingCard.parse("QC").name == "Queen of Clubs"
    for card in STANDARD:
        assert card.name == f"{RANK_LABELS[card.rank - 1]} of {SUIT_NAMES[card.index // 13]}"


def test_cards_compare_by_value_and_are_hashable() -> None:
    made = PlayingCard(StandardRank.KING, StandardSuit.DIAMONDS)
    assert made == PlayingCard.parse("KD") and made is not PlayingCard.parse("KD")
    assert hash(made) == hash(PlayingCard.parse("KD"))
    assert PlayingCard(13, "d") == made  # rank and suit are converted
    assert made != PlayingCard.parse("KH")
    assert made != "KD"  # a card is not its code
    assert {made: 1}[PlayingCard.parse("kd")] == 1
    assert PlayingCard.of(13, StandardSuit.DIAMONDS) is STANDARD[made.index]
    assert PlayingCard.of(1, "spades") is STANDARD[0]
    with pytest.raises(UnknownCardError, match="13"):
        PlayingCard.of(14, "S")
    for card in STANDARD:
        assert pickle.loads(pickle.dumps(card)) == card
        assert copy.deepcopy(card).code == card.code
    with pytest.raises(AttributeError):
        made.code = "AS"  # type: ignore[misc]


def test_every_code_round_trips() -> None:
    for card in STANDARD:
        assert PlayingCard.parse(card.code) is card
        assert PlayingCard.parse(card.code.lower()) is card
        assert PlayingCard.parse(f"  {card.code}\t") is card
        assert PlayingCard.parse(card.name) is card
        assert PlayingCard.parse(card.name.lower()) is card
        assert PlayingCard.parse(card.label) is card
        assert PlayingCard.parse(card.glyph) is card
        assert PlayingCard.parse(card) is card
        assert STANDARD_DECK.parse(card.code) is card


def test_ten_spellings() -> None:
    for suit in SUIT_LETTERS:
        ten = PlayingCard.parse(f"10{suit}")
        assert ten.code == f"10{suit}"
        assert PlayingCard.parse(f"T{suit}") is ten
        assert PlayingCard.parse(f"t{suit.lower()}") is ten
    assert PlayingCard.parse("ten of hearts").code == "10H"
    assert PlayingCard.parse("10 of hearts").code == "10H"
    assert PlayingCard.parse("T of H").code == "10H"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("ace of spades", "AS"),
        ("Ace of Spades", "AS"),
        ("the ace of spades", "AS"),
        ("  ACE   OF  SPADES ", "AS"),
        ("ace of spade", "AS"),
        ("queen of clubs", "QC"),
        ("jack of diamonds", "JD"),
        ("two of hearts", "2H"),
        ("7 of clubs", "7C"),
        ("king of ♦", "KD"),
        ("as", "AS"),
        ("a♠", "AS"),
    ],
)
def test_accepted_spellings(text: str, code: str) -> None:
    assert PlayingCard.parse(text).code == code


def test_each_deck_parses_its_own_codes() -> None:
    standard = PlayingCard.parse("AS")
    decktet = Card.parse("AS")
    assert standard.name == "Ace of Spades"
    assert decktet.name == "the Ace of Suns"
    assert standard != decktet
    assert DECKS["standard"].parse("AS") is standard
    assert DECKS["decktet"].parse("AS") is decktet


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("ZZ", ['"ZZ"', "does not start with a rank", "AS, 10H"]),
        ("AX", ['"X" is not a suit letter', "S, H, D, C"]),
        ("11H", ['"11H"', "rank"]),
        ("1S", ['"1S"']),
        ("", ["no card given"]),
        ("   ", ["no card given"]),
        ("ace of spaces", ['"spaces" is not a suit', "spades, hearts, diamonds, clubs"]),
        ("eleven of hearts", ['"eleven" is not a rank', "jack"]),
        ("6MW", ['"6MW"', '"decktet" deck', "Lunatic"]),
        ("AM", ['"M" is not a suit letter', "Ace of Moons"]),
        ("lunatic", ["neither a card code nor a card name"]),
    ],
)
def test_unknown_cards_name_what_was_wrong(text: str, fragments: list[str]) -> None:
    with pytest.raises(UnknownCardError) as info:
        PlayingCard.parse(text)
    assert isinstance(info.value, ParseError)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message
    assert "ace of spades" in message  # what is allowed


@given(st.text(max_size=20))
def test_any_text_parses_to_a_card_or_raises_unknown_card(text: str) -> None:
    try:
        card = PlayingCard.parse(text)
    except UnknownCardError:
        return
    assert PlayingCard.parse(card.code) == card
    assert card in STANDARD


@given(
    st.sampled_from(STANDARD),
    st.sampled_from(["code", "lower", "ten", "name", "label", "glyph"]),
    st.sampled_from(["", " ", "  \t"]),
)
def test_spellings_round_trip(card: PlayingCard, form: str, pad: str) -> None:
    text = {
        "code": card.code,
        "lower": card.code.lower(),
        "ten": card.code.replace("10", "T"),
        "name": card.name,
        "label": card.label.upper(),
        "glyph": card.glyph,
    }[form]
    assert PlayingCard.parse(pad + text + pad) is card


def test_parse_standard_cards() -> None:
    codes = ["AS", "10H", "QC", "KD"]
    expected = tuple(PlayingCard.parse(c) for c in codes)
    assert parse_standard_cards("AS 10H QC KD") == expected
    assert parse_standard_cards("AS, th,qc ,  KD") == expected
    names = "ace of spades, 10 of hearts, queen of clubs, king of diamonds"
    assert parse_standard_cards(names) == expected
    assert parse_standard_cards(["AS", "TH", expected[2], "kd"]) == expected
    assert parse_standard_cards("") == ()
    assert STANDARD_DECK.parse_all("AS,10H QC KD") == expected
    with pytest.raises(UnknownCardError, match='"spaces" is not a suit'):
        parse_standard_cards("AS, ace of spaces")
    with pytest.raises(UnknownCardError, match='"ZZ"'):
        parse_standard_cards("AS ZZ KD")


def test_registered_deck_table_is_json() -> None:
    assert DECKS["standard"] is STANDARD_DECK is deck_named("standard")
    assert STANDARD_DECK.cards is STANDARD
    assert STANDARD_DECK.card_type is PlayingCard
    table = json.loads(json.dumps(STANDARD_DECK.table()))
    assert table["deck"] == "standard"
    assert table["title"] == "Standard 52-card deck"
    assert [s["letter"] for s in table["suits"]] == list(SUIT_LETTERS)
    assert table["suits"][1] == {"letter": "H", "name": "Hearts", "symbol": "♥", "colour": "red"}
    assert [c["code"] for c in table["cards"]] == CANONICAL_CODES
    ten = table["cards"][22]
    assert ten["code"] == "10H"
    assert ten["name"] == "10 of Hearts"
    assert ten["label"] == "the 10 of Hearts"
    assert ten["rank"] == "10"
    assert ten["rank_char"] == "10"
    assert ten["value"] == 10
    assert ten["suit"] == "H"
    assert ten["suits"] == ["H"]
    assert ten["colour"] == "red"
    assert {c["value"] for c in table["cards"]} == set(range(1, 14))


def test_converter_round_trips_cards() -> None:
    for card in STANDARD:
        data = converter.unstructure(card)
        assert data == card.code
        assert converter.structure(data, PlayingCard) is card
    assert converter.structure("th", PlayingCard).code == "10H"
    assert converter.unstructure([STANDARD[0], STANDARD[22]]) == ["AS", "10H"]
    with pytest.raises(UnknownCardError):
        converter.structure("ZZ", PlayingCard)
