"""Webhooks through the whole API: a callback given at creation receives the signed result,
retried after a failure, and recovered after a crash between the end and the enqueue."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import GM_KEY, PARAMS, bearer, settings_for
from litestar.testing import TestClient
from standardwebhooks import Webhook
from webhook_receiver import Receiver

from api.app import create_app
from api.db import database_config
from api.settings import Settings
from api.store import SqlCheckStore
from skillcheck.sessions import SessionService


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return dataclasses.replace(
        settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}"),
        webhooks_allow_private=True,  # the receiver is on loopback
        public_url="https://checks.example",
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient[Any]]:
    with TestClient(create_app(settings)) as c:
        yield c


def _create(client: TestClient[Any], **body: Any) -> Any:
    return client.post(
        "/v1/checks",
        json={"game": "three-towers", "params": PARAMS, "seed": 3, **body},
        headers=bearer(GM_KEY),
    )


def _wait_for(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s")
        time.sleep(0.05)


def test_the_result_arrives_signed_and_the_gm_sees_it_delivered(
    client: TestClient[Any], receiver: Receiver
) -> None:
    created = _create(client, callback_url=receiver.url, label="Aldo picks the lock")
    assert created.status_code == 201, created.text
    check = created.json()
    secret = check["webhook"]["secret"]
    assert check["webhook"]["url"] == receiver.url and secret.startswith("whsec_")
    conceded = client.post(
        f"/v1/checks/{check['check_id']}/concede", headers=bearer(check["player_token"])
    )
    assert conceded.status_code == 200
    _wait_for(lambda: len(receiver.requests) == 1, 10)
    request = receiver.requests[0]
    payload = Webhook(secret).verify(request.body, request.headers)  # the reference library
    assert payload["type"] == "check.ended"
    data = payload["data"]
    assert data["check_id"] == check["check_id"] and data["status"] == "lost"
    assert data["label"] == "Aldo picks the lock"
    assert data["record_url"] == f"https://checks.example/v1/checks/{check['check_id']}/record"
    assert data["commitment"] == check["commitment"]

    def delivered() -> bool:
        status = client.get(f"/v1/checks/{check['check_id']}/webhook", headers=bearer(GM_KEY))
        return bool(status.json()["deliveries"][0]["status"] == "delivered")

    _wait_for(delivered, 5)
    player_view = client.get(
        f"/v1/checks/{check['check_id']}/webhook", headers=bearer(check["player_token"])
    )
    assert player_view.status_code == 403  # only the GM sees deliveries
    assert secret not in json.dumps(
        client.get(f"/v1/checks/{check['check_id']}/webhook", headers=bearer(GM_KEY)).json()
    )


def test_a_failed_delivery_is_retried_with_the_same_id(
    client: TestClient[Any], receiver: Receiver
) -> None:
    receiver.respond(500)
    check = _create(client, callback_url=receiver.url, webhook_secret=None).json()
    client.post(f"/v1/checks/{check['check_id']}/concede", headers=bearer(check["player_token"]))
    _wait_for(lambda: len(receiver.requests) == 2, 15)  # the schedule's first delay is 5 s
    first, second = receiver.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert int(second.headers["webhook-timestamp"]) >= int(first.headers["webhook-timestamp"]) + 4
    Webhook(check["webhook"]["secret"]).verify(second.body, second.headers)


def test_a_gm_secret_is_used_and_bad_callbacks_are_refused(
    client: TestClient[Any], receiver: Receiver, settings: Settings
) -> None:
    mine = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    check = _create(client, callback_url=receiver.url, webhook_secret=mine).json()
    assert check["webhook"]["secret"] == mine
    refusals = [
        ({"callback_url": "ftp://example.com/hook"}, "callback_url"),
        ({"callback_url": receiver.url, "webhook_secret": "hunter2"}, "webhook_secret"),
        ({"webhook_secret": mine}, "webhook_secret"),
    ]
    for body, field in refusals:
        response = _create(client, **body)
        assert response.status_code == 422, body  # a value refused, as for any parameter
        assert response.json()["field"] == field
        assert "hunter2" not in response.text  # a bad secret is not echoed
    strict = dataclasses.replace(settings, webhooks_allow_private=False)
    with TestClient(create_app(strict)) as strict_client:
        response = _create(strict_client, callback_url=receiver.url)
        assert response.status_code == 422 and response.json()["field"] == "callback_url"
        assert "private" in response.json()["detail"]


def test_a_result_lost_in_a_crash_is_sent_at_the_next_start(
    settings: Settings, receiver: Receiver
) -> None:
    """The check ends but the process dies before enqueueing: the next start finds it."""
    with TestClient(create_app(settings)) as client:
        check = _create(client, callback_url=receiver.url).json()
    # the check ends through a bare service: no listener enqueues its webhook
    bare = SessionService(SqlCheckStore(database_config(settings.database_url)))
    bare.concede(check["check_id"])
    time.sleep(0.5)
    assert receiver.requests == []
    with TestClient(create_app(settings)):
        _wait_for(lambda: len(receiver.requests) == 1, 10)
    payload = Webhook(check["webhook"]["secret"]).verify(
        receiver.requests[0].body, receiver.requests[0].headers
    )
    assert payload["data"]["check_id"] == check["check_id"]
