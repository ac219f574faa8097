"""Errors a new user of the library meets first: unknown keyword parameters and options, wrong
kinds of value, records with values outside their enums, plurals and JSON spelling in the games'
messages, and a TriTowers ending that says why the game ended. Each message names what was wrong
and what is allowed, in plain words (no Python class names or exception texts), and spells
values as JSON (``skillcheck.errors.quoted``).

``push`` given text or an object that is not a move is covered for every game by the
conformance suite (``test_push_takes_a_move_of_its_game``)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import skillcheck.games  # noqa: F401  (registers the games)
from skillcheck.engine import GAMES, game_class, make_game
from skillcheck.errors import ParameterError, ParseError, RecordError, SkillcheckError
from skillcheck.games.three_towers.rules import ThreeTowers
from skillcheck.odds import game_from_options
from skillcheck.records import GameRecord, verify
from skillcheck.serialization import game_from_params
from skillcheck.solving import autoplay

#: Python's spelling of a value (``'d1'``, ``None``, ``True``) or of a type (``skillcheck.x.Y``,
#: ``'list' object``, ``NoneType``, ``__init__()``) in a message meant for people.
PYTHON_SPELLING = re.compile(
    r"\b(False|True|None|NoneType)\b|'[^']*'|\bskillcheck\.\w|__\w+__|\bobject has\b"
)
#: A number other than 1 before a singular noun, or 1 before a plural one.
BAD_PLURAL = re.compile(r"\b1 (\w+s)\b|\b([02-9]|\d\d+) (column|item|card|tower|peak)\b")


def plain(message: str) -> str:
    assert not PYTHON_SPELLING.search(message), message
    assert not BAD_PLURAL.search(message), message
    return message


# ---- 2. unknown keyword parameters ---------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_an_unknown_keyword_parameter_is_named_with_the_games_parameters(name: str) -> None:
    cls = game_class(name)
    fields = [f for f in cls.__attrs_attrs__ if f.init]
    for build in (
        lambda: cls(colour=1),
        lambda: make_game(name, colour=1),
        lambda: cls().evolve(colour=1),
    ):
        with pytest.raises(ParameterError) as info:
            build()
        message = plain(info.value.message)
        assert info.value.parameter == "colour"
        assert message.startswith(f'unknown parameter "colour": the parameters of {name} are ')
        assert all(f.alias in message for f in fields), message


def test_unknown_keyword_parameters_are_all_named_and_a_near_name_suggested() -> None:
    with pytest.raises(ParameterError) as info:
        ThreeTowers.quota_check("moons", skill=5, quota=4, colour=1, levl=6)
    message = plain(info.value.message)
    assert message.startswith('unknown parameters "colour" and "levl": the parameters of ')
    assert '(did you mean "level" for "levl"?)' in message
    with pytest.raises(ParameterError, match='"suit" goes inside variant'):
        ThreeTowers(suit="moons")


# ---- 3. unknown options --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_an_unknown_option_is_refused_naming_it_and_the_options(name: str) -> None:
    specs = [spec.name for spec in game_class(name).parameters()]
    near = specs[0][:-1] if len(specs[0]) > 3 else specs[0] + "x"
    for options in ({"colour": 1}, {near: 5}, {"colour": None}):
        with pytest.raises(ParameterError) as info:
            game_from_options(name, options)
        given = next(iter(options))
        message = plain(info.value.message)
        assert info.value.parameter == given
        assert message.startswith(f'unknown option "{given}": the options of {name} are ')
        assert all(spec in message for spec in specs), message
    with pytest.raises(ParameterError, match=f'did you mean "{specs[0]}"'):
        game_from_options(name, {near: 5})


def test_odds_refuses_a_misspelt_option_before_playing() -> None:
    from skillcheck.odds import odds

    with pytest.raises(ParameterError, match=r'unknown option "card".*did you mean "cards"'):
        odds("hanoy", {"card": 5}, deals=1)


# ---- 4. records and parameters that are not JSON objects ----------------------------------------


def _record() -> dict[str, Any]:
    state = make_game("hanoy", cards=3).new_state(1)
    state.concede()
    data: dict[str, Any] = state.record().to_dict()
    return data


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        (("tier",), "great", 'tier must be one of "critical_success", "success", "failure", '
         '"critical_failure" or null'),
        (("outcome", "status"), "meh", 'outcome.status must be one of "in_progress", "won", '
         '"lost"'),
        (("outcome", "reason"), 7, 'outcome.reason must be one of "goal", "no_legal_moves", '
         '"move_limit", "conceded", "unwinnable"'),
        (("params",), [1], "params must be an object"),
        (("outcome",), "lost", "outcome must be an object or null"),
    ],
)  # fmt: skip
def test_a_record_names_the_allowed_values_in_words(
    where: tuple[str, ...], value: Any, said: str
) -> None:
    data = _record()
    inner = data
    for key in where[:-1]:
        inner = inner[key]
    inner[where[-1]] = value
    with pytest.raises(ParseError) as info:
        GameRecord.from_dict(json.loads(json.dumps(data)))
    assert said in plain(info.value.message), info.value.message


def test_a_record_mismatch_quotes_the_summaries_as_json() -> None:
    data = _record()
    data["outcome"]["degree"] = 2
    with pytest.raises(RecordError) as info:
        verify(GameRecord.from_dict(data))
    message = plain(info.value.message)
    summary = data["outcome"]["summary"]
    assert message.count(f'"{summary}"') == 2, message


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("params", [[1], None, "level=6", 6])
def test_parameters_that_are_not_an_object_are_refused_in_words(name: str, params: Any) -> None:
    with pytest.raises(ParameterError) as info:
        game_from_params(name, params)
    message = plain(info.value.message)
    assert info.value.parameter == "params"
    assert "must be a JSON object" in message, message


# ---- 5. whole numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [9.0, "9", True, None, [9]])
def test_a_whole_number_parameter_says_a_whole_number_is_needed(value: Any) -> None:
    with pytest.raises(ParameterError) as info:
        ThreeTowers(level=value)
    message = plain(info.value.message)
    assert "level must be a whole number from 2 to 9" in message, message


@pytest.mark.parametrize("name", list(GAMES))
def test_every_int_parameter_says_a_whole_number_is_needed(name: str) -> None:
    cls = game_class(name)
    for spec in cls.parameters():
        if spec.kind != "int" or spec.path is not None:
            continue
        value = float(spec.default if spec.default is not None else spec.minimum)
        with pytest.raises(SkillcheckError) as info:
            cls(**{spec.name: value})
        message = plain(info.value.message)
        assert f"{spec.name} must be a whole number" in message, message


def test_a_number_out_of_range_keeps_its_message() -> None:
    with pytest.raises(ParameterError) as info:
        ThreeTowers(level=12)
    assert info.value.message == "level 12 is not allowed: level must be from 2 to 9"


# ---- 6 and 7. plurals and JSON spelling in the games' messages ----------------------------------


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: make_game("hanoy").state_from_code("abc"), "the position has 1 column:"),
        (lambda: make_game("tripeaks").state_from_code("x y z"), "the peaks hold 1 item:"),
        (lambda: make_game("hanoy").parse_deal("2 3 4/5 6 7"), "the deal has 2 columns"),
        (lambda: make_game("hanoy").parse_deal("2 3/4 5 6 7 8 9 10/"), "has 2 cards"),
        (lambda: make_game("hanoy").parse_deal("2/3 4 5 6 7 8 9 10/"), "has 1 card:"),
        (lambda: make_game("tripeaks").state_from_code(
            " ".join(["-"] * 3)), "the peaks hold 1 item:"),
        (lambda: make_game("tripeaks", skill=5).state_from_code(
            ".".join(["AS"] * 28) + " - - 2S 0"), "sets 1 card aside"),
        (lambda: make_game("tripeaks", skill=5).state_from_code(".".join(["AS"] * 28) + " - -"),
         "this game sets 3 cards aside"),
    ],
)  # fmt: skip
def test_counts_agree_with_their_nouns(call: Any, said: str) -> None:
    with pytest.raises(SkillcheckError) as info:
        call()
    assert said in plain(info.value.message), info.value.message


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: ThreeTowers(variant="foo"), 'variant "foo" is not allowed'),
        (lambda: ThreeTowers(variant={"suit": "moons"}), 'variant {"suit": "moons"} is not '),
        (lambda: game_from_params("three-towers", {"variant": {"kind": "x"}}),
         'variant "x" is not allowed'),
        (lambda: game_from_params("three-towers", {"variant": 5}), "variant 5 is not allowed"),
        (lambda: ThreeTowers.params_from_options({"variant": "x"}), 'variant "x" is not '),
        (lambda: ThreeTowers.params_from_options({"colour": 1}), 'unknown option "colour"'),
        (lambda: make_game("hanoy", ranks="1-9"), 'ranks "1-9" is not allowed'),
        (lambda: make_game("tripeaks", wrap="yes"), 'wrap "yes" is not allowed'),
        (lambda: make_game("three-towers").state_from_code("garbage"),
         'cannot read position "garbage"'),
        (lambda: make_game("three-towers").state_from_code("-/-/-/-/- 9MS x"),
         'cannot read moves made "x"'),
        (lambda: ThreeTowers().state_from_code("-/-/-/-/- 9MS+x 0"),
         "observation code"),
        (lambda: make_game("hanoy").state_from_code("garbage x y"),
         'cannot read position "garbage x y"'),
        (lambda: make_game("hanoy").state_from_code("234/567/89T x"),
         'cannot read the move counter "x"'),
        (lambda: make_game("hanoy").state_from_code("23Z/567/89T 0"),
         'cannot read column "23Z": "Z" is not a rank'),
        (lambda: make_game("hanoy", ranks="A-9").state_from_code("23T/567/89A 0"),
         'column "23T" holds the 10'),
        (lambda: make_game("hanoy").parse_deal("7 3 5 4 6 2 8 9 A"), '"A" is not a card of'),
        (lambda: make_game("hanoy").parse_deal("of 3 5 4 6 2 8 9 10"), 'cannot read card "of"'),
        (lambda: make_game("tripeaks").state_from_code("garbage"),
         'cannot read position "garbage"'),
        (lambda: make_game("tripeaks").state_from_code(
            " ".join([".".join(c.code for c in make_game("tripeaks").deal(0)[:28]),
                      make_game("tripeaks").deal(0)[28].code,
                      ".".join(c.code for c in make_game("tripeaks").deal(0)[29:]), "x"])),
         'cannot read redeals left "x"'),
    ],
)  # fmt: skip
def test_values_in_the_games_messages_are_spelt_as_json(call: Any, said: str) -> None:
    with pytest.raises(SkillcheckError) as info:
        call()
    assert said in plain(info.value.message), info.value.message


def test_the_three_towers_observation_code_spells_a_bad_count_as_json() -> None:
    from skillcheck.games.three_towers.rules import ThreeTowersObservation

    with pytest.raises(ParseError) as info:
        ThreeTowersObservation.from_code("-/-/-/-/- 9MS+x 0")
    assert 'cannot read hidden card count "x"' in plain(info.value.message)


# ---- 8. TriTowers says why the game ended -------------------------------------------------------


@pytest.mark.parametrize(
    ("won", "cleared", "why"),
    [
        (False, True, "failure: all three peaks are cleared, so the game is over; "),
        (False, False, "failure: the stock is used up and no free card fits; "),
        (True, True, "success: all three peaks cleared with "),
    ],
)
def test_a_tritowers_check_says_why_the_game_ended(won: bool, cleared: bool, why: str) -> None:
    """The fast bot with every peak cleared but short of the target once read "failure: the
    game is over; 45 points, 15 short of 60", without saying why the game was over."""
    game = make_game("tripeaks", rules="tritowers", target=60)
    for deal in range(400):
        state = autoplay(game, "fast", deal)
        assert state.outcome is not None
        if state.outcome.success is won and (state.left == 0) is cleared:
            summary = state.outcome.summary
            assert summary.startswith(why) and "points" in summary, summary
            assert "the game is over;" not in summary.replace("so the game is over;", ""), summary
            return
    raise AssertionError("no deal ends this way")


@pytest.mark.parametrize(
    ("name", "params", "parameter", "said"),
    [
        ("hanoy", {"cards": "5"}, "cards",
         'cards "5" is not allowed: cards must be a whole number from 3 to 9, not text'),
        ("three-towers", {"level": 6.0}, "level",
         "level 6.0 is not allowed: level must be a whole number from 2 to 9, written without a "
         "decimal point"),
        ("three-towers", {"variant": {"kind": "quota", "suit": "moons", "skill": "3", "quota": 2}},
         "params", "variant.skill must be a whole number"),
    ],
)  # fmt: skip
def test_params_of_the_wrong_kind_are_worded_as_the_constructor_words_them(
    name: str, params: dict[str, Any], parameter: str, said: str
) -> None:
    """game_from_params (sessions, records, the API) said only "cards must be a whole number",
    naming neither the value nor the range, where Hanoy(cards="5") names both."""
    with pytest.raises(ParameterError) as refused:
        game_from_params(name, params)
    assert said in refused.value.message and refused.value.parameter == parameter
