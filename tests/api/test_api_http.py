"""Versions, idempotency, roles, problem+json, games, the schema and the docs page, headers."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import (
    GAME,
    GM_KEY,
    OTHER_GM_KEY,
    PARAMS,
    bearer,
    running,
    settings_for,
    winning_seed,
)
from litestar.testing import TestClient

from api.app import create_app
from api.settings import Settings
from skillcheck.errors import VersionConflictError
from skillcheck.sessions import Action, Append, CheckStatus

PROBLEM = "application/problem+json"


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["code"] == code
    assert body["type"].endswith("/" + code) and body["title"] and body["detail"]
    return body


def new_check(client: TestClient[Any], **extra: Any) -> dict[str, Any]:
    seed, _ = winning_seed()
    created = client.post(
        "/v1/checks",
        json={"game": GAME, "params": PARAMS, "seed": seed, **extra},
        headers=bearer(GM_KEY),
    )
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return body


def test_games_list_parameters_defaults_and_ranges(client: TestClient[Any]) -> None:
    games = client.get("/v1/games").json()["games"]
    tower = next(g for g in games if g["name"] == "three-towers")
    level = next(p for p in tower["parameters"] if p["name"] == "level")
    assert level == {**level, "kind": "int", "default": 9, "minimum": 2, "maximum": 9}
    variant = next(p for p in tower["parameters"] if p["name"] == "variant")
    assert "quota" in variant["choices"]


def test_stale_version_is_refused_and_changes_nothing(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    _, line = winning_seed()
    assert client.post(f"{url}/moves", json={"move": line[0]}, headers=player).status_code == 200
    before = client.get(url, headers=player).json()
    events_before = client.get(f"{url}/events", headers=player).json()
    stale = client.post(
        f"{url}/moves", json={"move": line[1]}, headers={**player, "If-Match": '"0"'}
    )
    body = assert_problem(stale, 412, "version-conflict")
    assert body["expected_version"] == 0 and body["actual_version"] == 1
    stale = client.post(
        f"{url}/moves", json={"move": line[1], "expected_version": 0}, headers=player
    )
    assert_problem(stale, 409, "version-conflict")
    assert_problem(
        client.post(f"{url}/undo", json={"expected_version": 5}, headers=player),
        409,
        "version-conflict",
    )
    assert client.get(url, headers=player).json() == before
    assert client.get(f"{url}/events", headers=player).json() == events_before
    mismatch = client.post(
        f"{url}/moves",
        json={"move": line[1], "expected_version": 1},
        headers={**player, "If-Match": '"0"'},
    )
    assert assert_problem(mismatch, 400, "version-mismatch")["field"] == "expected_version"
    bad = client.post(f"{url}/moves", json={"move": line[1]}, headers={**player, "If-Match": "x"})
    assert assert_problem(bad, 400, "invalid-if-match")["field"] == "If-Match"


def test_idempotent_retry_acts_once(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    _, line = winning_seed()
    headers = {**player, "Idempotency-Key": "move-1"}
    first = client.post(f"{url}/moves", json={"move": line[0]}, headers=headers)
    again = client.post(f"{url}/moves", json={"move": line[0]}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() and again.json()["version"] == 1
    assert client.get(url, headers=player).json()["version"] == 1
    other = client.post(f"{url}/moves", json={"move": line[1]}, headers=headers)
    assert_problem(other, 422, "idempotency-conflict")
    assert client.get(url, headers=player).json()["version"] == 1


def test_roles(client: TestClient[Any]) -> None:
    check = new_check(client)
    url = f"/v1/checks/{check['check_id']}"
    player, spectator = bearer(check["player_token"]), bearer(check["spectator_token"])
    _, line = winning_seed()
    # no token: 401; a token that is not a GM key cannot create
    assert_problem(client.get(url), 401, "unauthorized")
    assert_problem(client.post("/v1/checks", json={"game": GAME}), 401, "unauthorized")
    assert_problem(client.post("/v1/checks", json={"game": GAME}, headers=player), 403, "forbidden")
    # the spectator and the GM may look but not play; the player may not cancel
    assert client.get(url, headers=spectator).status_code == 200
    assert_problem(
        client.post(f"{url}/moves", json={"move": line[0]}, headers=spectator), 403, "forbidden"
    )
    assert_problem(
        client.post(f"{url}/moves", json={"move": line[0]}, headers=bearer(GM_KEY)),
        403,
        "forbidden",
    )
    assert_problem(client.post(f"{url}/concede", headers=spectator), 403, "forbidden")
    refused = assert_problem(client.post(f"{url}/cancel", headers=player), 403, "forbidden")
    # in words, not the roles' internal names ("this token is the check's player")
    assert refused["detail"].endswith("needs the GM's key; this is the player's token")
    assert refused["role"] == "player"
    # a foreign token (another check's player, another GM) gets the same 404 as a check that
    # does not exist; a token that is nobody's gets 401 whether or not the check exists
    other = new_check(client)
    foreign = [bearer(other["player_token"]), bearer(OTHER_GM_KEY)]
    for path in (url, "/v1/checks/00000000-0000-4000-8000-000000000000"):
        assert_problem(client.get(path, headers=bearer("nonsense")), 401, "unauthorized")
    missing = "/v1/checks/00000000-0000-4000-8000-000000000000"
    details = set()
    for headers in foreign:
        for path in (url, f"{url}/record", f"{url}/events"):
            details.add(
                assert_problem(client.get(path, headers=headers), 404, "check-not-found")["title"]
            )
        assert_problem(
            client.post(f"{url}/moves", json={"move": line[0]}, headers=headers),
            404,
            "check-not-found",
        )
    assert_problem(client.get(missing, headers=player), 404, "check-not-found")
    assert_problem(client.get(missing, headers=bearer(GM_KEY)), 404, "check-not-found")
    assert client.get(url, headers=player).json()["version"] == 0
    # the GM cancels: the record is revealed, further actions are refused
    cancelled = client.post(f"{url}/cancel", json={"reason": "scene over"}, headers=bearer(GM_KEY))
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert client.get(f"{url}/record", headers=spectator).json()["status"] == "cancelled"
    assert_problem(
        client.post(f"{url}/moves", json={"move": line[0]}, headers=player), 409, "check-ended"
    )


def test_undo_and_concede(client: TestClient[Any]) -> None:
    check = new_check(client, params={**PARAMS, "undo": "full"})  # deck moves too
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    _, line = winning_seed()
    assert_problem(client.post(f"{url}/undo", headers=player), 422, "undo-not-allowed")
    client.post(f"{url}/moves", json={"move": line[0]}, headers=player)
    undone = client.post(f"{url}/undo", headers=player)
    assert undone.status_code == 200 and undone.json()["version"] == 2
    assert undone.json()["moves_made"] == 0
    conceded = client.post(f"{url}/concede", json={"expected_version": 2}, headers=player)
    assert conceded.json()["status"] == "lost"
    assert conceded.json()["outcome"]["reason"] == "conceded"
    record = client.get(f"{url}/record", headers=player).json()
    assert record["record"]["moves"][:2] == [line[0], "undo"]


def test_problem_shapes_name_the_field(client: TestClient[Any]) -> None:
    gm = bearer(GM_KEY)
    bad_level = client.post(
        "/v1/checks", json={"game": GAME, "params": {**PARAMS, "level": 12}}, headers=gm
    )
    body = assert_problem(bad_level, 422, "invalid-parameter")
    assert body["field"] == "level" and "level" in body["detail"]
    unknown = client.post("/v1/checks", json={"game": "chess"}, headers=gm)
    assert "three-towers" in assert_problem(unknown, 422, "unknown-game")["detail"]
    typo = client.post("/v1/checks", json={"parms": {}}, headers=gm)
    assert assert_problem(typo, 400, "validation-error")["field"] == "parms"
    wrong_type = client.post("/v1/checks", json={"seed": "x"}, headers=gm)
    assert assert_problem(wrong_type, 422, "wrong-type")["field"] == "seed"  # never converted
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    assert_problem(
        client.post(f"{url}/moves", json={"move": "zz"}, headers=player), 422, "parse-error"
    )
    assert (
        assert_problem(
            client.post(f"{url}/moves", json={}, headers=player), 400, "validation-error"
        )["field"]
        == "move"
    )
    assert_problem(client.get(f"{url}/record", headers=player), 409, "record-not-available")
    assert_problem(client.get("/v1/nothing"), 404, "not-found")
    assert_problem(client.get(f"{url}/events?after=-1", headers=player), 400, "validation-error")
    huge = client.post("/v1/checks", json={"label": "x" * 100_000}, headers=gm)
    assert_problem(huge, 413, "request-too-large")


def test_schema_and_offline_docs(client: TestClient[Any]) -> None:
    schema = client.get("/schema/openapi.json")
    assert schema.status_code == 200
    document = schema.json()
    assert document["openapi"].startswith("3.1")
    assert "/v1/checks/{check_id}/moves" in document["paths"]
    page = client.get("/schema")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/schema/openapi.json" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing from a CDN
    assert client.get("/schema/docs").status_code == 200


def test_cors_and_frame_ancestors(sqlite_url: str) -> None:
    settings = Settings(
        database_url=sqlite_url,
        gm_keys=(GM_KEY,),
        cors_origins=("https://foundry.example",),
        frame_ancestors=("https://www.owlbear.rodeo",),
    )
    with TestClient(create_app(settings)) as client:
        pre = client.options(
            "/v1/games",
            headers={
                "Origin": "https://foundry.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,if-match",
            },
        )
        assert pre.status_code in (200, 204)
        assert pre.headers["access-control-allow-origin"] == "https://foundry.example"
        got = client.get("/v1/games", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in got.headers
        csp = got.headers["content-security-policy"]
        assert csp == "frame-ancestors 'self' https://www.owlbear.rodeo"


def test_settings_from_environment() -> None:
    settings = Settings.from_env(
        {
            "SKILLCHECK_GM_KEYS": " a, b ,,",
            "SKILLCHECK_CORS_ORIGINS": "https://x.example",
            "SKILLCHECK_FRAME_ANCESTORS": "https://y.example https://z.example",
        }
    )
    assert settings.gm_keys == ("a", "b")
    assert settings.database_url == "sqlite:///./skillcheck.sqlite3"
    assert settings.cors_origins == ("https://x.example",)
    assert settings.frame_ancestors == ("https://y.example https://z.example",)


def test_gm_keys_a_browser_cannot_send_are_refused_at_start() -> None:
    """A key with a space or a character outside printable ASCII could never sign in on the
    GM page (a header carries no such character): refused when the server starts, without
    the key in the message."""
    assert Settings.from_env({"SKILLCHECK_GM_KEYS": "sc_gm_a-b.c~d+e/f="}).gm_keys == (
        "sc_gm_a-b.c~d+e/f=",
    )
    for bad in ("clé", "two words", "tab\there", "✓"):
        with pytest.raises(ValueError, match="SKILLCHECK_GM_KEYS") as refused:
            Settings.from_env({"SKILLCHECK_GM_KEYS": f"good,{bad}"})
        assert bad not in str(refused.value) and "printable ASCII" in str(refused.value)


def test_stream_seconds_take_decimals_and_refuse_what_is_no_time() -> None:
    assert Settings.from_env({}).stream_seconds == 1800
    assert Settings.from_env({"SKILLCHECK_STREAM_SECONDS": "0.25"}).stream_seconds == 0.25
    assert Settings.from_env({"SKILLCHECK_STREAM_SECONDS": " 90 "}).stream_seconds == 90
    for bad in ("0", "0.0", "-1", "1e3", "nan", "inf", "1,5", "½", "٣", ".5", "5."):
        with pytest.raises(ValueError, match="SKILLCHECK_STREAM_SECONDS") as refused:
            Settings.from_env({"SKILLCHECK_STREAM_SECONDS": bad})
        assert "positive number of seconds" in str(refused.value)


def test_compare_and_append_refuses_a_stale_version(sqlite_url: str) -> None:
    """Two writers at the same version: the store accepts one, the other changes nothing."""
    with running(sqlite_url) as client:
        check = new_check(client)
        store = client.app.state.runtime.store
        stored = store.load(check["check_id"])
        now = stored.created_at
        change = Append(0, (Action("concede", now),), (), CheckStatus.LOST)
        store.append(stored.check_id, change)
        with pytest.raises(VersionConflictError):
            store.append(stored.check_id, change)
        assert store.load(stored.check_id).version == 1


def test_tokens_are_stored_hashed(client: TestClient[Any]) -> None:
    check = new_check(client)
    store = client.app.state.runtime.store
    access = store.access(check["check_id"])
    assert access is not None
    assert check["player_token"] not in (access.player_token_sha256, access.spectator_token_sha256)
    assert len(access.player_token_sha256) == 64


def test_settings_for_uses_both_gm_keys() -> None:
    assert settings_for("sqlite://").gm_keys == (GM_KEY, OTHER_GM_KEY)


def test_health_reports_the_database(client: TestClient[Any]) -> None:
    """Load balancers poll /health: 200 while the database answers, no token needed."""
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_health_is_503_when_the_database_is_gone(tmp_path: Any) -> None:
    """A database the server cannot open makes /health say so (503), not crash."""
    missing = tmp_path / "no-such-dir" / "db.sqlite3"
    settings = Settings(database_url=f"sqlite:///{missing}", migrate_on_startup=False)
    with TestClient(create_app(settings)) as client:
        response = client.get("/health")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert "unable to open database file" in response.json()["database"]


def test_edges_a_client_author_meets(client: TestClient[Any]) -> None:
    """401 names the scheme; 304 for a poller that has the view; 413 says the limit; a reused
    idempotency key is named as the client sent it."""
    anonymous = client.post("/v1/checks", json={"game": GAME})
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"].startswith("Bearer")
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    first = client.get(url, headers=player)
    same = client.get(url, headers={**player, "If-None-Match": first.headers["etag"]})
    assert same.status_code == 304 and same.content == b""
    assert same.headers["etag"] == first.headers["etag"]
    stale = client.get(url, headers={**player, "If-None-Match": '"99"'})
    assert stale.status_code == 200
    huge = client.post(f"{url}/moves", content=b"{" + b" " * 70_000 + b"}", headers=player)
    assert huge.status_code == 413 and "65536 bytes" in huge.json()["detail"]
    moves = first.json()["legal_moves"]
    keyed = {**player, "Idempotency-Key": "k1"}
    assert client.post(f"{url}/moves", json={"move": moves[0]}, headers=keyed).status_code == 200
    reused = client.post(f"{url}/moves", json={"move": "d2"}, headers=keyed)
    assert reused.status_code == 422
    assert '"k1"' in reused.json()["detail"] and "player:" not in reused.json()["detail"]


def test_a_request_without_a_body_is_told_so(client: TestClient[Any]) -> None:
    response = client.post("/v1/checks", headers=bearer(GM_KEY))
    assert response.status_code == 400
    assert "has no body" in response.json()["detail"]


def test_a_quota_check_takes_the_gms_cards_for_the_skill(client: TestClient[Any]) -> None:
    """As on the command line (--cards), the GM's cards of the suit give the skill: the API
    takes the same parameters, and answers with the skill filled in."""
    variant = {"kind": "quota", "suit": "moons", "quota": 1, "suited_cards": ["2MK", "5ML"]}
    created = client.post(
        "/v1/checks", json={"game": GAME, "params": {"variant": variant}}, headers=bearer(GM_KEY)
    )
    assert created.status_code == 201, created.text
    assert created.json()["view"]["params"]["variant"]["skill"] == 2
    wrong = {**variant, "suited_cards": ["2SY"]}
    refused = client.post(
        "/v1/checks", json={"game": GAME, "params": {"variant": wrong}}, headers=bearer(GM_KEY)
    )
    body = assert_problem(refused, 422, "invalid-parameter")
    assert "suited_cards must be 1 card of Moons" in body["detail"]
