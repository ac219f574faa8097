"""Calibrating a check: the value of the game's difficulty parameter closest to a wanted chance."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from skillcheck.calibrate import Choice, calibrate, choose, plan
from skillcheck.cli import main
from skillcheck.engine import GAMES
from skillcheck.errors import ParameterError
from skillcheck.profiles import Difficulty, gm_odds_of, words_for

#: A quota check small enough to play in a test (level 4, 4 spaces: no shipped grid).
SMALL = {"suit": "moons", "skill": 2, "level": 4, "spaces": 4}


@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=8),
    st.floats(0, 1),
    st.sampled_from(["up", "down"]),
)
def test_the_best_value_is_the_closest_to_the_target_and_ties_go_to_the_easier(
    wins: list[int], target: float, harder: str
) -> None:
    values = tuple(range(1, len(wins) + 1))
    chosen = plan("hanoy", 0.5, "casual", {"skill": 2})
    chosen = type(chosen)("hanoy", Difficulty("cards", values, harder), {}, tuple(  # type: ignore[arg-type]
        {"cards": v} for v in values), "casual", "fast")  # fmt: skip
    choices = [Choice(v, w, 20) for v, w in zip(values, wins, strict=True)]
    answer = choose(chosen, target, choices, "computed")
    best = next(c for c in choices if c.value == answer.best)
    distance = abs(best.rate - target)
    assert all(distance <= abs(c.rate - target) for c in choices)
    tied = [c.value for c in choices if abs(c.rate - target) == distance]
    assert answer.best == (min(tied) if harder == "up" else max(tied))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_declares_its_difficulty(name: str) -> None:
    declared = gm_odds_of(name).difficulty
    assert declared is not None
    # (three-towers' quota and Hanoy's cards turn only against a skill)
    example = {"skill": 3} if name in ("three-towers", "hanoy") else {}
    difficulty = declared(example)
    assert difficulty.values and difficulty.harder in ("up", "down")
    assert difficulty.parameter in {s.name for s in GAMES[name].parameters()}


def test_calibrating_what_no_value_changes_asks_for_the_skill() -> None:
    """Without a skill (or a move limit) every Tower of Hanoy deal is built in the end: every
    number of cards would come out at 100 %, so the answer would mean nothing. Three Towers'
    quota runs from 1 to the skill, so it needs the skill too. Both say so in words that fit
    the CLI and the API alike."""
    for name, fixed in (("hanoy", {}), ("three-towers", {"variant": "quota", "suit": "moons"})):
        declared = gm_odds_of(name).difficulty
        assert declared is not None
        with pytest.raises(ParameterError) as refused:
            declared(fixed)
        assert refused.value.message.endswith("set skill too")
        assert "--" not in refused.value.message
    hanoy = gm_odds_of("hanoy").difficulty
    assert hanoy is not None and hanoy({"move_limit": 40}).parameter == "cards"


def test_an_ivory_check_turns_its_level_as_the_standard_game_does() -> None:
    """An ivory check has a suit but no skill or quota: it was taken for a quota check, and
    the GM page's "Find the difficulty" always failed with "set skill too" for it."""
    towers = gm_odds_of("three-towers").difficulty
    assert towers is not None
    for fixed in ({"variant": "ivory", "suit": "moons"}, {"suit": "moons"}, {}):
        assert towers(fixed).parameter == "level", fixed
    assert towers({"suit": "moons", "skill": 3}).parameter == "quota"


def test_from_the_shipped_tables_in_the_declared_direction() -> None:
    answer = calibrate("hanoy", 0.6, "casual", {"skill": 2})
    assert answer.source == "shipped" and answer.parameter == "cards"
    assert [c.value for c in answer.choices] == list(range(3, 10))
    rates = [c.rate for c in answer.choices]
    assert rates[0] > rates[-1]  # more cards is harder, as the game declares ("up")
    best = next(c for c in answer.choices if c.value == answer.best)
    assert all(abs(best.rate - 0.6) <= abs(c.rate - 0.6) for c in answer.choices)
    data = answer.to_dict()
    assert data["best"] == answer.best and len(data["choices"]) == 7
    assert all(c["words"] == words_for(c["rate"]) for c in data["choices"])
    assert str(answer.best) in data["summary"] and "60 %" in data["summary"]


def test_computed_when_no_table_holds_it() -> None:
    answer = calibrate("three-towers", 0.5, "ceiling", SMALL, deals=3,
                       executor=ThreadPoolExecutor(1))  # fmt: skip
    assert answer.source == "computed" and answer.parameter == "quota"
    assert [c.value for c in answer.choices] == [1, 2]
    assert all(c.deals == 3 for c in answer.choices)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("hanoy", 1.5, "casual", {"skill": 2}), "target"),
        (("hanoy", 0.5, "lucky", {"skill": 2}), "profile"),
        (("hanoy", 0.5, "careful", {"skill": 2}), "profile"),  # Hanoy has no strong bot
        (("hanoy", 0.5, "casual", {"skill": 2, "cards": 5}), "cards"),  # what it chooses
        (("three-towers", 0.5, "casual", {"variant": "quota", "suit": "moons"}), "skill"),
        (("chess", 0.5, "casual", {}), "game"),
    ],
)
def test_bad_requests_name_what_was_wrong(args: tuple[object, ...], field: str) -> None:
    with pytest.raises(ParameterError) as caught:
        calibrate(*args)  # type: ignore[arg-type]
    assert caught.value.parameter == field


def test_the_command_prints_every_value_with_the_closest_marked() -> None:
    result = CliRunner().invoke(main, ["calibrate", "hanoy", "--target", "0.6", "--skill", "2"])
    assert result.exit_code == 0, result.output
    answer = calibrate("hanoy", 0.6, "casual", {"skill": 2})
    marked = [line for line in result.output.splitlines() if "◀ closest to 60 %" in line]
    assert len(marked) == 1 and f" {answer.best} " in marked[0]
    assert "A casual player" in result.output and "the shipped tables" in result.output
    as_json = CliRunner().invoke(
        main, ["calibrate", "hanoy", "--target", "0.6", "--skill", "2", "--json"]
    )
    assert json.loads(as_json.output) == answer.to_dict()


def test_the_command_computes_with_progress_when_asked_for_deals() -> None:
    args = ["calibrate", "three-towers", "--target", "0.5", "--profile", "ceiling",
            "--suit", "moons", "--skill", "2", "--level", "4", "--spaces", "4", "--deals", "2",
            "--workers", "1", "--json"]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["source"] == "computed" and [c["deals"] for c in data["choices"]] == [2, 2]
    # Not a terminal (a log, a pipe): progress is plain lines, the first at once, then the end.
    progress = result.stderr.splitlines()
    assert progress[0].startswith("playing deals: ") and " s)" in progress[0]
    assert progress[-1].startswith("playing deals: 4/4 (100 %, ")
    refused = CliRunner().invoke(main, ["calibrate", "hanoy", "--target", "2", "--skill", "2"])
    assert refused.exit_code == 2 and "from 0 to 1" in refused.output


def test_options_that_leave_no_difficulty_value_are_a_parameter_error() -> None:
    """Found by schemathesis: skill 0 leaves a quota check no quota to choose (it was an
    assertion, a 500 through the API)."""
    from skillcheck.calibrate import plan
    from skillcheck.errors import ParameterError

    with pytest.raises(ParameterError):
        plan("three-towers", 0.5, "casual", {"skill": 0})
    with pytest.raises(ParameterError):
        plan("three-towers", 0.5, "casual", {"suit": "moons", "skill": 0})
