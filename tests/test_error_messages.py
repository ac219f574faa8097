"""How the library's error messages quote what they were given (``skillcheck.errors.quoted``):
spelt as JSON (``false``, ``null``, ``"moons"``, never Python's ``False`` or ``'moons'``), long
values cut to their start and their length, lists of games in registry order, and a member a
game's variant does not take named by its parameter in a plain sentence."""

from __future__ import annotations

import re
from typing import Any

import pytest

import skillcheck.games  # noqa: F401  (registers the games)
from skillcheck.cards import Suit, deck_named
from skillcheck.engine import GAMES, game_class
from skillcheck.errors import QUOTE_LIMIT, ParameterError, ParseError, UnknownGameError, quoted
from skillcheck.outcome import Tiers, UndoPolicy
from skillcheck.schema import check_params
from skillcheck.serialization import game_from_params

PYTHON_SPELLING = re.compile(r"\b(False|True|None)\b|'[^']*'")


@pytest.mark.parametrize(
    ("value", "spelt"),
    [
        (False, "false"),
        (True, "true"),
        (None, "null"),
        ("moons", '"moons"'),
        ("it's", '"it\'s"'),
        ("two\nlines", '"two\\nlines"'),
        ("☾", '"☾"'),
        ("\ud800", '"\\ud800"'),  # a lone surrogate stays printable as UTF-8
        (6, "6"),
        (6.5, "6.5"),
        ([1, "a", None], '[1, "a", null]'),
        ({"kind": "standard"}, '{"kind": "standard"}'),
        (UndoPolicy.SAFE, '"safe"'),
    ],
)
def test_values_are_spelt_as_json(value: Any, spelt: str) -> None:
    assert quoted(value) == spelt


def test_long_values_are_cut_to_their_start_and_length() -> None:
    assert quoted("d" * 10_000) == f'"{"d" * QUOTE_LIMIT}…" (10000 characters)'
    assert quoted("d" * QUOTE_LIMIT) == f'"{"d" * QUOTE_LIMIT}"'
    listed = quoted(list(range(5000)))
    assert listed.startswith("[0, 1, 2,") and listed.endswith(" characters)")
    assert len(listed) < 2 * QUOTE_LIMIT
    assert quoted(10**400).endswith("… (401 characters)")
    assert quoted(10**5000) == "(a whole number of about 5001 digits)"  # Python cannot write it
    assert quoted([10**5000]) == "(a list too large to write)"


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_cuts_a_long_move_code(name: str) -> None:
    game = game_from_params(name, dict(game_class(name).examples()[0]))
    with pytest.raises(ParseError) as info:
        game.parse_move("z" * 10_000)
    message = info.value.message
    assert len(message) < 400 and "(10000 characters)" in message, message
    assert f'"{"z" * QUOTE_LIMIT}…"' in message
    with pytest.raises(ParseError) as short:
        game.parse_move("zz!")
    assert '"zz!"' in short.value.message


@pytest.mark.parametrize(
    ("params", "spelt"),
    [
        ({"undo": False}, "undo false is not allowed"),
        ({"undo": None}, "undo null is not allowed"),
        ({"level": "6"}, 'level "6" is not allowed'),
        ({"level": 10**400}, "characters) is not allowed"),
    ],
)
def test_parameter_errors_spell_values_as_json(params: dict[str, Any], spelt: str) -> None:
    with pytest.raises(ParameterError) as info:
        check_params(game_class("three-towers"), params)
    assert spelt in info.value.message, info.value.message
    assert not PYTHON_SPELLING.search(info.value.message), info.value.message


def test_policies_tiers_and_cards_spell_values_as_json() -> None:
    with pytest.raises(ParameterError, match=r"^undo null is not allowed"):
        UndoPolicy.of(None)
    with pytest.raises(ParameterError, match=r"tiers\.critical_failure true is not allowed"):
        Tiers.from_dict({"critical_success": 3, "critical_failure": True})
    with pytest.raises(ParameterError, match='unknown key "fumble" in tiers'):
        Tiers.from_dict({"critical_success": 3, "critical_failure": 0, "fumble": 1})
    with pytest.raises(ParseError, match=r'^unknown suit "stars"'):
        Suit.parse("stars")
    with pytest.raises(ParseError, match=r'^unknown deck "tarot"'):
        deck_named("tarot")


def test_an_unknown_game_lists_the_games_in_registry_order() -> None:
    with pytest.raises(UnknownGameError) as info:
        game_class("poker")
    assert info.value.message == f'unknown game "poker": the games are {", ".join(GAMES)}'


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        (
            {"variant": {"kind": "standard", "suit": "moons"}},
            "suit",
            'variant.suit is not allowed with variant.kind "standard": variant then takes '
            "only kind",
        ),
        (
            {"variant": {"kind": "ivory", "suit": "moons", "skill": 3, "quota": 2}},
            "quota",
            'variant.quota and variant.skill are not allowed with variant.kind "ivory": '
            "variant then takes only kind, suit",
        ),
    ],
)
def test_a_member_the_variant_does_not_take_is_named_in_a_sentence(
    params: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ParameterError) as info:
        game_from_params("three-towers", params)
    assert info.value.parameter == field
    assert info.value.message == message
