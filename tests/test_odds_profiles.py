"""The three player profiles, the plain words of a chance and the GM's sentence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcheck.engine import GAMES
from skillcheck.odds import PERFECT, game_from_options
from skillcheck.profiles import (
    PROFILE_KEYS,
    PROFILE_NAMES,
    WORD_THRESHOLDS,
    WORDS,
    ProfileOdds,
    gm_odds_of,
    percent,
    profile_methods,
    summary,
    words_for,
)


@pytest.mark.parametrize(
    ("rate", "words"),
    [
        (1.0, "almost sure"),
        (0.90, "almost sure"),
        (0.8999, "likely"),
        (0.60, "likely"),
        (0.5999, "even"),
        (0.40, "even"),
        (0.3999, "hard"),
        (0.15, "hard"),
        (0.1499, "very hard"),
        (0.0, "very hard"),
    ],
)
def test_the_words_change_exactly_at_the_documented_thresholds(rate: float, words: str) -> None:
    assert words_for(rate) == words


def test_the_thresholds_are_the_documented_ones() -> None:
    assert WORD_THRESHOLDS == ((0.90, "almost sure"), (0.60, "likely"), (0.40, "even"),
                               (0.15, "hard"))  # fmt: skip
    assert WORDS == ("almost sure", "likely", "even", "hard", "very hard")


@given(st.floats(0, 1), st.floats(0, 1))
def test_a_better_chance_never_reads_worse(low: float, high: float) -> None:
    low, high = sorted((low, high))
    assert WORDS.index(words_for(high)) <= WORDS.index(words_for(low))


@given(st.floats(0, 1))
def test_a_percentage_never_claims_a_certainty_it_lacks(rate: float) -> None:
    text = percent(rate)
    if text == "100 %":
        assert rate == 1
    if text == "0 %":
        assert rate == 0


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_has_the_profiles_its_bots_and_solver_allow(name: str) -> None:
    game = GAMES[name]()
    found = profile_methods(game)
    assert list(found) == [k for k in PROFILE_KEYS if k in found]  # reading order
    assert ("ceiling" in found) == (game.solver() is not None)
    if "ceiling" in found:
        assert found["ceiling"] == PERFECT
    bots = list(game.bots())
    declared = gm_odds_of(name).bots
    assert found["casual"] == declared.get("casual", next(b for b in bots if b != "random"))
    if "careful" in declared and declared["careful"] in bots:
        assert found["careful"] == declared["careful"]
    else:
        assert "careful" not in found  # a game without the bot lacks the profile


def test_the_profiles_are_the_issues_bots() -> None:
    # careful is the strong fair bot and casual the fast one where the game has them
    for name, cls in GAMES.items():
        bots = list(cls().bots())
        found = profile_methods(cls())
        if "strong" in bots:
            assert found["careful"] == "strong", name
        if "fast" in bots:
            assert found["casual"] == "fast", name


def test_a_game_that_declares_nothing_has_no_player_profile_from_random_moves() -> None:
    game = game_from_options("three-towers", {})
    undeclared = type("Undeclared", (type(game),), {"name": "undeclared-game"})()
    assert list(undeclared.bots()) == ["random"]  # only the fallback: no one plays like that
    assert profile_methods(undeclared) == {}  # nor a ceiling: its solver is not registered


def test_one_plain_sentence_for_a_gm() -> None:
    casual = ProfileOdds("casual", 66, 100)
    careful = ProfileOdds("careful", 98, 100)
    ceiling = ProfileOdds("ceiling", 100, 100)
    assert summary([casual]) == "A casual player is likely to succeed (66 %)."
    assert summary([careful, casual, ceiling]) == (
        "A casual player is likely to succeed (66 %); a careful player is almost sure to "
        "succeed (98 %)."
    )
    assert summary([ProfileOdds("casual", 6, 60)]) == (
        "A casual player will find it very hard (10 %)."
    )
    assert summary([ceiling]).startswith("Perfect play is almost sure to succeed (100 %)")
    assert summary([]) == "No odds are known for these parameters."


def test_a_sentence_from_few_deals_says_how_little_it_rests_on() -> None:
    """3 wins of 3 test deals is "almost sure (100 %)" by its rate, yet its 95 % range is 44 %
    to 100 %: whenever the range is wider than 30 points the GM reads the count and the range,
    not a word (a hedge beside "almost sure" read as a contradiction)."""
    few = summary([ProfileOdds("careful", 3, 3), ProfileOdds("casual", 1, 10)])
    assert few == (
        "A casual player won 1 of 10 test deals, too few to tell: anywhere from 2 % to 40 %; "
        "a careful player won 3 of 3 test deals, too few to tell: anywhere from 44 % to 100 %."
    )
    assert "too few" not in summary([ProfileOdds("casual", 30, 60)])  # 38 % to 62 %: a word
    assert "too few" not in summary([ProfileOdds("careful", 10, 10)])  # 72 % to 100 %


def test_a_profile_answers_with_its_interval_and_words() -> None:
    data = ProfileOdds("casual", 3, 5).to_dict()
    assert data["name"] == PROFILE_NAMES["casual"] == "A casual player"
    assert data["rate"] == 0.6 and data["deals"] == 5 and data["words"] == "likely"
    assert 0 < data["low"] < 0.6 < data["high"] < 1
