"""The tier of a result and the undo policies through the HTTP API (docs/api.md): ``tiers`` in
the creation body, ``tier``/``tier_text`` in views, records, events and webhooks, ``safe`` undo by
default with its refusal in words, and strict values for both."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import GAME, GM_KEY, PARAMS, bearer
from litestar.testing import TestClient

from skillcheck.engine import UNDO_REVEALED

PROBLEM = "application/problem+json"


def create(client: TestClient[Any], **body: Any) -> Any:
    return client.post(
        "/v1/checks", json={"game": GAME, "params": PARAMS, "seed": 21, **body},
        headers=bearer(GM_KEY),
    )  # fmt: skip


def test_checks_made_through_the_api_take_back_only_what_reveals_nothing(
    client: TestClient[Any],
) -> None:
    created = create(client)
    assert created.status_code == 201, created.text
    check = created.json()
    assert check["view"]["params"]["undo"] == "safe" and not check["view"]["can_undo"]
    assert check["view"]["undo_refusal"] == "nothing to undo: no move has been made yet"
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    moved = client.post(f"{url}/moves", json={"move": "d3"}, headers=player).json()
    assert moved["can_undo"] is False  # d3 turned the next card up
    assert moved["undo_refusal"] == UNDO_REVEALED  # and the view says so, as the refusal will
    refused = client.post(f"{url}/undo", headers=player)
    assert refused.status_code == 422 and refused.headers["content-type"].startswith(PROBLEM)
    assert refused.json()["code"] == "undo-not-allowed"
    assert UNDO_REVEALED in refused.json()["detail"]
    assert client.get(url, headers=player).json()["version"] == 1  # nothing changed
    tower = next((m for m in moved["moves"] if m["from"] != "deck"), None)
    if tower is not None:  # a tower move reveals nothing: it may be taken back
        after = client.post(f"{url}/moves", json={"move": tower["code"]}, headers=player).json()
        if after["status"] == "in_progress":
            assert after["can_undo"] is True and after["undo_refusal"] is None
            undone = client.post(f"{url}/undo", headers=player)
            assert undone.status_code == 200 and undone.json()["moves_made"] == 1


@pytest.mark.parametrize("value", [True, False, "false", "on", 0])
def test_undo_takes_only_off_safe_or_full(client: TestClient[Any], value: Any) -> None:
    refused = create(client, params={**PARAMS, "undo": value})
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["code"] == "invalid-parameter" and body["field"] == "undo"
    assert "one of off, safe, full" in body["detail"]


def test_the_games_say_safe_is_the_default(client: TestClient[Any]) -> None:
    for game in client.get("/v1/games").json()["games"]:
        (undo,) = [p for p in game["parameters"] if p["name"] == "undo"]
        assert undo["kind"] == "choice" and undo["default"] == "safe"
        assert undo["choices"] == ["off", "safe", "full"]
        schema = client.get(f"/v1/games/{game['name']}").json()["schema"]
        assert schema["properties"]["undo"]["default"] == "safe"


def test_the_tier_reaches_the_view_the_record_and_the_events(client: TestClient[Any]) -> None:
    created = create(client, tiers={"critical_success": 2, "critical_failure": -4})
    assert created.status_code == 201, created.text
    check = created.json()
    assert check["view"]["tier"] is None and check["view"]["tier_text"] is None
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    ended = client.post(f"{url}/concede", headers=player).json()
    # quota 3 with nothing built: degree -3, above the GM's -4: a failure, not a critical one
    assert ended["degree"] == -3 and ended["tier"] == "failure"
    assert ended["tier_text"] == "Failure"
    record = client.get(f"{url}/record", headers=player).json()
    assert record["tier"] == "failure" and record["tier_text"] == "Failure"
    assert record["record"]["tier"] == "failure"
    assert record["record"]["tiers"] == {"critical_success": 2, "critical_failure": -4}
    events = client.get(f"{url}/events", headers=player).json()["events"]
    assert events[-1]["payload"]["view"]["tier"] == "failure"
    # by the game's defaults (a critical failure at -2 for a quota of 3) it is a critical one
    other = create(client).json()
    oplayer = bearer(other["player_token"])
    conceded = client.post(f"/v1/checks/{other['check_id']}/concede", headers=oplayer).json()
    assert conceded["degree"] == -3 and conceded["tier"] == "critical_failure"


def test_a_cancelled_check_has_no_tier(client: TestClient[Any]) -> None:
    check = create(client).json()
    url = f"/v1/checks/{check['check_id']}"
    cancelled = client.post(f"{url}/cancel", json={}, headers=bearer(GM_KEY)).json()
    assert cancelled["status"] == "cancelled" and cancelled["tier"] is None
    record = client.get(f"{url}/record", headers=bearer(GM_KEY)).json()
    assert record["tier"] is None and record["tier_text"] is None


@pytest.mark.parametrize(
    ("tiers", "words"),
    [
        ({"critical_success": 1, "critical_failure": 1}, "must be greater than"),
        ({"critical_success": -4, "critical_failure": 2}, "must be greater than"),
        ({"critical_success": "5", "critical_failure": -2}, 'tiers.critical_success "5"'),
        ({"critical_success": 5.0, "critical_failure": -2}, "tiers.critical_success 5.0"),
        ({"critical_success": 5, "critical_failure": True}, "tiers.critical_failure true"),
        ({"critical_success": 5}, "tiers.critical_failure is missing"),
        ({"critical_success": 5, "critical_failure": -2, "fumble": 1}, 'key "fumble" in tiers'),
    ],
)
def test_thresholds_are_refused_unless_whole_numbers_in_order(
    client: TestClient[Any], tiers: Any, words: str
) -> None:
    refused = create(client, tiers=tiers, label="refused")
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["code"] == "invalid-parameter" and body["field"] == "tiers"
    assert words in body["detail"]
