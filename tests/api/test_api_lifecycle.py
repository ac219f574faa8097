"""A whole check through HTTP on SQLite and PostgreSQL, and a check surviving a restart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api_support import GAME, GM_KEY, PARAMS, bearer, running, winning_seed
from litestar.testing import TestClient


def test_whole_check_on_sqlite(
    client: TestClient[Any], whole_check: Callable[[TestClient[Any]], dict[str, Any]]
) -> None:
    record = whole_check(client)
    assert record["status"] == "won"


def test_whole_check_on_postgresql(
    pg_url: str, whole_check: Callable[[TestClient[Any]], dict[str, Any]]
) -> None:
    with running(pg_url) as client:
        record = whole_check(client)
    assert record["status"] == "won"
    with running(pg_url) as client:  # a second app on the same schema: migrations are a no-op
        got = client.get(f"/v1/checks/{record['check_id']}", headers=bearer(GM_KEY))
        assert got.status_code == 200 and got.json()["status"] == "won"


def test_a_check_survives_a_restart(sqlite_url: str) -> None:
    seed, line = winning_seed()
    with running(sqlite_url) as client:
        created = client.post(
            "/v1/checks",
            json={"game": GAME, "params": PARAMS, "seed": seed},
            headers=bearer(GM_KEY),
        ).json()
        player = created["player_token"]
        check = f"/v1/checks/{created['check_id']}"
        first = client.post(f"{check}/moves", json={"move": line[0]}, headers=bearer(player))
        assert first.status_code == 200
        before = first.json()
    with running(sqlite_url) as client:  # a new app, a new engine, a cold cache
        got = client.get(check, headers=bearer(player))
        assert got.status_code == 200
        assert got.json()["observation"] == before["observation"]
        assert got.headers["etag"] == '"1"'
        version = 1
        for code in line[1:]:
            moved = client.post(
                f"{check}/moves", json={"move": code, "expected_version": version},
                headers=bearer(player),
            )  # fmt: skip
            assert moved.status_code == 200, moved.text
            version = moved.json()["version"]
        assert moved.json()["status"] == "won"
        record = client.get(f"{check}/record", headers=bearer(player))
        assert record.status_code == 200
        assert record.json()["record"]["moves"] == line
