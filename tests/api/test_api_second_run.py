"""What a new user's second run of the HTTP API found: each section is one deviation, with
tests that fail on the code before its fix (the section's comment says what the run saw)."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import GAME, GM_KEY, PARAMS, bearer, check_count, problem, settings_for
from litestar.testing import TestClient
from live_server import api_server
from webhook_receiver import Receiver

from api.app import create_app
from api.settings import Settings

GM = bearer(GM_KEY)
ORIGIN = "https://foundry.example.test"


def new_check(client: TestClient[Any], **body: Any) -> dict[str, Any]:
    made = client.post(
        "/v1/checks", json={"game": GAME, "params": PARAMS, "seed": 7, **body}, headers=GM
    )
    assert made.status_code == 201, made.text
    created: dict[str, Any] = made.json()
    return created


def ended_check(client: TestClient[Any]) -> dict[str, Any]:
    """A check the player conceded: events 1 (created) and 2 (ended, the terminal one)."""
    check = new_check(client)
    conceded = client.post(
        f"/v1/checks/{check['check_id']}/concede", headers=bearer(check["player_token"])
    )
    assert conceded.status_code == 200, conceded.text
    return check


@pytest.fixture
def app_settings(sqlite_url: str) -> Settings:
    # a short cap: a stream the fix would not end stops on its own, and the test sees the wait
    return dataclasses.replace(settings_for(sqlite_url), stream_seconds=8, cors_origins=(ORIGIN,))


@pytest.fixture
def client(app_settings: Settings) -> Iterator[TestClient[Any]]:
    with TestClient(create_app(app_settings)) as c:
        yield c


# ---- 1. The stream of an ended check, and sequences beyond the last ------------------------------
# GET .../stream with Last-Event-ID = the terminal event's id answered 200 and sent keepalives
# until the 30-minute cap; Last-Event-ID 99 the same; /events?after=50 answered
# {"events": [], "last_sequence": 50}, a sequence the check never reached.


def test_a_stream_resumed_at_the_terminal_event_ends_at_once(client: TestClient[Any]) -> None:
    check = ended_check(client)
    started = time.monotonic()
    stream = client.get(
        f"/v1/checks/{check['check_id']}/stream",
        headers={**bearer(check["spectator_token"]), "Last-Event-ID": "2"},
    )
    waited = time.monotonic() - started
    assert stream.status_code == 200, stream.text
    assert stream.headers["content-type"].startswith("text/event-stream")
    assert stream.text == ""  # nothing after the terminal event, not even a keepalive
    assert waited < 4, f"the stream stayed open {waited:.1f} s after the terminal event"
    # ?after= is the same position
    started = time.monotonic()
    again = client.get(
        f"/v1/checks/{check['check_id']}/stream?after=2", headers=bearer(check["player_token"])
    )
    assert again.status_code == 200 and again.text == ""
    assert time.monotonic() - started < 4
    # one before the end still gets the terminal event, then the stream ends
    last = client.get(
        f"/v1/checks/{check['check_id']}/stream",
        headers={**bearer(check["spectator_token"]), "Last-Event-ID": "1"},
    )
    assert "event: ended" in last.text and "id: 2" in last.text


@pytest.mark.parametrize("how", ["Last-Event-ID", "after"])
def test_a_stream_beyond_the_last_event_is_refused_naming_the_last(
    client: TestClient[Any], how: str
) -> None:
    for check, last in ((ended_check(client), 2), (new_check(client), 1)):
        path = f"/v1/checks/{check['check_id']}/stream"
        headers = bearer(check["spectator_token"])
        if how == "after":
            answer = client.get(f"{path}?after=99", headers=headers)
        else:
            answer = client.get(path, headers={**headers, "Last-Event-ID": "99"})
        body = problem(answer, 422, "beyond-last-event")
        assert body["field"] == how and body["last_sequence"] == last
        assert f"{how} 99" in body["detail"] and f"0 to {last}" in body["detail"]


def test_events_after_the_last_sequence_are_refused_naming_the_last(
    client: TestClient[Any],
) -> None:
    check = ended_check(client)
    path = f"/v1/checks/{check['check_id']}/events"
    headers = bearer(check["player_token"])
    body = problem(client.get(f"{path}?after=50", headers=headers), 422, "beyond-last-event")
    assert body["field"] == "after" and body["last_sequence"] == 2
    assert "after 50 is beyond the check's last event, number 2" in body["detail"]
    # at the last sequence: an empty page whose last_sequence is the real one
    at_end = client.get(f"{path}?after=2", headers=headers)
    assert at_end.status_code == 200 and at_end.json() == {"events": [], "last_sequence": 2}
    assert client.get(f"{path}?after=1", headers=headers).json()["last_sequence"] == 2
    # a foreign token still learns nothing (404 before any sequence is looked at)
    other = new_check(client)
    hidden = client.get(f"{path}?after=50", headers=bearer(other["player_token"]))
    problem(hidden, 404, "check-not-found")


# ---- 2. 403 says the role everywhere -------------------------------------------------------------
# The GM-only endpoints that take no check (create, the list, the list's stream, computing odds)
# answered a player's or spectator's token with 403 but no `role`.


@pytest.mark.parametrize("role", ["player", "spectator"])
def test_every_403_carries_the_role(client: TestClient[Any], role: str) -> None:
    check = new_check(client)
    token = bearer(check[f"{role}_token"])
    before = check_count(client)
    answers = {
        "create": client.post("/v1/checks", json={"game": GAME, "params": PARAMS}, headers=token),
        "list": client.get("/v1/checks", headers=token),
        "list stream": client.get("/v1/checks/stream", headers=token),
        "odds": client.get("/v1/odds?game=three-towers&deals=5", headers=token),
        "cancel": client.post(f"/v1/checks/{check['check_id']}/cancel", headers=token),
    }
    for name, answer in answers.items():
        body = problem(answer, 403, "forbidden")
        assert body["role"] == role, (name, body)
        assert f"{role}'s token" in body["detail"] or f"{role} token" in body["detail"], body
    assert check_count(client) == before


# ---- 3. The root path --------------------------------------------------------------------------
# With `skillcheck serve --root-path /sc`, the 201's Location was /v1/checks/<id> while /v1
# linked /sc/v1/...; an unknown route's problem said "instance": "/sc/sc/nope".


def test_the_root_path_is_in_location_and_instance_once(tmp_path: Path) -> None:
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    with api_server(env, root_path="/sc") as base:  # the proxy strips /sc before the server
        index = httpx.get(f"{base}/v1").json()
        assert index["links"]["check"]["href"] == "/sc/v1/checks/{check_id}"
        created = httpx.post(f"{base}/v1/checks", json={"game": GAME, "params": PARAMS}, headers=GM)
        assert created.status_code == 201, created.text
        check_id = created.json()["check_id"]
        assert created.headers["location"] == f"/sc/v1/checks/{check_id}"
        unknown = problem(httpx.get(f"{base}/nope"), 404, "not-found")
        assert unknown["instance"] == "/sc/nope"
        assert "/sc/nope" in unknown["detail"] and "/sc/v1" in unknown["detail"]
        wrong = problem(httpx.delete(f"{base}/v1/checks", headers=GM), 405, "method-not-allowed")
        assert wrong["instance"] == "/sc/v1/checks"
        missing = problem(httpx.get(f"{base}/v1/checks/zzz", headers=GM), 404, "check-not-found")
        assert missing["instance"] == "/sc/v1/checks/zzz"


def test_without_a_root_path_nothing_is_prefixed(client: TestClient[Any]) -> None:
    created = client.post("/v1/checks", json={"game": GAME, "params": PARAMS}, headers=GM)
    assert created.headers["location"] == f"/v1/checks/{created.json()['check_id']}"
    assert problem(client.get("/nope"), 404, "not-found")["instance"] == "/nope"


# ---- 4. Refused CORS preflights ----------------------------------------------------------------
# A preflight from an origin that is not listed, or asking for a method or a header that is not
# allowed, was 400 text/plain "Disallowed CORS Origin" ("method", "headers").


@pytest.mark.parametrize(
    ("ask", "field", "said"),
    [
        (
            {"Origin": "https://unlisted.example.test", "Access-Control-Request-Method": "POST"},
            "Origin",
            ['"https://unlisted.example.test"', ORIGIN, "SKILLCHECK_CORS_ORIGINS"],
        ),
        (
            {"Origin": ORIGIN, "Access-Control-Request-Method": "DELETE"},
            "Access-Control-Request-Method",
            ['"DELETE"', "GET and POST"],
        ),
        (
            {
                "Origin": ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, x-secret",
            },
            "Access-Control-Request-Headers",
            ['"x-secret"', "Authorization", "Idempotency-Key", "Last-Event-ID"],
        ),
    ],
)
def test_a_refused_preflight_is_a_problem_naming_what_was_refused(
    client: TestClient[Any], ask: dict[str, str], field: str, said: list[str]
) -> None:
    answer = client.options("/v1/checks", headers=ask)
    body = problem(answer, 400, "cors-refused")
    assert body["field"] == field and body["instance"] == "/v1/checks"
    for words in said:
        assert words in body["detail"], (words, body["detail"])
    assert "access-control-allow-origin" not in answer.headers  # the browser still refuses


def test_an_allowed_preflight_is_answered_as_before(client: TestClient[Any]) -> None:
    answer = client.options(
        "/v1/checks",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        },
    )
    assert answer.status_code == 204, answer.text
    assert answer.headers["access-control-allow-origin"] == ORIGIN


# ---- 5. A finished delivery has no next attempt ------------------------------------------------
# GET .../webhook showed a future next_attempt_at on deliveries already delivered or failed.


@pytest.fixture
def hooked(sqlite_url: str) -> Iterator[TestClient[Any]]:
    settings = dataclasses.replace(settings_for(sqlite_url), webhooks_allow_private=True)
    with TestClient(create_app(settings)) as c:
        yield c


def _wait_for(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.05)


@pytest.mark.parametrize(("answer", "status"), [(200, "delivered"), (410, "failed")])
def test_a_finished_delivery_has_no_next_attempt(
    hooked: TestClient[Any], receiver: Receiver, answer: int, status: str
) -> None:
    receiver.respond(answer)
    check = new_check(hooked, callback_url=receiver.url)
    path = f"/v1/checks/{check['check_id']}/webhook"
    pending = hooked.get(path, headers=GM).json()
    assert pending["deliveries"] == []  # nothing to deliver before the end
    hooked.post(f"/v1/checks/{check['check_id']}/concede", headers=bearer(check["player_token"]))

    def finished() -> bool:
        deliveries = hooked.get(path, headers=GM).json()["deliveries"]
        return bool(deliveries) and deliveries[0]["status"] == status

    _wait_for(finished, 10)
    delivery = hooked.get(path, headers=GM).json()["deliveries"][0]
    assert delivery["next_attempt_at"] is None, delivery
    assert delivery["attempts"] == 1 and delivery["last_attempt_at"] is not None


# ---- 6. Refusals in plain words ----------------------------------------------------------------
# Raw library text ("label: Expected `str` of length >= 1", "Number out of range - at `$[...]`",
# "Input data was truncated", "Port out of range 0-65535"), a Python function named to HTTP
# clients (generate_secret()), "Not Found" and "Method Not Allowed" alone, and an unknown card
# with no field and every one of the Decktet's 45 names.


def test_a_label_filter_of_the_wrong_length_says_the_lengths(client: TestClient[Any]) -> None:
    empty = problem(client.get("/v1/checks?label=", headers=GM), 400, "validation-error")
    assert empty["field"] == "label"
    assert empty["detail"] == 'label must be at least 1 character long, not ""'
    long = problem(client.get(f"/v1/checks?label={'a' * 201}", headers=GM), 400, "validation-error")
    assert long["detail"].startswith("label must be at most 200 characters long, not ")
    assert "(201 characters)" in long["detail"] and "Expected" not in long["detail"]


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (
            b'{"game": "hanoy", "seed": 1e400}',
            "seed is a number too large to read (numbers are at most about 1.8e308 in size)",
        ),
        (
            b'{"game": "hanoy", "label": "\\ud800"}',
            "label holds \\ud800, half of a UTF-16 surrogate pair without its other half",
        ),
        (b'{"game": "hanoy", "label": "Mira', "it ends too early"),
        (b'{"game": "hanoy",}', "trailing comma in object"),
    ],
)
def test_a_body_that_cannot_be_read_says_where_and_why(
    client: TestClient[Any], raw: bytes, said: str
) -> None:
    before = check_count(client)
    answer = client.post(
        "/v1/checks", content=raw, headers={**GM, "Content-Type": "application/json"}
    )
    body = problem(answer, 400, "invalid-json")
    assert said in body["detail"], body["detail"]
    assert "$[" not in body["detail"] and "Input data" not in body["detail"]
    assert check_count(client) == before


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("/hooks", "must start with https:// (or http://)"),
        ("https://10.0.0.1/hooks", "SKILLCHECK_WEBHOOKS_ALLOW_PRIVATE=1"),
        ("http://vtt.local/hooks", "SKILLCHECK_WEBHOOKS_ALLOW_PRIVATE=1"),
        ("https://bot.example.org:99999/hooks", 'from 1 to 65535, not "99999"'),
        ("https://bot.example.org:0/hooks", "from 1 to 65535, not 0"),
    ],
)
def test_a_refused_callback_url_says_what_is_allowed(
    client: TestClient[Any], url: str, said: str
) -> None:
    before = check_count(client)
    answer = client.post(
        "/v1/checks", json={"game": GAME, "params": PARAMS, "callback_url": url}, headers=GM
    )
    body = problem(answer, 422, "invalid-callback-url")
    assert body["field"] == "callback_url" and said in body["detail"], body["detail"]
    assert "none" not in body["detail"] and "out of range" not in body["detail"]
    assert check_count(client) == before


def test_a_refused_webhook_secret_says_what_a_secret_looks_like(client: TestClient[Any]) -> None:
    answer = client.post(
        "/v1/checks",
        json={
            "game": GAME,
            "callback_url": "https://bot.example.org/hooks",
            "webhook_secret": "hunter2",
        },
        headers=GM,
    )
    body = problem(answer, 422, "invalid-webhook-secret")
    detail = body["detail"]
    assert "generate_secret" not in detail and "hunter2" not in detail
    assert detail.startswith('webhook_secret must be "whsec_" followed by the standard base64')
    assert "24 to 64 random bytes" in detail and "Leave webhook_secret out" in detail


def test_an_unknown_route_or_method_names_the_path_and_the_methods(
    client: TestClient[Any],
) -> None:
    unknown = problem(client.get("/nope"), 404, "not-found")
    assert unknown["detail"] != "Not Found" and "/nope" in unknown["detail"]
    assert "GET /v1" in unknown["detail"]
    wrong = problem(client.delete("/v1/checks", headers=GM), 405, "method-not-allowed")
    assert wrong["detail"] == "DELETE is not allowed on /v1/checks: it takes GET, OPTIONS, POST"
    check = new_check(client)
    put = problem(client.put(f"/v1/checks/{check['check_id']}"), 405, "method-not-allowed")
    assert put["detail"].endswith("it takes GET, OPTIONS") and check["check_id"] in put["detail"]
    # a 404 of a real route is the route's own
    missing = problem(client.get("/v1/games/poker"), 404, "unknown-game")
    assert "poker" in missing["detail"]


def test_an_unknown_card_names_its_parameter_and_how_cards_are_written(
    client: TestClient[Any],
) -> None:
    before = check_count(client)
    variant = {"kind": "quota", "suit": "moons", "skill": 2, "quota": 2}
    answer = client.post(
        "/v1/checks",
        json={"game": GAME, "params": {"variant": {**variant, "suited_cards": ["ZZ", "5ML"]}}},
        headers=GM,
    )
    body = problem(answer, 422, "unknown-card")
    assert body["field"] == "suited_cards" and body["title"] == "Unknown card"
    assert body["detail"].startswith('suited_cards: unknown card "ZZ": give each card by its code')
    assert "GET /v1/decks/decktet" in body["detail"] and "Light Keeper" not in body["detail"]
    assert check_count(client) == before
    odds = client.get("/v1/odds?game=three-towers&suit=moons&skill=2&quota=2&suited_cards=5ML,ZZ")
    body = problem(odds, 422, "unknown-card")
    assert body["field"] == "suited_cards" and '"ZZ"' in body["detail"]
    # names, lowercase codes and spaces are the cards' one reading (docs/api.md), not refused
    for cards in (["5ml", "7ml"], ["Forest", "the Chance Meeting"]):
        made = client.post(
            "/v1/checks",
            json={"game": GAME, "params": {"variant": {**variant, "suited_cards": cards}}},
            headers=GM,
        )
        assert made.status_code == 201, made.text


# ---- 7. docs/api.md says what the server does --------------------------------------------------
# The re-issue section said an old token gets 404 (it gets 401); the `hint` event kind was
# missing from the kinds of /events, the check's stream and the GM's list stream; the calibrate
# example was stale ("best": 5 from 20 deals); the cards' reading by name was undocumented.

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def _docs() -> str:
    return " ".join(DOCS.read_text(encoding="utf-8").split())  # one line: sentences wrap


def test_the_docs_list_every_event_kind_where_kinds_are_listed() -> None:
    from skillcheck.sessions import EventKind

    text = _docs()
    lists = {
        "/events": re.search(r"`kind` is (.*?); every payload", text),
        "the check's stream": re.search(r"as `/events`, of every kind \((.*?)\)", text),
        "the GM's list stream": re.search(r"`event` is that kind \((.*?)\)", text),
    }
    for where, found in lists.items():
        assert found is not None, f"docs/api.md no longer lists the kinds of {where}"
        for kind in EventKind:
            assert f"`{kind.value}`" in found.group(1), (where, kind.value)


def test_the_docs_say_a_reissued_token_gets_401(client: TestClient[Any]) -> None:
    check = new_check(client)
    reissued = client.post(f"/v1/checks/{check['check_id']}/tokens/player", headers=GM)
    assert reissued.status_code == 200, reissued.text
    old = bearer(check["player_token"])
    acted = client.post(f"/v1/checks/{check['check_id']}/concede", headers=old)
    problem(acted, 401, "unauthorized")
    section = _docs().split("re-issue a token: **200**", 1)[1].split("### All endpoints", 1)[0]
    assert "the old token reaches nothing" in section
    assert "gets **401** `unauthorized`" in section and "(**404**" not in section


def test_the_calibrate_example_is_what_the_server_answers(client: TestClient[Any]) -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Calibrate: `GET /v1/calibrate`", 1)[1]
    query = re.search(r'curl -s "\$API(/v1/calibrate\?[^"]+)"', section)
    printed = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert query is not None and printed is not None
    answer = client.get(query.group(1))
    assert answer.status_code == 200, answer.text
    assert json.loads(printed.group(1)) == answer.json()


def test_the_docs_say_cards_are_read_by_name_or_code() -> None:
    text = _docs()
    assert "The one deliberate reading is of **cards**" in text
    assert '`["5ml", "7ml"]`, `["Forest", "the Chance Meeting"]`' in text
