"""The odds endpoint (computed once, then cached) and the rate limits."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from api_support import GM_KEY, poll_odds, settings_for
from litestar.testing import TestClient
from live_server import redis_unreachable_reason

from api.app import create_app
from api.odds import MAX_CELLS
from skillcheck.engine import GAMES
from skillcheck.odds import odds
from skillcheck.schema import flat_params
from skillcheck.serialization import game_from_params, game_params

#: A small quota table: quota given three times is an axis (three cells per method).
SMALL: dict[str, Any] = {
    "game": "three-towers",
    "suit": "moons",
    "skill": 3,
    "quota": [1, 2, 3],
    "level": 4,
    "spaces": 4,
    "deals": 6,
}
#: The fields every cell had before the harness became generic (and still has).
QUOTA_CELL = ("method", "suit", "level", "spaces", "skill", "quota")
NUMBERS = ("successes", "trials", "undecided", "rate", "ci95_low", "ci95_high")


def _client(tmp_path: Path) -> TestClient[Any]:
    return TestClient(create_app(settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}")))


def test_odds_match_the_library_and_the_second_answer_comes_from_the_cache(
    tmp_path: Path,
) -> None:
    with _client(tmp_path) as client:
        started, first = poll_odds(client, SMALL)  # computed in the background for a GM
        assert started.status_code == 202 and first.status_code == 200, first.text
        assert first.headers["x-cache"] == "hit"
        again = client.get("/v1/odds", params=SMALL)  # anyone may read what is cached
        assert again.status_code == 200 and again.headers["x-cache"] == "hit"
        assert again.json() == first.json()
    body = first.json()
    assert body["game"] == "three-towers" and body["axes"] == {"quota": [1, 2, 3]}
    assert body["methods"] == ["perfect", "fast"] and body["deals"] == 6 and body["seed"] == 0
    assert body["params"] == {"suit": "moons", "skill": 3, "level": 4, "spaces": 4}
    # the fixed options, defaults filled in, at the top as before
    assert {k: body[k] for k in ("suit", "skill", "level", "spaces")} == body["params"]
    generic = odds(
        "three-towers",
        body["params"],
        {"quota": [1, 2, 3]},
        methods=["perfect", "fast"],
        deals=6,
        seed=0,
    )
    assert [{k: c[k] for k in ("params", "method", *NUMBERS)} for c in body["cells"]] == [
        c.to_dict() for c in generic.cells
    ]
    for cell in body["cells"]:
        assert cell["ci95_low"] <= cell["rate"] <= cell["ci95_high"]


def test_one_quota_keeps_the_fields_of_the_quota_table(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        _, answer = poll_odds(
            client,
            {"game": "three-towers", "suit": "moons", "skill": 5, "quota": 4, "level": 6,
             "deals": 3, "bot": "fast"},
        )  # fmt: skip
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["axes"] == {} and body["methods"] == ["fast"]
    for name, value in {"suit": "moons", "skill": 5, "quota": 4, "level": 6, "spaces": 5}.items():
        assert body[name] == value
    [cell] = body["cells"]
    assert {k: cell[k] for k in QUOTA_CELL} == {
        "method": "fast", "suit": "moons", "level": 6, "spaces": 5, "skill": 5, "quota": 4,
    }  # fmt: skip
    assert cell["trials"] == 3 and 0 <= cell["successes"] <= 3
    assert cell["params"] == {"suit": "moons", "skill": 5, "quota": 4, "level": 6}


def _query(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """A game's structured parameters as the flat query options of /v1/odds."""
    cls = GAMES[name]
    query: dict[str, Any] = {"game": name}
    for option, value in flat_params(cls, params).items():
        if isinstance(value, bool):
            query[option] = "true" if value else "false"
        elif isinstance(value, list):
            query[option] = ",".join(value)
        elif value is not None:
            query[option] = value
    return query


@pytest.mark.parametrize("name", list(GAMES))
def test_odds_of_every_game_through_the_generic_harness(tmp_path: Path, name: str) -> None:
    """Each registered game's first example, as flat options, is one cell per method."""
    example = GAMES[name].examples()[0]
    params = game_params(game_from_params(name, dict(example)))
    with _client(tmp_path) as client:
        _, answer = poll_odds(client, {**_query(name, params), "deals": 2})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["game"] == name and body["axes"] == {}
    assert len(body["cells"]) == len(body["methods"]) >= 1
    for cell in body["cells"]:
        assert cell["trials"] == 2 and 0 <= cell["successes"] <= 2
        assert cell["ci95_low"] <= cell["rate"] <= cell["ci95_high"]


def test_odds_refuse_bad_parameters_naming_them(tmp_path: Path) -> None:
    one = {**SMALL, "quota": 2}
    with _client(tmp_path) as client:
        cases: list[tuple[dict[str, Any], str, str]] = [
            ({**one, "bot": "random"}, "bot", "invalid-parameter"),  # strong: the careful one
            ({**one, "quota": 5}, "quota", "invalid-parameter"),
            ({**one, "suit": "hearts"}, "suit", "invalid-parameter"),
            ({**one, "skill": "three"}, "skill", "invalid-parameter"),
            ({**one, "colour": "red"}, "colour", "invalid-parameter"),
            ({**one, "level": list(range(2, 2 + MAX_CELLS + 1))}, "level", "invalid-parameter"),
            ({k: v for k, v in one.items() if k != "game"}, "game", "invalid-parameter"),
        ]
        for params, field, code in cases:
            response = client.get("/v1/odds", params=params)
            assert response.status_code == 422, (params, response.text)
            assert response.headers["content-type"].startswith("application/problem+json")
            assert response.json()["code"] == code
            assert response.json()["field"] == field, response.text
        missing = client.get("/v1/odds", params={k: v for k, v in one.items() if k != "game"})
        for name in GAMES:
            assert name in missing.json()["detail"]
        unknown = client.get("/v1/odds", params={**one, "game": "chess"})
        assert unknown.status_code == 422 and unknown.json()["code"] == "unknown-game"
        too_many = client.get("/v1/odds", params={**one, "deals": 100_000})
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
    unlimited = dataclasses.replace(settings, rate_limit=None)  # polling is many requests
    try:
        with TestClient(create_app(unlimited)) as one, TestClient(create_app(unlimited)) as two:
            started, done = poll_odds(one, SMALL)
            assert started.status_code == 202 and done.headers["x-cache"] == "hit"
            assert two.get("/v1/odds", params=SMALL).headers["x-cache"] == "hit"
        with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
            statuses = [c.get("/v1/games").status_code for c in (one, two, one, two)]
            assert statuses == [200, 200, 200, 200]
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
