"""The four tiers of a result (docs/rules.md, "Tiers"): the thresholds, their strict reading, each
game's defaults, and the tier in the view, the record, the revealed record and the webhook."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcheck import Hanoy, ParameterError, ParseError, RecordError, ThreeTowers
from skillcheck.engine import EndReason, Outcome, Status, Tier, Tiers
from skillcheck.games.tripeaks.rules import Tripeaks
from skillcheck.records import GameRecord, verify
from skillcheck.serialization import game_from_params
from skillcheck.sessions import CheckConfig, RevealedRecord, SessionService

QUOTA = {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}


def outcome(won: bool, degree: int) -> Outcome:
    status = Status.WON if won else Status.LOST
    return Outcome(status, EndReason.GOAL if won else EndReason.CONCEDED, degree, "")


def test_the_tiers_and_their_words() -> None:
    assert [(t.value, t.text) for t in Tier] == [
        ("critical_success", "Critical success"),
        ("success", "Success"),
        ("failure", "Failure"),
        ("critical_failure", "Critical failure"),
    ]
    tiers = Tiers(5, -3)
    assert tiers.tier(outcome(True, 5)) is Tier.CRITICAL_SUCCESS
    assert tiers.tier(outcome(True, 4)) is Tier.SUCCESS
    assert tiers.tier(outcome(False, -2)) is Tier.FAILURE
    assert tiers.tier(outcome(False, -3)) is Tier.CRITICAL_FAILURE


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"critical_success": 2, "critical_failure": 2}, "must be greater than"),
        ({"critical_success": 1, "critical_failure": 4}, "must be greater than"),
        ({"critical_success": "7", "critical_failure": -2}, "whole number"),
        ({"critical_success": 7.0, "critical_failure": -2}, "whole number"),
        ({"critical_success": True, "critical_failure": -2}, "whole number"),
        ({"critical_success": 7, "critical_failure": None}, "whole number"),
        ({"critical_success": 7}, "critical_failure is missing"),
        (
            {"critical_success": 7, "critical_failure": -2, "fumble": -9},
            'unknown key "fumble" in tiers',
        ),
        ([7, -2], "must be an object"),
    ],
)
def test_thresholds_are_read_strictly(data: Any, words: str) -> None:
    with pytest.raises(ParameterError, match=words) as caught:
        Tiers.from_dict(data)
    assert caught.value.parameter == "tiers"
    service = SessionService()
    with pytest.raises(ParameterError, match=words):
        service.create("three-towers", tiers=data)
    assert not service.store.check_ids()  # type: ignore[attr-defined]


thresholds = st.tuples(st.integers(-100, 100), st.integers(-100, 100)).filter(
    lambda pair: pair[0] > pair[1]
)
results = st.tuples(st.booleans(), st.integers(-200, 200))


@given(pair=thresholds, first=results, second=results)
def test_the_tier_never_falls_as_the_result_rises(
    pair: tuple[int, int], first: tuple[bool, int], second: tuple[bool, int]
) -> None:
    """Monotone: for fixed thresholds, a better result (a win over a loss, or the same status
    with a higher degree) never gets a lower tier."""
    tiers = Tiers(*pair)
    low, high = sorted([first, second])  # (False, d) < (True, d'); then by degree
    assert tiers.tier(outcome(*low)).rank <= tiers.tier(outcome(*high)).rank
    assert tiers.tier(outcome(True, high[1])).rank >= Tier.SUCCESS.rank
    assert tiers.tier(outcome(False, low[1])).rank <= Tier.FAILURE.rank


# ---- each game's defaults (the formulas of docs/rules.md and docs/games/*.md) -----------------


@pytest.mark.parametrize(
    ("level", "skill", "quota", "expected"),
    [
        (9, 5, 4, Tiers(7, -3)),  # 21 cards: 21 - 4*22/6 = 6.3 left on average
        (9, 5, 2, Tiers(14, -2)),
        (9, 8, 8, Tiers(2, -5)),
        (6, 3, 2, Tiers(6, -2)),
        (2, 1, 1, Tiers(1, -1)),  # at least one card to spare
    ],
)
def test_three_towers_quota_defaults(level: int, skill: int, quota: int, expected: Tiers) -> None:
    game = ThreeTowers.quota_check("moons", skill, quota, level=level)
    assert game.default_tiers() == expected
    most = 2 * (level - 1) + skill - quota  # the most cards a win can leave
    assert expected.critical_success <= most


def test_the_standard_game_has_no_margin_of_success() -> None:
    game = ThreeTowers(level=6)
    assert game.default_tiers() == Tiers(16, 7)
    assert game.tier(outcome(True, 15)) is Tier.SUCCESS  # a win always places all 15 cards
    assert game.tier(outcome(False, 7)) is Tier.CRITICAL_FAILURE
    assert game.tier(outcome(False, 8)) is Tier.FAILURE


def test_hanoy_defaults_follow_the_spare_moves_and_the_cards() -> None:
    assert Hanoy(cards=9, skill=64).default_tiers() == Tiers(32, -128)
    assert Hanoy(cards=5, skill=2).default_tiers() == Tiers(1, -8)
    assert Hanoy(cards=3, skill=0).default_tiers() == Tiers(1, -2)
    assert Hanoy(cards=7).default_tiers() == Tiers(8, 3)


def test_tripeaks_defaults_follow_the_peaks_the_stock_and_the_target() -> None:
    assert Tripeaks().default_tiers() == Tiers(7, -6)
    assert Tripeaks(empty_waste=True).default_tiers() == Tiers(8, -6)
    assert Tripeaks(peaks=1).default_tiers() == Tiers(11, -3)
    assert Tripeaks(peaks=2).default_tiers() == Tiers(9, -4)
    assert Tripeaks(rules="tritowers", target=60).default_tiers() == Tiers(60, -90)
    assert Tripeaks(rules="tritowers", target=20).default_tiers() == Tiers(60, -50)
    assert Tripeaks(rules="tritowers").default_tiers() == Tiers(100, -6)


# ---- sessions, records, webhooks --------------------------------------------------------------


def finished(tiers: dict[str, int] | None = None, *, concede: bool = True) -> Any:
    service = SessionService()
    created = service.create("three-towers", {"variant": QUOTA}, seed=3, tiers=tiers)
    check = created.check_id
    assert created.view.tier is None and created.view.to_dict()["tier_text"] is None
    service.move(check, "d1")
    if concede:
        service.concede(check)
    return service, check


def test_the_view_record_and_events_carry_the_tier() -> None:
    service, check = finished()
    view = service.view(check)
    # conceded at once: the tallest moons tower holds 0, 4 short: -4 <= -3
    assert view.degree == -4 and view.tier is Tier.CRITICAL_FAILURE
    assert view.to_dict()["tier"] == "critical_failure"
    assert view.to_dict()["tier_text"] == "Critical failure"
    revealed = service.record(check)
    data = revealed.to_dict()
    assert data["tier"] == "critical_failure" and data["tier_text"] == "Critical failure"
    assert data["record"]["tier"] == "critical_failure"
    assert data["record"]["tiers"] == {"critical_success": 7, "critical_failure": -3}
    ended = service.events(check)[-1]
    assert ended.payload["view"]["tier"] == "critical_failure"
    assert ended.payload["record"]["tier"] == "critical_failure"
    assert RevealedRecord.from_json(revealed.to_json()).verify().outcome == view.outcome


def test_the_gm_thresholds_grade_the_check() -> None:
    service, check = finished({"critical_success": 3, "critical_failure": -5})
    view = service.view(check)
    assert view.degree == -4 and view.tier is Tier.FAILURE
    record = service.record(check)
    assert record.record.tiers == Tiers(3, -5)
    assert record.verify().outcome is not None
    assert service.store.load(check).config.to_dict()["tiers"] == {
        "critical_success": 3,
        "critical_failure": -5,
    }


def test_a_cancelled_check_has_no_tier() -> None:
    service, check = finished(concede=False)
    view = service.cancel(check, "the dragon woke up")
    assert view.tier is None and view.to_dict()["tier_text"] is None
    data = service.record(check).to_dict()
    assert data["tier"] is None and data["record"]["tier"] is None
    RevealedRecord.from_dict(data).verify()


def test_a_stored_config_without_tiers_loads_with_the_game_defaults() -> None:
    data = CheckConfig("three-towers", {"variant": QUOTA}).to_dict()
    assert data["tiers"] is None
    del data["tiers"]
    assert CheckConfig(**data).thresholds is None


def test_verify_grades_the_record_again() -> None:
    state = game_from_params("three-towers", {"variant": QUOTA}).new_state(3)
    state.concede()
    data = state.record().to_dict()
    assert data["tier"] == "critical_failure"
    tampered = {**data, "tier": "failure"}
    with pytest.raises(RecordError, match="claims the tier failure but its outcome gives "
                       "critical_failure"):  # fmt: skip
        verify(GameRecord.from_dict(tampered))
    # the GM's thresholds travel with the record and are the ones it is graded by
    lenient = {**data, "tier": "failure", "tiers": {"critical_success": 9, "critical_failure": -9}}
    assert verify(GameRecord.from_dict(lenient)).outcome is not None
    with pytest.raises(ParseError, match="whole number"):
        GameRecord.from_dict({**data, "tiers": {"critical_success": "9", "critical_failure": -9}})
    # records written before tiers existed verify as before
    old = {k: v for k, v in data.items() if k not in ("tier", "tiers")}
    assert verify(GameRecord.from_json(json.dumps(old))).outcome is not None


def test_a_revealed_record_with_a_tampered_tier_is_refused() -> None:
    service, check = finished()
    data = service.record(check).to_dict()
    with pytest.raises(ParseError, match='says the tier is "success"'):
        RevealedRecord.from_dict({**data, "tier": "success"})


def test_the_webhook_payload_carries_the_tier() -> None:
    from api.webhooks import result_payload

    service, check = finished()
    body = result_payload(service.view(check), "check.ended", datetime(2026, 1, 1, tzinfo=UTC))
    assert body["data"]["tier"] == "critical_failure"
    assert body["data"]["tier_text"] == "Critical failure"
    service, check = finished(concede=False)
    body = result_payload(
        service.cancel(check), "check.cancelled", datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert body["data"]["tier"] is None and body["data"]["tier_text"] is None
