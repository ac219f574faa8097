"""Live events over server-sent events, through real uvicorn servers: one process with the
in-memory channels, and two processes sharing events through the real Redis."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import GM_KEY, PARAMS, bearer
from live_server import api_server, redis_unreachable_reason

REDIS_URL = "redis://127.0.0.1:6379/0"


def _env(db: Path, **extra: str) -> dict[str, str]:
    return {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{db}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_RATE_LIMIT": "off",
        **extra,
    }


def _create(base: str, **body: Any) -> dict[str, Any]:
    response = httpx.post(
        f"{base}/v1/checks",
        json={"game": "three-towers", "params": PARAMS, "seed": 7, **body},
        headers=bearer(GM_KEY),
    )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


class Listener:
    """Reads one check's stream in a thread; parsed messages arrive on ``messages``."""

    def __init__(self, url: str, token: str, headers: dict[str, str] | None = None) -> None:
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.status: int | None = None
        self.content_type = ""
        self.closed = threading.Event()
        self.first_line = threading.Event()  # the stream's first line, a comment or not
        self._headers = {**bearer(token), **(headers or {})}
        self._url = url
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with httpx.stream("GET", self._url, headers=self._headers, timeout=30) as response:
                self.status = response.status_code
                self.content_type = response.headers.get("content-type", "")
                fields: dict[str, str] = {}
                for line in response.iter_lines():
                    self.first_line.set()
                    if not line:
                        if "data" in fields:
                            self.messages.put(
                                {
                                    "id": fields.get("id"),
                                    "event": fields.get("event"),
                                    "data": json.loads(fields["data"]),
                                }
                            )
                        fields = {}
                        continue
                    if line.startswith(":"):
                        continue
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
        except httpx.HTTPError:
            pass
        finally:
            self.closed.set()

    def next(self, timeout: float = 10) -> dict[str, Any]:
        return self.messages.get(timeout=timeout)


@contextmanager
def listening(base: str, check_id: str, token: str, **kw: Any) -> Iterator[Listener]:
    listener = Listener(f"{base}/v1/checks/{check_id}/stream", token, **kw)
    yield listener


def _move(base: str, check: dict[str, Any], version: int) -> dict[str, Any]:
    view = httpx.get(f"{base}/v1/checks/{check['check_id']}", headers=bearer(check["player_token"]))
    move = view.json()["legal_moves"][0]
    response = httpx.post(
        f"{base}/v1/checks/{check['check_id']}/moves",
        json={"move": move, "expected_version": version},
        headers=bearer(check["player_token"]),
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def test_a_spectator_sees_moves_live_and_the_stream_ends_with_the_check(tmp_path: Path) -> None:
    with api_server(_env(tmp_path / "db.sqlite3")) as base:
        check = _create(base)
        with listening(base, check["check_id"], check["spectator_token"]) as spectator:
            created = spectator.next()
            assert spectator.status == 200
            assert spectator.content_type.startswith("text/event-stream")
            assert (created["event"], created["id"]) == ("created", "1")
            view = _move(base, check, 0)
            moved = spectator.next()
            assert moved["event"] == "moved"
            assert moved["data"]["payload"]["view"]["version"] == view["version"] == 1
            assert moved["data"]["payload"]["view"]["observation"] == view["observation"]
            conceded = httpx.post(
                f"{base}/v1/checks/{check['check_id']}/concede",
                headers=bearer(check["player_token"]),
            )
            assert conceded.status_code == 200
            ended = spectator.next()
            assert ended["event"] == "ended"
            assert ended["data"]["payload"]["view"]["status"] == "lost"
            assert spectator.closed.wait(10), "the stream stays open after the check ended"


def test_last_event_id_resumes_after_what_the_client_saw(tmp_path: Path) -> None:
    with api_server(_env(tmp_path / "db.sqlite3")) as base:
        check = _create(base)
        _move(base, check, 0)
        _move(base, check, 1)
        with listening(
            base, check["check_id"], check["player_token"], headers={"Last-Event-ID": "2"}
        ) as player:
            first = player.next()
        assert first["id"] == "3" and first["event"] == "moved"
        assert first["data"]["payload"]["view"]["version"] == 2
        bad = httpx.get(
            f"{base}/v1/checks/{check['check_id']}/stream",
            headers={**bearer(check["player_token"]), "Last-Event-ID": "yesterday"},
        )
        assert bad.status_code == 400
        assert bad.json()["field"] == "Last-Event-ID"


def test_a_foreign_token_gets_no_stream(tmp_path: Path) -> None:
    with api_server(_env(tmp_path / "db.sqlite3")) as base:
        mine, other = _create(base), _create(base)
        response = httpx.get(
            f"{base}/v1/checks/{mine['check_id']}/stream", headers=bearer(other["player_token"])
        )
        assert response.status_code in (403, 404)
        assert response.headers["content-type"].startswith("application/problem+json")


@pytest.fixture
def redis_url() -> str:
    reason = redis_unreachable_reason(REDIS_URL)
    if reason is not None:
        pytest.skip(reason)
    return REDIS_URL


@pytest.mark.slow  # two server processes
def test_two_processes_share_live_events_through_redis(tmp_path: Path, redis_url: str) -> None:
    """The player moves on process A; a spectator streaming from process B sees it live."""
    env = _env(tmp_path / "db.sqlite3", SKILLCHECK_REDIS_URL=redis_url)
    with api_server(env) as a, api_server(env) as b:
        check = _create(a)
        with listening(b, check["check_id"], check["spectator_token"]) as spectator:
            assert spectator.next()["event"] == "created"
            _move(a, check, 0)
            moved = spectator.next(timeout=10)
            assert moved["event"] == "moved"
            assert moved["data"]["payload"]["view"]["version"] == 1


@pytest.mark.slow  # two server processes
def test_without_redis_another_process_does_not_see_the_move_live(tmp_path: Path) -> None:
    """The control for the test above: in-memory channels stay inside their process, so it is
    Redis that carries the event (a reconnect still finds it in the database)."""
    env = _env(tmp_path / "db.sqlite3")
    with api_server(env) as a, api_server(env) as b:
        check = _create(a)
        with listening(b, check["check_id"], check["spectator_token"]) as spectator:
            assert spectator.next()["event"] == "created"
            _move(a, check, 0)
            with pytest.raises(queue.Empty):
                spectator.next(timeout=2)
        with listening(
            b, check["check_id"], check["spectator_token"], headers={"Last-Event-ID": "1"}
        ) as again:
            assert again.next()["event"] == "moved"


def test_the_keepalive_is_a_comment_without_an_empty_event() -> None:
    """Found by schemathesis: the keepalive carried an empty ``data:`` line, an event with no
    data that fits no event schema; it is a comment line and the blank line only."""
    from api.live import KEEPALIVE

    assert KEEPALIVE.encode() == b": keepalive\r\n\r\n"
