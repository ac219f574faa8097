"""Hints and finishing a won check through the HTTP API (docs/api.md): ``hints`` at creation,
``POST .../hint`` (the fair fast bot's move, logged, counted in views, events and the revealed
record), ``POST .../finish`` once ``can_finish`` is true; refusals are 422 problems that change
nothing, and only the player may do either."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import GM_KEY, bearer
from litestar.testing import TestClient

from skillcheck import make_game
from skillcheck.sessions import HINT_BOT
from skillcheck.solving import make_bot

PROBLEM = "application/problem+json"
GAME = "three-towers"


def create(client: TestClient[Any], **body: Any) -> dict[str, Any]:
    answer = client.post(
        "/v1/checks", json={"game": GAME, "seed": 1, **body}, headers=bearer(GM_KEY)
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def test_a_hint_through_the_api(client: TestClient[Any]) -> None:
    check = create(client, hints=True)
    assert check["view"]["hints"] is True and check["view"]["hints_used"] == 0
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    answer = client.post(f"{url}/hint", json={"expected_version": 0}, headers=player)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    game = make_game(GAME)
    expected = make_bot(game, HINT_BOT).choose(game, game.new_state(1).observation())
    assert body["hint"]["code"] == expected.code
    assert body["hint"] in body["view"]["moves"]
    assert body["view"]["version"] == 1 and body["view"]["hints_used"] == 1
    assert answer.headers["etag"] == '"1"'
    stale = client.post(f"{url}/hint", json={"expected_version": 0}, headers=player)
    assert stale.status_code == 409 and stale.json()["code"] == "version-conflict"
    events = client.get(f"{url}/events", headers=player).json()["events"]
    assert [e["kind"] for e in events] == ["created", "hint"]
    assert events[-1]["payload"]["move"] == expected.code
    assert events[-1]["payload"]["hints_used"] == 1
    client.post(f"{url}/concede", headers=player)
    record = client.get(f"{url}/record", headers=player).json()
    assert record["hints_used"] == 1
    assert "hint" not in record["record"]["moves"]


def test_hints_off_is_a_422_that_changes_nothing(client: TestClient[Any]) -> None:
    check = create(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    refused = client.post(f"{url}/hint", headers=player)
    assert refused.status_code == 422 and refused.headers["content-type"].startswith(PROBLEM)
    assert refused.json()["code"] == "hints-off"
    assert "did not allow hints" in refused.json()["detail"]
    assert client.get(url, headers=player).json()["version"] == 0


@pytest.mark.parametrize("value", ["true", 1, None, [True]])
def test_hints_takes_only_true_or_false(client: TestClient[Any], value: Any) -> None:
    refused = client.post(
        "/v1/checks", json={"game": GAME, "hints": value}, headers=bearer(GM_KEY)
    )
    assert refused.status_code in (400, 422), refused.text
    assert refused.json().get("field") == "hints"


@pytest.mark.parametrize("action", ["hint", "finish"])
def test_only_the_player_may_ask(client: TestClient[Any], action: str) -> None:
    check = create(client, hints=True)
    url = f"/v1/checks/{check['check_id']}"
    for token, status in ((check["spectator_token"], 403), (GM_KEY, 403), ("sc_play_x", 401)):
        answer = client.post(f"{url}/{action}", headers=bearer(token))
        assert answer.status_code == status, (token, answer.text)
    assert client.get(url, headers=bearer(check["player_token"])).json()["version"] == 0


def test_finish_through_the_api(client: TestClient[Any]) -> None:
    check = create(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    refused = client.post(f"{url}/finish", headers=player)
    assert refused.status_code == 422 and refused.json()["code"] == "cannot-finish"
    assert client.get(url, headers=player).json()["version"] == 0
    game = make_game(GAME)
    line = game.solver().solve(game.new_state(1)).moves
    view: dict[str, Any] = check["view"]
    for move in line:
        view = client.post(f"{url}/moves", json={"move": move.code}, headers=player).json()
        if view["can_finish"]:
            break
    assert view["can_finish"] is True
    finished = client.post(f"{url}/finish", json={"expected_version": view["version"]},
                           headers=player)  # fmt: skip
    assert finished.status_code == 200, finished.text
    assert finished.json()["status"] == "won" and finished.json()["can_finish"] is False
    record = client.get(f"{url}/record", headers=player).json()
    assert record["status"] == "won" and record["hints_used"] == 0
