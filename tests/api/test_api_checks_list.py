"""The GM's side of the API: ``GET /v1/checks`` (only the caller's own checks, cursor pages,
status and label filters), ``GET /v1/checks/stream`` (the list live), token re-issue (the old
link stops working at once, in this process, in another one, and on an open stream) and the
``character`` of a check."""

from __future__ import annotations

import json
import queue
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import GAME, GM_KEY, OTHER_GM_KEY, PARAMS, bearer, running
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient
from live_server import api_server, redis_unreachable_reason
from test_api_live import REDIS_URL, Listener, _create, _env, _move

SUMMARY_KEYS = {
    "check_id", "game", "params", "label", "character", "status", "version", "moves_made",
    "degree", "tier", "tier_text", "created_at", "updated_at", "hints_used",
}  # fmt: skip


def create(client: TestClient[Any], key: str = GM_KEY, **extra: Any) -> dict[str, Any]:
    response = client.post(
        "/v1/checks", json={"game": GAME, "params": PARAMS, "seed": 7, **extra}, headers=bearer(key)
    )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def listed(client: TestClient[Any], key: str = GM_KEY, **query: Any) -> dict[str, Any]:
    response = client.get("/v1/checks", params=query, headers=bearer(key))
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


def walk(client: TestClient[Any], key: str = GM_KEY, **query: Any) -> list[dict[str, Any]]:
    """Every page of the list, following next_cursor."""
    found: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):
        page = listed(client, key, **query, **({} if cursor is None else {"cursor": cursor}))
        found += page["checks"]
        cursor = page["next_cursor"]
        if cursor is None:
            return found
        assert page["checks"], "a page that promises more must not be empty"
    raise AssertionError("the cursor never ended")


# ---- listing --------------------------------------------------------------------------------


def test_a_gm_lists_only_their_own_checks(client: TestClient[Any]) -> None:
    mine = [create(client, label=f"mine {i}")["check_id"] for i in range(3)]
    theirs = [create(client, OTHER_GM_KEY, label="theirs")["check_id"] for _ in range(2)]
    assert {c["check_id"] for c in walk(client)} == set(mine)
    assert {c["check_id"] for c in walk(client, OTHER_GM_KEY)} == set(theirs)
    # a label filter that only the other GM's checks match finds nothing for this GM
    assert listed(client, label="theirs")["checks"] == []


def test_the_list_is_newest_first_with_summaries_and_no_hidden_cards(
    client: TestClient[Any],
) -> None:
    first = create(client, label="Mira picks the lock", character="Mira")
    second = create(client, label="Bram climbs")
    page = listed(client)
    assert [c["check_id"] for c in page["checks"]] == [second["check_id"], first["check_id"]]
    assert page["next_cursor"] is None
    summary = page["checks"][1]
    assert set(summary) == SUMMARY_KEYS
    view = first["view"]
    assert summary["label"] == "Mira picks the lock" and summary["character"] == "Mira"
    assert (summary["status"], summary["moves_made"], summary["version"]) == ("in_progress", 0, 0)
    assert summary["degree"] is None and summary["tier"] is None
    assert (summary["game"], summary["params"]) == (view["game"], view["params"])
    assert (summary["created_at"], summary["updated_at"]) == (
        view["created_at"],
        view["updated_at"],
    )
    text = client.get("/v1/checks", headers=bearer(GM_KEY)).text
    for secret in ('"seed"', '"salt"', '"deal"', '"observation"', first["player_token"]):
        assert secret not in text


def test_the_list_follows_moves_ends_and_cancellations(client: TestClient[Any]) -> None:
    played, conceded, cancelled = (create(client) for _ in range(3))
    player = bearer(played["player_token"])
    move = played["view"]["legal_moves"][0]
    moved = client.post(
        f"/v1/checks/{played['check_id']}/moves", json={"move": move}, headers=player
    )
    assert moved.status_code == 200
    client.post(
        f"/v1/checks/{conceded['check_id']}/concede", headers=bearer(conceded["player_token"])
    )
    client.post(
        f"/v1/checks/{cancelled['check_id']}/cancel", json={"reason": "we ran out of time"},
        headers=bearer(GM_KEY),
    )  # fmt: skip
    by_id = {c["check_id"]: c for c in walk(client)}
    assert by_id[played["check_id"]]["moves_made"] == 1
    assert by_id[played["check_id"]]["version"] == 1
    assert by_id[played["check_id"]]["updated_at"] == moved.json()["updated_at"]
    lost = by_id[conceded["check_id"]]
    assert lost["status"] == "lost" and isinstance(lost["degree"], int)
    assert by_id[cancelled["check_id"]]["status"] == "cancelled"
    assert by_id[cancelled["check_id"]]["degree"] is None
    assert [c["check_id"] for c in walk(client, status="lost")] == [conceded["check_id"]]
    assert [c["check_id"] for c in walk(client, status="cancelled")] == [cancelled["check_id"]]
    assert {c["check_id"] for c in walk(client, status="in_progress")} == {played["check_id"]}
    assert walk(client, status="won") == []


