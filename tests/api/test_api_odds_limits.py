"""The odds endpoint (computed once, then cached) and the rate limits."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from api_support import GM_KEY, settings_for
from litestar.testing import TestClient
from live_server import redis_unreachable_reason

from api.app import create_app
from skillcheck.games.three_towers.odds import quota_odds

SMALL = {"suit": "moons", "skill": 3, "level": 4, "spaces": 4, "deals": 6}


def test_odds_match_the_library_and_the_second_answer_comes_from_the_cache(
    tmp_path: Path,
) -> None:
    with TestClient(create_app(settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}"))) as client:
        first = client.get("/v1/odds", params=SMALL)
        assert first.status_code == 200, first.text
        assert first.headers["x-cache"] == "miss"
        again = client.get("/v1/odds", params=SMALL)
        assert again.headers["x-cache"] == "hit"
        assert again.json() == first.json()
    body = first.json()
    assert body["quotas"] == [1, 2, 3] and body["methods"] == ["perfect", "fast"]
    expected = quota_odds("moons", [3], [1, 2, 3], level=4, spaces=4, deals=6, seed=0)
    assert sorted(body["cells"], key=repr) == sorted(expected.rows(), key=repr)
    for cell in body["cells"]:
        assert cell["ci95_low"] <= cell["rate"] <= cell["ci95_high"]


def test_odds_refuse_bad_parameters_naming_them(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}"))) as client:
        cases: list[tuple[dict[str, Any], str]] = [
            ({**SMALL, "bot": "strong"}, "bot"),
            ({**SMALL, "quota": 5}, "quota"),
            ({**SMALL, "suit": "hearts"}, "suit"),
        ]
        for params, field in cases:
            response = client.get("/v1/odds", params=params)
            assert response.status_code == 422, (params, response.text)
            assert response.headers["content-type"].startswith("application/problem+json")
            assert response.json()["code"] == "invalid-parameter"
            assert response.json()["field"] == field
        too_many = client.get("/v1/odds", params={**SMALL, "deals": 100_000})
        assert too_many.status_code == 400
        assert "deals" in too_many.text


def test_rate_limit_answers_429_problem_json_and_spares_health(tmp_path: Path) -> None:

    settings = dataclasses.replace(
        settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}"), rate_limit=("minute", 3)
    )
    with TestClient(create_app(settings)) as client:
        statuses = [client.get("/v1/games").status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        limited = client.get("/v1/games")
        assert limited.headers["content-type"].startswith("application/problem+json")
        assert int(limited.headers["ratelimit-limit"]) == 3
        assert 0 < int(limited.headers["retry-after"]) <= 60
        assert limited.json()["code"] == "rate-limited"
        assert "at most 3 requests per 60 s" in limited.json()["detail"]
        assert client.get("/health").status_code == 200
        created = client.post("/v1/checks", json={}, headers={"Authorization": f"Bearer {GM_KEY}"})
        assert created.status_code == 429  # every client, GM included, shares the budget


def test_with_redis_two_apps_share_rate_limit_counters_and_the_odds_cache(tmp_path: Path) -> None:
    """Several API processes behind one address budget: the counters live in Redis."""
    reason = redis_unreachable_reason()
    if reason is not None:
        pytest.skip(reason)
    settings = dataclasses.replace(
        settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}"),
        rate_limit=("minute", 4),
        redis_url="redis://127.0.0.1:6379/0",
        redis_prefix=f"skillcheck-test-{uuid.uuid4().hex}",
    )
    try:
        with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
            assert one.get("/v1/odds", params=SMALL).headers["x-cache"] == "miss"
            assert two.get("/v1/odds", params=SMALL).headers["x-cache"] == "hit"
            statuses = [c.get("/v1/games").status_code for c in (one, two)]
            assert statuses == [200, 200]
            assert two.get("/v1/games").status_code == 429
    finally:
        client = redis.Redis.from_url("redis://127.0.0.1:6379/0")
        for key in client.scan_iter(f"{settings.redis_prefix}*"):
            client.delete(key)


def test_rate_limit_setting_parses_and_names_what_is_allowed() -> None:
    from api.settings import DEFAULT_RATE_LIMIT, Settings, parse_rate_limit

    assert parse_rate_limit("600/minute") == ("minute", 600)
    assert parse_rate_limit(" 5/Second ") == ("second", 5)
    assert parse_rate_limit("off") is None
    assert parse_rate_limit(None) == DEFAULT_RATE_LIMIT
    for bad in ("fast", "10/fortnight", "-3/minute", "0/minute"):
        with pytest.raises(ValueError, match="second, minute, hour, day"):
            parse_rate_limit(bad)
    env = {"SKILLCHECK_RATE_LIMIT": "off", "SKILLCHECK_REDIS_URL": "redis://r:6379/1"}
    settings = Settings.from_env(env)
    assert settings.rate_limit is None and settings.redis_url == "redis://r:6379/1"
