"""What a new user's first run of the HTTP API found: each section is one deviation, with
tests that fail on the code before its fix (the section's comment says what the run saw)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from api_support import GAME, GM_KEY, PARAMS, bearer
from litestar.testing import TestClient

from api.db import CheckRow
from skillcheck.engine import GAMES

PROBLEM = "application/problem+json"
GM = bearer(GM_KEY)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status and body["detail"], body
    return body


def check_count(client: TestClient[Any]) -> int:
    engine = client.app.state.runtime.store.config.get_engine()
    with engine.connect() as connection:
        count = connection.execute(sa.select(sa.func.count()).select_from(CheckRow))
        return int(count.scalar_one())


def new_check(client: TestClient[Any]) -> dict[str, Any]:
    made = client.post("/v1/checks", json={"game": GAME, "params": PARAMS, "seed": 7}, headers=GM)
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def post_raw(
    client: TestClient[Any], path: str, raw: bytes, headers: dict[str, str], **extra: str
) -> Any:
    return client.post(path, content=raw, headers={**headers, **extra})


# ---- 4. weak If-Match ----------------------------------------------------------------------------
# If-Match: W/"0" (a weak ETag) matched; If-Match compares strongly (RFC 9110): 400.


@pytest.mark.parametrize("tag", ['W/"0"', ' W/"0" ', 'W/"1"'])
def test_a_weak_etag_in_if_match_is_refused_and_changes_nothing(
    client: TestClient[Any], tag: str
) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    move = check["view"]["legal_moves"][0]
    answer = client.post(f"{url}/moves", json={"move": move}, headers={**player, "If-Match": tag})
    body = problem(answer, 400, "invalid-if-match")
    assert body["field"] == "If-Match" and body["title"] == "Bad request"
    assert "strong" in body["detail"] and '"3"' in body["detail"], body["detail"]
    assert client.get(url, headers=player).json()["version"] == 0
    strong = client.post(f"{url}/moves", json={"move": move}, headers={**player, "If-Match": '"0"'})
    assert strong.status_code == 200, strong.text


def test_if_none_match_still_compares_weakly(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    assert client.get(url, headers={**player, "If-None-Match": 'W/"0"'}).status_code == 304


# ---- 7. one title per code -----------------------------------------------------------------------
# invalid-parameter had two titles ("Invalid parameter", "Unprocessable request"), and so
# had unknown-game, version-conflict and validation-error: one title per code now.


def test_every_code_has_one_title(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    create = "/v1/checks"
    answers = [
        client.post(create, json={"game": GAME, "params": {**PARAMS, "level": 99}}, headers=GM),
        client.post(create, json={"game": GAME, "tiers": {"critical_success": 1}}, headers=GM),
        client.post(create, json={"game": GAME, "seed": -1}, headers=GM),
        client.post(create, json={"game": GAME, "character": "a\x01"}, headers=GM),
        client.post(create, json={"params": {}}, headers=GM),
        client.post(f"{url}/undo", json={"expected_version": -1}, headers=player),
        client.get("/v1/odds", params={"game": GAME, "suit": "stars"}),
        client.post(create, json={"game": "poker"}, headers=GM),
        client.get("/v1/games/poker"),
        client.get("/v1/odds", params={"game": "poker"}),
        client.get("/v1/checks/no-such-check", headers=GM),
        client.post(f"{url}/moves", json={"move": "d1"}, headers={**player, "If-Match": '"5"'}),
        client.post(f"{url}/moves", json={"move": "d1", "expected_version": 5}, headers=player),
        client.post(create, json={"game": GAME, "bogus": 1}, headers=GM),
        client.post(create, headers=GM),
        client.get("/v1/checks", params={"limit": "0"}, headers=GM),
    ]
    titles: dict[str, set[str]] = {}
    for answer in answers:
        assert answer.status_code >= 400, answer.text
        body = answer.json()
        titles.setdefault(body["code"], set()).add(body["title"])
    assert {
        "invalid-parameter", "unknown-game", "check-not-found", "version-conflict",
        "validation-error",
    } <= set(titles)  # fmt: skip
    assert all(len(found) == 1 for found in titles.values()), titles
    assert titles["invalid-parameter"] == {"Invalid parameter"}
    assert titles["version-conflict"] == {"Version conflict"}
    assert titles["unknown-game"] == {"Unknown game"}


# ---- 8. the games in registry order --------------------------------------------------------------
# The creation's unknown-game listed the games sorted, everything else in registry order.


def test_every_list_of_games_is_in_registry_order(client: TestClient[Any]) -> None:
    order = ", ".join(g["name"] for g in client.get("/v1/games").json()["games"])
    assert order == ", ".join(GAMES)
    details = [
        client.post("/v1/checks", json={"game": "poker"}, headers=GM).json()["detail"],
        client.get("/v1/games/poker").json()["detail"],
        client.get("/v1/odds", params={"game": "poker"}).json()["detail"],
        client.get("/v1/calibrate", params={"game": "poker", "target": "0.5"}).json()["detail"],
        client.post("/v1/checks", json={"params": {}}, headers=GM).json()["detail"],
    ]
    for detail in details:
        assert order in detail, detail


# ---- the standard variant given a suit -----------------------------------------------------------
# A standard variant given a suit was refused with field "params" and cattrs' words ("extra
# fields found (suit) @ $.variant"): the field is the parameter now, in a sentence.


def test_a_member_the_variant_does_not_take_is_named_as_the_parameter(
    client: TestClient[Any],
) -> None:
    params = {"variant": {"kind": "standard", "suit": "moons"}}
    answer = client.post("/v1/checks", json={"game": GAME, "params": params}, headers=GM)
    body = problem(answer, 422, "invalid-parameter")
    assert body["field"] == "suit", body
    assert body["detail"].startswith("variant.suit is not allowed"), body["detail"]
    assert '"standard"' in body["detail"] and "@" not in body["detail"], body["detail"]