def test_the_label_filter_matches_label_or_character_ignoring_case(
    client: TestClient[Any],
) -> None:
    lock = create(client, label="Mira picks the LOCK")["check_id"]
    climb = create(client, label="A climb", character="Mira")["check_id"]
    literal = create(client, label="100% sure_thing")["check_id"]
    create(client, label="sure thing 1000 s")  # what "0% s" and "e_t" would match as wildcards
    create(client, label="Bram climbs")
    create(client)  # no label at all
    assert {c["check_id"] for c in walk(client, label="mira")} == {lock, climb}
    assert {c["check_id"] for c in walk(client, label="lock")} == {lock}
    # % and _ are text, not SQL wildcards
    assert [c["check_id"] for c in walk(client, label="0% s")] == [literal]
    assert [c["check_id"] for c in walk(client, label="e_t")] == [literal]
    assert [c["check_id"] for c in walk(client, label="%")] == [literal]


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient[Any], list[Any]]]:
    """A server with seven checks of one GM (labels, characters, statuses mixed) and two of
    another, and the first GM's checks as the list should show them, newest first."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('many') / 'db.sqlite3'}"
    with running(url) as client:
        labels = ["Mira picks", "mira climbs", None, "Bram", "Bram and Mira", "Lock", None]
        ids = []
        for i, label in enumerate(labels):
            made = create(client, label=label, character="Mira" if i == 3 else None)
            ids.append(made["check_id"])
            if i % 3 == 1:
                client.post(
                    f"/v1/checks/{made['check_id']}/concede", headers=bearer(made["player_token"])
                )
        create(client, OTHER_GM_KEY, label="Mira")
        create(client, OTHER_GM_KEY)
        expected = list(reversed(walk(client)))
        assert [c["check_id"] for c in reversed(expected)] == list(reversed(ids))
        yield client, list(reversed(expected))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    limit=st.integers(1, 8),
    status=st.sampled_from([None, "in_progress", "lost", "won", "cancelled"]),
    label=st.sampled_from([None, "mira", "BRAM", "lock", "x"]),
)
def test_pages_partition_the_filtered_list(
    many: tuple[TestClient[Any], list[dict[str, Any]]],
    limit: int,
    status: str | None,
    label: str | None,
) -> None:
    """Walking the pages, whatever their size, gives every matching check exactly once, newest
    first, and each page holds at most ``limit``."""
    client, everything = many
    query: dict[str, Any] = {"limit": limit}
    if status is not None:
        query["status"] = status
    if label is not None:
        query["label"] = label

    def matches(c: dict[str, Any]) -> bool:
        text = f"{c['label'] or ''}\n{c['character'] or ''}".lower()
        return (status is None or c["status"] == status) and (
            label is None or label.lower() in text
        )

    expected = [c["check_id"] for c in everything if matches(c)]
    pages = []
    cursor = None
    while True:
        page = listed(client, **query, **({} if cursor is None else {"cursor": cursor}))
        assert len(page["checks"]) <= limit
        pages.append(page["checks"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [c["check_id"] for p in pages for c in p] == expected


@pytest.mark.parametrize(
    ("query", "field", "status"),
    [
        ({"status": "finished"}, "status", 400),
        ({"limit": 0}, "limit", 400),
        ({"limit": 101}, "limit", 400),
        ({"limit": "ten"}, "limit", 422),  # the wrong JSON type: strict decoding's 422
        ({"label": "x" * 201}, "label", 400),
        ({"cursor": "not-a-cursor"}, "cursor", 422),
        ({"cursor": "WyJ5ZXN0ZXJkYXkiLCJ4Il0"}, "cursor", 422),  # ["yesterday","x"]
    ],
)
def test_bad_list_queries_are_refused_and_name_the_field(
    client: TestClient[Any], query: dict[str, Any], field: str, status: int
) -> None:
    response = client.get("/v1/checks", params=query, headers=bearer(GM_KEY))
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert field in response.text


def test_only_a_gm_key_lists_checks(client: TestClient[Any]) -> None:
    check = create(client)
    assert client.get("/v1/checks").status_code == 401
    for role in ("player", "spectator"):
        response = client.get("/v1/checks", headers=bearer(check[f"{role}_token"]))
        assert response.status_code == 403, response.text
        assert check["check_id"] not in response.text
        assert f"not a check's {role} token" in response.json()["detail"]
        assert response.json()["role"] == role
    stream = client.get("/v1/checks/stream", headers=bearer(check["player_token"]))
    assert stream.status_code == 403
    # a token that is nobody's (made up, mistyped, or a GM key this server does not have) is
    # 401 here as on every endpoint (docs/api.md), and creates nothing
    for made_up in ("sc_play_made_up", "not-a-gm-key"):
        for response in (
            client.get("/v1/checks", headers=bearer(made_up)),
            client.get("/v1/checks/stream", headers=bearer(made_up)),
            client.post(
                "/v1/checks", json={"game": GAME, "params": PARAMS}, headers=bearer(made_up)
            ),
        ):
            assert response.status_code == 401, response.text
            assert response.json()["code"] == "unauthorized"
            assert response.headers["www-authenticate"].startswith("Bearer")
    listed = client.get("/v1/checks", headers=bearer(GM_KEY)).json()
    assert [c["check_id"] for c in listed["checks"]] == [check["check_id"]]


def test_the_list_works_on_postgresql(pg_url: str) -> None:
    with running(pg_url) as client:
        mine = create(client, label="Mira picks the lock", character="Mira")
        create(client, OTHER_GM_KEY, label="Mira")
        create(client, label="Bram")
        assert [c["check_id"] for c in walk(client, label="MIRA")] == [mine["check_id"]]
        assert len(walk(client, limit=1)) == 2
        client.post(f"/v1/checks/{mine['check_id']}/concede", headers=bearer(mine["player_token"]))
        assert [c["check_id"] for c in walk(client, status="lost")] == [mine["check_id"]]


# ---- the character ----------------------------------------------------------------------------


def test_a_check_carries_its_character(client: TestClient[Any]) -> None:
    check = create(client, character="Mira")
    assert check["view"]["character"] == "Mira"
    got = client.get(f"/v1/checks/{check['check_id']}", headers=bearer(check["player_token"]))
    assert got.json()["character"] == "Mira"
    assert create(client)["view"]["character"] is None


def test_a_check_stored_before_characters_still_loads(sqlite_url: str) -> None:
    """A check written before ``character`` existed (no such key in its stored configuration,
    nor in its events' views) loads with none, and lists."""
    with running(sqlite_url) as client:
        check = create(client, label="old")
    path = sqlite_url.split(":///", 1)[1]
    with sqlite3.connect(path) as conn:
        (config,) = conn.execute(
            "SELECT config FROM checks WHERE id = ?", (check["check_id"],)
        ).fetchone()
        stored = json.loads(config)
        del stored["character"]
        conn.execute(
            "UPDATE checks SET config = ? WHERE id = ?", (json.dumps(stored), check["check_id"])
        )
        for sequence, payload in conn.execute(
            "SELECT sequence, payload FROM events WHERE check_id = ?", (check["check_id"],)
        ).fetchall():
            data = json.loads(payload)
            data["view"].pop("character")
            data.get("config", {}).pop("character", None)
            conn.execute(
                "UPDATE events SET payload = ? WHERE check_id = ? AND sequence = ?",
                (json.dumps(data), check["check_id"], sequence),
            )
    with running(sqlite_url) as client:
        got = client.get(f"/v1/checks/{check['check_id']}", headers=bearer(check["player_token"]))
        assert got.status_code == 200 and got.json()["character"] is None
        (summary,) = listed(client)["checks"]
        assert summary["label"] == "old" and summary["character"] is None


@pytest.mark.parametrize(
    ("character", "status"), [("x" * 201, 422), ("Mi\x00ra", 422), (7, 422), (["Mira"], 422)]
)
def test_a_bad_character_is_refused_and_creates_nothing(
    client: TestClient[Any], character: Any, status: int
) -> None:
    response = client.post(
        "/v1/checks",
        json={"game": GAME, "params": PARAMS, "character": character},
        headers=bearer(GM_KEY),
    )
    assert response.status_code == status, response.text
    assert "character" in response.text
    assert listed(client)["checks"] == []


# ---- re-issuing a token -----------------------------------------------------------------------


@pytest.mark.parametrize("role", ["player", "spectator"])
def test_reissuing_a_token_locks_the_old_one_out_at_once(
    client: TestClient[Any], role: str
) -> None:
    check = create(client)
    path = f"/v1/checks/{check['check_id']}"
    old = check[f"{role}_token"]
    assert client.get(path, headers=bearer(old)).status_code == 200  # now in the cache
    response = client.post(f"{path}/tokens/{role}", headers=bearer(GM_KEY))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["check_id"] == check["check_id"] and body["role"] == role
    assert body["token"].startswith("sc_play_" if role == "player" else "sc_view_")
    # the game rides in the query, a hint for the page (api/pages.py, play_link)
    assert body["link"] == f"/play/{check['check_id']}?game={GAME}#token={body['token']}"
    assert response.headers["cache-control"] == "no-store"
    for url in (path, f"{path}/events", f"{path}/stream"):
        assert client.get(url, headers=bearer(old)).status_code == 401
    assert client.get(path, headers=bearer(body["token"])).status_code == 200
    other = "spectator" if role == "player" else "player"
    assert client.get(path, headers=bearer(check[f"{other}_token"])).status_code == 200
    if role == "player":
        move = {"move": check["view"]["legal_moves"][0]}
        assert client.post(f"{path}/moves", json=move, headers=bearer(old)).status_code == 401
        assert (
            client.post(f"{path}/moves", json=move, headers=bearer(body["token"])).status_code
            == 200
        )
    again = client.post(f"{path}/tokens/{role}", headers=bearer(GM_KEY)).json()
    assert client.get(path, headers=bearer(body["token"])).status_code == 401
    assert client.get(path, headers=bearer(again["token"])).status_code == 200


def test_the_created_check_carries_its_page_links(client: TestClient[Any]) -> None:
    """A bot or a VTT hands the player a link, not a token to assemble a link from."""
    check = create(client)
    for role in ("player", "spectator"):
        token = check[f"{role}_token"]
        assert check[f"{role}_link"] == f"/play/{check['check_id']}?game={GAME}#token={token}"
        page = client.get(check[f"{role}_link"].split("#")[0])
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_only_the_checks_gm_reissues_tokens(client: TestClient[Any]) -> None:
    check = create(client)
    path = f"/v1/checks/{check['check_id']}/tokens/player"
    assert client.post(path).status_code == 401
    for token in (check["player_token"], check["spectator_token"]):
        refused = client.post(path, headers=bearer(token))
        assert refused.status_code == 403 and refused.json()["role"] in ("player", "spectator")
    assert client.post(path, headers=bearer(OTHER_GM_KEY)).status_code == 404
    assert (
        client.post("/v1/checks/no-such-check/tokens/player", headers=bearer(GM_KEY)).status_code
        == 404
    )
    # nothing changed: the player token still works
    got = client.get(f"/v1/checks/{check['check_id']}", headers=bearer(check["player_token"]))
    assert got.status_code == 200


def test_reissue_ends_an_open_stream_of_the_old_token(tmp_path: Path) -> None:
    with api_server(_env(tmp_path / "db.sqlite3")) as base:
        check = _create(base)
        url = f"{base}/v1/checks/{check['check_id']}/stream"
        old = Listener(url, check["spectator_token"])
        gm = Listener(url, GM_KEY)
        assert old.next()["event"] == "created" and gm.next()["event"] == "created"
        response = httpx.post(
            f"{base}/v1/checks/{check['check_id']}/tokens/spectator", headers=bearer(GM_KEY)
        )
        assert response.status_code == 200
        assert old.closed.wait(5), "the old spectator token's stream stayed open"
        _move(base, check, 0)
        assert gm.next()["event"] == "moved"  # the GM's stream was not closed
        with pytest.raises(queue.Empty):
            old.next(timeout=0.5)


@pytest.mark.slow  # two server processes
def test_reissue_on_one_process_locks_the_old_token_out_on_another(tmp_path: Path) -> None:
    """Each process caches credentials; a re-issue on A evicts B's cached copy (through Redis)."""
    if (reason := redis_unreachable_reason(REDIS_URL)) is not None:
        pytest.skip(reason)
    env = _env(tmp_path / "db.sqlite3", SKILLCHECK_REDIS_URL=REDIS_URL)
    with api_server(env) as a, api_server(env) as b:
        check = _create(a)
        path = f"/v1/checks/{check['check_id']}"
        old = bearer(check["player_token"])
        assert httpx.get(f"{b}{path}", headers=old).status_code == 200  # cached on B
        assert httpx.post(f"{a}{path}/tokens/player", headers=bearer(GM_KEY)).status_code == 200
        # B drops its copy when the pub/sub message arrives: milliseconds on an idle machine;
        # the bound leaves room for a loaded one (the window is documented in docs/api.md)
        deadline = time.monotonic() + 5.0
        while httpx.get(f"{b}{path}", headers=old).status_code != 401:
            assert time.monotonic() < deadline, "B still lets the old token in after 5 s"
            time.sleep(0.02)


@pytest.mark.slow  # two server processes
def test_a_reissued_token_can_act_on_no_process_at_once(tmp_path: Path) -> None:
    """Acting reads the credentials from the database: even without Redis (no eviction news
    at all), another process refuses a move with the old token the moment the re-issue is
    answered, although its cache still holds the old credentials for reads."""
    env = _env(tmp_path / "db.sqlite3")
    with api_server(env) as a, api_server(env) as b:
        check = _create(a)
        path = f"/v1/checks/{check['check_id']}"
        old = bearer(check["player_token"])
        assert httpx.get(f"{b}{path}", headers=old).status_code == 200  # cached on B
        fresh = httpx.post(f"{a}{path}/tokens/player", headers=bearer(GM_KEY)).json()["token"]
        move = check["view"]["moves"][0]["code"]
        refused = httpx.post(f"{b}{path}/moves", json={"move": move}, headers=old)
        assert refused.status_code == 401, refused.text
        played = httpx.post(f"{b}{path}/moves", json={"move": move}, headers=bearer(fresh))
        assert played.status_code == 200, played.text


# ---- the list live ----------------------------------------------------------------------------


def test_the_list_stream_shows_the_gms_checks_as_they_change(tmp_path: Path) -> None:
    with api_server(
        _env(tmp_path / "db.sqlite3", SKILLCHECK_GM_KEYS=f"{GM_KEY},{OTHER_GM_KEY}")
    ) as base:
        mine = Listener(f"{base}/v1/checks/stream", GM_KEY)
        theirs = Listener(f"{base}/v1/checks/stream", OTHER_GM_KEY)
        # both streams subscribed: each says so first (": subscribed"), so nothing after is missed
        assert mine.first_line.wait(10) and theirs.first_line.wait(10)
        check = _create(base, label="Mira picks the lock", character="Mira")
        created = mine.next()
        assert mine.status == 200 and mine.content_type.startswith("text/event-stream")
        assert created["event"] == "created"
        assert set(created["data"]) == SUMMARY_KEYS
        assert created["data"]["check_id"] == check["check_id"]
        assert created["data"]["character"] == "Mira"
        _move(base, check, 0)
        moved = mine.next()
        assert moved["event"] == "moved" and moved["data"]["moves_made"] == 1
        assert int(moved["id"]) >= int(created["id"])
        conceded = httpx.post(
            f"{base}/v1/checks/{check['check_id']}/concede", headers=bearer(check["player_token"])
        )
        ended = mine.next()
        assert ended["event"] == "ended"
        assert ended["data"]["status"] == "lost" == conceded.json()["status"]
        assert ended["data"]["degree"] == conceded.json()["degree"]
        assert '"seed"' not in str(ended["data"]) and "record" not in ended["data"]
        with pytest.raises(queue.Empty):
            theirs.next(timeout=1)  # another GM's stream hears nothing of it
        # resume: from the id of "moved", the check is sent again at its newest version
        again = Listener(f"{base}/v1/checks/stream", GM_KEY, {"Last-Event-ID": moved["id"]})
        resumed = again.next()
        assert resumed["event"] == "changed"
        assert resumed["data"]["check_id"] == check["check_id"]
        assert resumed["data"]["status"] == "lost"
        later = Listener(
            f"{base}/v1/checks/stream", GM_KEY, {"Last-Event-ID": str(int(ended["id"]) + 1)}
        )
        with pytest.raises(queue.Empty):
            later.next(timeout=1)


@pytest.mark.parametrize("header", [b"yesterday", "²".encode(), b"-5", b"1" * 30])
def test_a_bad_last_event_id_on_the_list_stream_is_400(
    client: TestClient[Any], header: bytes
) -> None:
    response = client.get("/v1/checks/stream", headers={**bearer(GM_KEY), "Last-Event-ID": header})
    assert response.status_code == 400
    assert response.json()["field"] == "Last-Event-ID"
