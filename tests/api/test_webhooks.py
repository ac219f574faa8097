"""Webhooks (api/webhooks.py): signing and verifying as Standard Webhooks specifies, payloads,
the URL policy, the outbox, and the dispatcher delivering to a REAL HTTP receiver on a loopback
port (no mocks of httpx), with an injected clock for the retry schedule.

Signatures are checked three ways: our verifier, the independent ``standardwebhooks`` package
(the reference Python library of the spec), and examples/js/verify-webhook.mjs under Node.js.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import re
import shutil
import socket
import string
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from webhook_receiver import Receiver

from api.db import CheckRow, database_config, migrate
from api.outbox import SqlOutbox
from api.webhooks import (
    DEFAULT_RETRY_DELAYS,
    USER_AGENT,
    CallbackUrlError,
    DeliveryStatus,
    InMemoryOutbox,
    Outbox,
    RetrySchedule,
    WebhookDelivery,
    WebhookDispatcher,
    WebhookSigner,
    WebhookVerificationError,
    delivery_for_event,
    encode_payload,
    generate_secret,
    new_delivery,
    payload_for_event,
    result_payload,
    validate_callback_url,
    webhook_id,
)
from skillcheck.sessions import EventKind, SessionService

ROOT = Path(__file__).resolve().parents[2]
JS_VERIFIER = ROOT / "examples" / "js" / "verify-webhook.mjs"
PARAMS: dict[str, Any] = {
    "level": 6,
    "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 3},
}
T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
SECRET = generate_secret()


class FakeClock:
    def __init__(self, start: datetime = T0) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += timedelta(seconds=seconds)


def reference_library() -> Any:
    """The ``standardwebhooks`` package (the test extra installs it); fails, never skips."""
    try:
        import standardwebhooks
    except ImportError:  # pragma: no cover - the test extra installs it
        pytest.fail(
            "the standardwebhooks package is not installed: pip install -e '.[test]' (the "
            "cross-check against the spec's reference library must not be skipped)",
            pytrace=False,
        )
    return standardwebhooks


def finished_check(cancel: bool = False) -> tuple[SessionService, str]:
    service = SessionService()
    created = service.create(
        "three-towers", PARAMS, seed=1234, label="Mira picks the lock", metadata={"pc": "Mira"}
    )
    view = service.move(created.check_id, created.view.legal_moves[0])
    if cancel:
        service.cancel(created.check_id, "the guards arrive", expected_version=view.version)
    else:
        service.concede(created.check_id, expected_version=view.version)
    return service, created.check_id


def terminal_event(service: SessionService, check_id: str) -> Any:
    events = service.events(check_id)
    assert events[-1].terminal
    return events[-1]


def make_delivery(url: str, *, now: datetime = T0, msg_id: str = "msg_test1") -> WebhookDelivery:
    payload = {"type": "check.ended", "timestamp": "2026-11-29T12:00:00Z", "data": {"n": "é"}}
    return new_delivery(msg_id, "check-1", url, payload, now=now, allow_private=True)


def dispatcher(
    outbox: InMemoryOutbox, clock: FakeClock | None = None, **kw: Any
) -> WebhookDispatcher:
    kw.setdefault("allow_private", True)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("lease", 30.0)
    if clock is not None:
        kw["clock"] = clock
    return WebhookDispatcher(outbox, WebhookSigner(SECRET), **kw)


FAST = RetrySchedule(delays=(5.0, 300.0, 1800.0), jitter=0.0)


def one_round(outbox: InMemoryOutbox, clock: FakeClock | None = None, **kw: Any) -> int:
    """One round of a fresh dispatcher (``run_once``, then ``stop``); how many were attempted."""

    async def go() -> int:
        d = dispatcher(outbox, clock, **kw)
        try:
            return await d.run_once()
        finally:
            await d.stop()

    return asyncio.run(go())


# ---- secrets and signatures ----------------------------------------------------------------------


def test_generate_secret_makes_valid_distinct_secrets() -> None:
    a, b = generate_secret(), generate_secret(24)
    assert a.startswith("whsec_") and a != b
    assert len(base64.b64decode(a[6:])) == 32 and len(base64.b64decode(b[6:])) == 24
    WebhookSigner(a)
    WebhookSigner(b)
    with pytest.raises(ValueError, match="24 to 64"):
        generate_secret(8)


@pytest.mark.parametrize(
    ("secret", "problem"),
    [
        ("c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0", 'does not start with "whsec_"'),
        ("whsec_", 'nothing follows "whsec_"'),
        ("whsec_not base64 at all!!", "not valid base64"),
        ("whsec_" + base64.b64encode(b"short-key").decode(), "decodes to 9 bytes"),
        ("whsec_" + base64.b64encode(bytes(100)).decode(), "decodes to 100 bytes"),
        (b"whsec_AAAA", "got a bytes"),
    ],
)
def test_secret_validation_names_the_problem_and_the_form(secret: Any, problem: str) -> None:
    with pytest.raises(ValueError) as info:
        WebhookSigner(secret)
    message = str(info.value)
    assert problem in message
    assert '"whsec_" followed by the standard base64 encoding of 24 to 64 random bytes' in message
    if isinstance(secret, str) and len(secret) > 10:
        assert secret[6:] not in message  # never echo secret material


def test_unpadded_secret_is_accepted_like_the_reference_library() -> None:
    secret = generate_secret(32)
    unpadded = secret.rstrip("=")
    assert unpadded != secret
    body = b'{"a":1}'
    assert WebhookSigner(unpadded).sign("msg_1", 1, body) == WebhookSigner(secret).sign(
        "msg_1", 1, body
    )


def test_signature_matches_a_hand_computation_from_the_spec() -> None:
    # Independent of api/webhooks.py: HMAC-SHA256(key, "{id}.{timestamp}.{body}"), base64, "v1,".
    key = bytes(range(32))
    secret = "whsec_" + base64.b64encode(key).decode()
    body = b'{"type":"check.ended","data":{}}'
    expected = base64.b64encode(
        hmac.new(key, b"msg_abc.1674087231." + body, hashlib.sha256).digest()
    ).decode()
    signer = WebhookSigner(secret)
    assert signer.sign("msg_abc", 1674087231, body) == f"v1,{expected}"
    assert signer.headers("msg_abc", 1674087231, body) == {
        "webhook-id": "msg_abc",
        "webhook-timestamp": "1674087231",
        "webhook-signature": f"v1,{expected}",
    }


def test_the_documented_example_verifies() -> None:
    text = (ROOT / "docs" / "webhooks.md").read_text(encoding="utf-8")
    secret = re.search(r"example secret `(whsec_[A-Za-z0-9+/=]+)`", text)
    request = re.search(r"```http\n(.*?)\n\n(.*?)\n```", text, re.S)
    assert secret is not None and request is not None
    head, body = request.group(1).splitlines()[1:], request.group(2).encode()
    headers = dict(line.split(": ", 1) for line in head)
    stamp = int(headers["webhook-timestamp"])
    verified = WebhookSigner(secret.group(1)).verify(headers, body, now=stamp)
    assert verified.msg_id == headers["webhook-id"]
    assert json.loads(body)["data"]["record_url"].endswith("/record")


def test_reference_library_verifies_our_signatures_and_we_verify_its() -> None:
    standardwebhooks = reference_library()
    body = encode_payload({"type": "check.ended", "timestamp": "x", "data": {"label": "Mira ✓"}})
    now = int(time.time())
    headers = WebhookSigner(SECRET).headers("msg_xyz", now, body)
    reference = standardwebhooks.Webhook(SECRET)
    assert reference.verify(body, headers) == json.loads(body)
    theirs = reference.sign("msg_xyz", datetime.fromtimestamp(now, UTC), body.decode())
    assert theirs == headers["webhook-signature"]
    ok = WebhookSigner(SECRET).verify(
        {"Webhook-Id": "msg_xyz", "Webhook-Timestamp": str(now), "Webhook-Signature": theirs}, body
    )
    assert (ok.msg_id, ok.timestamp) == ("msg_xyz", now)


def test_verify_rejects_tampering_old_and_future_timestamps_and_wrong_secrets() -> None:
    signer = WebhookSigner(SECRET)
    body = b'{"type":"check.ended","data":{"degree":2}}'
    headers = signer.headers("msg_1", 1_000_000, body)
    assert signer.verify(headers, body, now=1_000_000).msg_id == "msg_1"
    assert signer.verify(headers, body, now=1_000_300).timestamp == 1_000_000  # at the edge
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        signer.verify(headers, body.replace(b"2", b"3"), now=1_000_000)
    with pytest.raises(WebhookVerificationError, match="301 s old"):
        signer.verify(headers, body, now=1_000_301)
    with pytest.raises(WebhookVerificationError, match="in the future"):
        signer.verify(headers, body, now=999_000)
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        WebhookSigner(generate_secret()).verify(headers, body, now=1_000_000)
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        signer.verify({**headers, "webhook-id": "msg_2"}, body, now=1_000_000)
    replayed = {**headers, "webhook-timestamp": "1000100"}  # a fresh timestamp, old signature
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        signer.verify(replayed, body, now=1_000_100)
    with pytest.raises(WebhookVerificationError, match="missing header"):
        signer.verify({"webhook-id": "msg_1"}, body, now=1_000_000)
    with pytest.raises(WebhookVerificationError, match="whole seconds"):
        signer.verify({**headers, "webhook-timestamp": "1e6"}, body, now=1_000_000)
    with pytest.raises(WebhookVerificationError, match=r"never '\.'"):
        signer.verify({**headers, "webhook-id": "msg.1"}, body, now=1_000_000)
    v1a = {**headers, "webhook-signature": "v1a,AAAA " + "v1,%%%"}
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        signer.verify(v1a, body, now=1_000_000)


def test_several_secrets_sign_with_each_for_rotation() -> None:
    old, new = generate_secret(), generate_secret()
    body = b"{}"
    rotating = WebhookSigner(new, old)
    headers = rotating.headers("msg_r", 50, body)
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert WebhookSigner(old).verify(headers, body, now=50).msg_id == "msg_r"
    assert WebhookSigner(new).verify(headers, body, now=50).msg_id == "msg_r"
    assert "whsec" not in repr(rotating)


def test_sign_refuses_ids_with_dots_and_bad_timestamps() -> None:
    signer = WebhookSigner(SECRET)
    with pytest.raises(ValueError, match=r"never '\.'"):
        signer.sign("msg.1", 1, b"")
    with pytest.raises(ValueError, match="whole seconds"):
        signer.sign("msg_1", -1, b"")
    with pytest.raises(ValueError, match="whole seconds"):
        signer.sign("msg_1", 1.5, b"")  # type: ignore[arg-type]


ID_ALPHABET = string.ascii_letters + string.digits + "_-:~+/="


@settings(max_examples=150, deadline=None)
@given(
    msg_id=st.text(alphabet=ID_ALPHABET, min_size=1, max_size=64),
    timestamp=st.integers(min_value=0, max_value=10**12 - 1),
    body=st.binary(min_size=1, max_size=2048),
    data=st.data(),
)
def test_sign_verify_round_trip_and_any_byte_change_fails(
    msg_id: str, timestamp: int, body: bytes, data: st.DataObject
) -> None:
    signer = WebhookSigner(SECRET)
    headers = signer.headers(msg_id, timestamp, body)
    verified = signer.verify(headers, body, now=timestamp)
    assert (verified.msg_id, verified.timestamp) == (msg_id, timestamp)
    index = data.draw(st.integers(min_value=0, max_value=len(body) - 1), label="index")
    flip = data.draw(st.integers(min_value=1, max_value=255), label="xor")
    changed = bytearray(body)
    changed[index] ^= flip
    with pytest.raises(WebhookVerificationError):
        signer.verify(headers, bytes(changed), now=timestamp)


# ---- payloads ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cancel", [False, True])
def test_payload_is_the_result_only_with_a_link_to_the_record(cancel: bool) -> None:
    service, check_id = finished_check(cancel)
    event = terminal_event(service, check_id)
    payload = payload_for_event(event)
    assert payload is not None
    assert payload["type"] == ("check.cancelled" if cancel else "check.ended")
    assert payload["timestamp"].endswith("Z")
    assert datetime.fromisoformat(payload["timestamp"]) == event.at
    data = payload["data"]
    assert set(data) == {
        "check_id",
        "game",
        "status",
        "outcome",
        "degree",
        "tier",
        "tier_text",
        "moves_made",
        "version",
        "label",
        "metadata",
        "commitment",
        "cancel_reason",
        "record_url",
    }
    view = service.view(check_id)
    assert data["check_id"] == check_id
    assert data["record_url"] == f"/v1/checks/{check_id}/record"
    assert data["status"] == ("cancelled" if cancel else "lost")
    assert data["moves_made"] == 1 and data["version"] == view.version
    assert data["label"] == "Mira picks the lock" and data["metadata"] == {"pc": "Mira"}
    assert data["commitment"] == view.commitment
    if cancel:
        assert data["outcome"] is None and data["degree"] is None
        assert data["cancel_reason"] == "the guards arrive"
    else:
        assert data["outcome"]["reason"] == "conceded"
        assert data["degree"] == view.degree == data["outcome"]["degree"]
    # No cards, seed or salt: the record stays behind record_url.
    text = encode_payload(payload).decode()
    record = service.record(check_id)
    assert record.salt not in text and '"seed"' not in text and "observation" not in text
    assert len(text) < 2000
    assert result_payload(view, payload["type"], event.at) == payload
    absolute = payload_for_event(event, base_url="https://checks.example/")
    assert absolute is not None
    assert absolute["data"]["record_url"] == f"https://checks.example/v1/checks/{check_id}/record"


def test_only_terminal_events_send_webhooks_and_ids_are_deterministic() -> None:
    service, check_id = finished_check()
    events = service.events(check_id)
    assert [e.kind for e in events] == [EventKind.CREATED, EventKind.MOVED, EventKind.ENDED]
    assert payload_for_event(events[0]) is None and payload_for_event(events[1]) is None
    assert delivery_for_event(events[0], "https://example.com/hook") is None
    first = delivery_for_event(events[-1], "https://example.com/hook", now=T0)
    again = delivery_for_event(events[-1], "https://example.com/hook", now=T0)
    assert first is not None and first == again
    assert first.id == webhook_id(check_id, events[-1].sequence)
    assert first.id.startswith("msg_") and "." not in first.id
    assert first.event_type == "check.ended" and json.loads(first.body)["data"]["check_id"]
    outbox = InMemoryOutbox()
    assert outbox.enqueue(first) is True
    assert outbox.enqueue(first) is False  # the same event twice: one delivery
    with pytest.raises(CallbackUrlError):
        delivery_for_event(events[-1], "http://127.0.0.1/hook")


# ---- the URL policy ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/hooks/skillcheck",
        "http://example.com:8080/x?y=1",
        "https://93.184.216.34/hook",
        "https://[2606:4700::1111]/hook",
        "https://" + "a" * 63 + ".example.com/hook",
        "https://example.com./hook",
    ],
)
def test_public_urls_are_accepted(url: str) -> None:
    assert validate_callback_url(url) == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://example.com/x", "must start with https://"),
        ("example.com/hook", "must start with https://"),
        ("https:///hook", "no host"),
        ("https://user:pw@example.com/", "user name or password"),
        ("https://example.com/#frag", "fragment"),
        ("https://exa mple.com/", "spaces"),
        ("https://example.com/" + "a" * 2100, "at most 2048"),
        ("https://example.com:99999/", 'port must be a whole number from 1 to 65535, not "99999"'),
        ("https://example.com:0/", "port must be a whole number from 1 to 65535, not 0"),
        ("https://example.com:abc/", 'port must be a whole number from 1 to 65535, not "abc"'),
        ("/hooks", "must start with https:// .*; this one has no scheme"),
        ("https://[::1/hook", r"unmatched \[ or \]"),
        ("", "empty"),
        ("http://127.0.0.1/", "loopback, private"),
        ("http://127.1/", "loopback, private"),
        ("http://2130706433/", "loopback, private"),
        ("http://0x7f000001/", "loopback, private"),
        ("http://0.0.0.0/", "loopback, private"),
        ("http://[::1]:8000/", "loopback, private"),
        ("http://[::ffff:127.0.0.1]/", "loopback, private"),
        ("http://10.1.2.3/", "loopback, private"),
        ("http://192.168.0.10/", "loopback, private"),
        ("http://169.254.169.254/latest/meta-data/", "loopback, private"),
        ("http://100.64.0.1/", "loopback, private"),
        ("http://localhost:8000/hook", "local name"),
        ("http://vtt.localhost/hook", "local name"),
        ("http://db.internal/", "local name"),
        ("http://intranet/", "local name"),
        ("https://" + "a" * 1000 + ".example.com/", "a DNS name has at most 253"),
        ("https://" + "a" * 64 + ".example.com/", "a DNS label has at most 63"),
        ("https://vtt..example.com/", "empty label"),
    ],
)
def test_refused_urls_say_why(url: str, problem: str) -> None:
    with pytest.raises(CallbackUrlError, match=problem):
        validate_callback_url(url)


def test_private_urls_only_when_explicitly_allowed() -> None:
    for url in ("http://127.0.0.1:8000/hook", "http://localhost/x", "http://10.0.0.5/h"):
        with pytest.raises(CallbackUrlError):
            validate_callback_url(url)
        assert validate_callback_url(url, allow_private=True) == url
    with pytest.raises(CallbackUrlError, match="must start with"):
        validate_callback_url("file:///etc/passwd", allow_private=True)


# ---- the outbox ----------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def outbox(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Outbox]:
    """Every outbox keeps the same semantics: in memory, and the SQL one on SQLite and on the
    real PostgreSQL (skipped with the reason when unreachable)."""
    if request.param == "memory":
        yield InMemoryOutbox()
        return
    url = (
        f"sqlite:///{tmp_path / 'outbox.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    config = database_config(url)
    migrate(config)
    with config.get_engine().begin() as conn:  # the deliveries' check (a foreign key)
        conn.execute(
            sa.insert(CheckRow.__table__).values(
                id="check-1", game="three-towers", config={}, seed=1, salt="s",
                commitment="c", status="won", version=0, last_sequence=0,
                created_at=T0, updated_at=T0,
            )
        )  # fmt: skip
    try:
        yield SqlOutbox(config)
    finally:
        config.get_engine().dispose()


def test_outbox_enqueues_each_id_once(outbox: Outbox) -> None:
    d = make_delivery("http://127.0.0.1:9/x")
    assert outbox.enqueue(d) is True
    assert outbox.enqueue(make_delivery("http://127.0.0.1:9/other")) is False
    stored = outbox.get(d.id)
    assert stored == d  # bytes, times and status come back as stored
    assert outbox.get("msg_missing") is None


def test_outbox_leases_claims_and_fences_stale_workers(outbox: Outbox) -> None:
    d = make_delivery("http://127.0.0.1:9/x")
    outbox.enqueue(d)
    lease = timedelta(seconds=60)
    assert outbox.due(T0 - timedelta(seconds=1), 10, lease) == []  # not due yet
    (first,) = outbox.due(T0, 10, lease)
    assert first.attempts == 1 and first.last_attempt_at == T0
    assert first.next_attempt_at == T0 + lease
    assert outbox.due(T0 + timedelta(seconds=59), 10, lease) == []  # leased
    (second,) = outbox.due(T0 + lease, 10, lease)  # the lease ran out: claimed again
    assert second.attempts == 2
    assert outbox.mark_delivered(first) is False  # the stale worker cannot overwrite
    assert outbox.mark_retry(first, T0, "late") is False
    assert outbox.mark_delivered(second) is True
    stored = outbox.get(d.id)
    assert stored is not None and stored.status is DeliveryStatus.DELIVERED
    assert outbox.mark_failed(second, "too late") is False  # final states are final
    assert outbox.due(T0 + timedelta(days=30), 10, lease) == []


def test_outbox_claims_each_delivery_once_across_threads(outbox: Outbox) -> None:
    for n in range(200):
        outbox.enqueue(make_delivery("http://127.0.0.1:9/x", msg_id=f"msg_{n}"))
    claimed: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        while batch := outbox.due(T0, 3, timedelta(minutes=5)):
            with lock:
                claimed.extend(d.id for d in batch)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(f"msg_{n}" for n in range(200))


def test_retry_schedule_defaults_follow_the_spec() -> None:
    schedule = RetrySchedule()
    assert schedule.delays == DEFAULT_RETRY_DELAYS
    assert schedule.max_attempts == 10
    assert [schedule.delay_after(n) is None for n in (0, 9, 10)] == [True, False, True]
    for n, base in enumerate(DEFAULT_RETRY_DELAYS, 1):
        delay = schedule.delay_after(n)
        assert delay is not None and base * 0.9 <= delay <= base * 1.1
    with pytest.raises(ValueError):
        RetrySchedule(delays=(-1.0,))
    with pytest.raises(ValueError):
        RetrySchedule(jitter=1.5)


# ---- delivery to a real receiver -----------------------------------------------------------------


def test_delivers_a_signed_result_that_every_verifier_accepts(receiver: Receiver) -> None:
    service, check_id = finished_check()
    event = terminal_event(service, check_id)
    delivery = delivery_for_event(event, receiver.url, allow_private=True)
    assert delivery is not None
    outbox = InMemoryOutbox()
    outbox.enqueue(delivery)

    assert one_round(outbox) == 1  # the real clock: the reference library checks it
    (got,) = receiver.requests
    assert got.path == "/hooks/skillcheck"
    assert got.headers["content-type"] == "application/json"
    assert got.headers["user-agent"] == USER_AGENT
    assert got.headers["webhook-id"] == delivery.id
    assert got.body == delivery.body
    assert abs(int(got.headers["webhook-timestamp"]) - time.time()) < 30
    verified = WebhookSigner(SECRET).verify(got.headers, got.body)
    assert verified.msg_id == delivery.id
    standardwebhooks = reference_library()
    payload = standardwebhooks.Webhook(SECRET).verify(got.body, got.headers)
    assert payload["type"] == "check.ended" and payload["data"]["check_id"] == check_id
    result = run_js_verifier(SECRET, got.headers, got.body)
    assert result == {"ok": True, "id": delivery.id, "timestamp": verified.timestamp}
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.DELIVERED
    assert stored.attempts == 1 and stored.last_error is None


def test_retries_with_backoff_then_delivers_on_attempt_three(receiver: Receiver) -> None:
    receiver.respond(500, 500, 200)
    clock = FakeClock()
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)
    outbox.enqueue(delivery)

    async def go() -> list[int]:
        d = dispatcher(outbox, clock, schedule=FAST)
        attempted = []
        try:
            attempted.append(await d.run_once())  # t0: 500
            stored = outbox.get(delivery.id)
            assert stored is not None and stored.attempts == 1
            assert stored.next_attempt_at == T0 + timedelta(seconds=5)
            assert stored.last_error == "HTTP 500 Internal Server Error"
            clock.advance(4.9)
            attempted.append(await d.run_once())  # not due yet
            clock.advance(0.1)
            attempted.append(await d.run_once())  # t0+5: 500
            stored = outbox.get(delivery.id)
            assert stored is not None
            assert stored.next_attempt_at == T0 + timedelta(seconds=305)
            clock.advance(299)
            attempted.append(await d.run_once())  # not due
            clock.advance(1)
            attempted.append(await d.run_once())  # t0+305: 200
            clock.advance(10_000)
            attempted.append(await d.run_once())  # nothing left
        finally:
            await d.stop()
        return attempted

    assert asyncio.run(go()) == [1, 0, 1, 0, 1, 0]
    stamps = [int(r.headers["webhook-timestamp"]) - int(T0.timestamp()) for r in receiver.requests]
    assert stamps == [0, 5, 305]  # the schedule, read from the signed attempt timestamps
    assert {r.headers["webhook-id"] for r in receiver.requests} == {delivery.id}
    assert {r.body for r in receiver.requests} == {delivery.body}
    signer = WebhookSigner(SECRET)
    for r in receiver.requests:
        signer.verify(r.headers, r.body, now=int(r.headers["webhook-timestamp"]))
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.DELIVERED
    assert stored.attempts == 3


def test_background_worker_follows_the_schedule_with_injected_sleep(receiver: Receiver) -> None:
    receiver.respond(500, 503, 200)
    clock = FakeClock()
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)
    outbox.enqueue(delivery)
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)
        await asyncio.sleep(0)

    async def go() -> None:
        d = dispatcher(outbox, clock, schedule=FAST, sleep=fake_sleep, poll_interval=1.0)
        await d.start()
        await d.start()  # idempotent
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                stored = outbox.get(delivery.id)
                assert stored is not None
                if stored.status is not DeliveryStatus.PENDING:
                    break
                await asyncio.sleep(0.01)
        finally:
            await d.stop()
        assert not d.running

    asyncio.run(go())
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.DELIVERED
    stamps = [int(r.headers["webhook-timestamp"]) - int(T0.timestamp()) for r in receiver.requests]
    assert stamps == [0, 5, 305]
    assert set(slept) == {1.0}


def test_wake_cuts_the_idle_sleep_short(receiver: Receiver) -> None:
    outbox = InMemoryOutbox()

    async def go() -> float:
        d = dispatcher(outbox, poll_interval=30.0)
        await d.start()
        try:
            await asyncio.sleep(0.1)  # the worker is now idle for 30 s
            outbox.enqueue(make_delivery(receiver.url, now=datetime.now(UTC)))
            started = time.monotonic()
            threading.Thread(target=d.wake).start()  # from another thread, as a handler would
            while not receiver.requests and time.monotonic() - started < 10:
                await asyncio.sleep(0.01)
            return time.monotonic() - started
        finally:
            await d.stop()

    assert asyncio.run(go()) < 5
    assert len(receiver.requests) == 1


def test_gives_up_after_the_last_attempt(
    receiver: Receiver, caplog: pytest.LogCaptureFixture
) -> None:
    receiver.respond(500, 502, 504, 500)
    clock = FakeClock()
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)
    outbox.enqueue(delivery)
    schedule = RetrySchedule(delays=(1.0, 2.0), jitter=0.0)

    async def go() -> None:
        d = dispatcher(outbox, clock, schedule=schedule)
        try:
            for step in (0, 1, 2, 1000):
                clock.advance(step)
                await d.run_once()
        finally:
            await d.stop()

    with caplog.at_level("ERROR", logger="skillcheck.webhooks"):
        asyncio.run(go())
    assert len(receiver.requests) == 3
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.FAILED
    assert stored.attempts == 3
    assert stored.last_error == "gave up after 3 attempts; last error: HTTP 504 Gateway Timeout"
    assert any("failed for good" in r.getMessage() for r in caplog.records)


def test_410_gone_stops_at_once(receiver: Receiver) -> None:
    receiver.respond(410)
    clock = FakeClock()
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)
    outbox.enqueue(delivery)

    async def go() -> list[int]:
        d = dispatcher(outbox, clock, schedule=FAST)
        try:
            first = await d.run_once()
            clock.advance(86400)
            return [first, await d.run_once()]
        finally:
            await d.stop()

    assert asyncio.run(go()) == [1, 0]
    assert len(receiver.requests) == 1
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.FAILED
    assert stored.last_error is not None and stored.last_error.startswith("HTTP 410 Gone")


@pytest.mark.parametrize(
    ("status", "retry_after", "expected_delay"),
    [
        (503, "120", 120.0),  # longer than the schedule's 5 s: honoured
        (429, "1", 5.0),  # shorter: the schedule's delay stands
        (503, "9999999", 1800.0),  # capped at the schedule's longest delay
        (429, "date+600", 600.0),  # the HTTP-date form
        (503, "soon", 5.0),  # unreadable: ignored
        (500, "120", 5.0),  # only 429 and 503 carry a Retry-After we honour
    ],
)
def test_retry_after_within_the_schedule(
    receiver: Receiver, status: int, retry_after: str, expected_delay: float
) -> None:
    if retry_after.startswith("date+"):
        retry_after = format_datetime(T0 + timedelta(seconds=float(retry_after[5:])), usegmt=True)
    receiver.respond((status, {"Retry-After": retry_after}))
    clock = FakeClock()
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)
    outbox.enqueue(delivery)

    one_round(outbox, clock, schedule=FAST)
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.PENDING
    assert stored.next_attempt_at == T0 + timedelta(seconds=expected_delay)


def test_redirects_are_failures_and_not_followed(receiver: Receiver) -> None:
    receiver.respond((302, {"Location": receiver.url + "/elsewhere"}))
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)
    outbox.enqueue(delivery)

    one_round(outbox, FakeClock(), schedule=FAST)
    assert len(receiver.requests) == 1
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.PENDING
    assert stored.last_error == "HTTP 302 Found"


def test_network_errors_and_timeouts_are_retried(receiver: Receiver) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    receiver.respond((200, {}, 2.0))  # answers after the timeout
    outbox = InMemoryOutbox()
    refused = make_delivery(f"http://127.0.0.1:{closed_port}/hook", msg_id="msg_refused")
    slow = make_delivery(receiver.url, msg_id="msg_slow")
    outbox.enqueue(refused)
    outbox.enqueue(slow)

    assert one_round(outbox, FakeClock(), schedule=FAST, timeout=0.5) == 2
    for msg_id, error in (("msg_refused", "ConnectError"), ("msg_slow", "ReadTimeout")):
        stored = outbox.get(msg_id)
        assert stored is not None and stored.status is DeliveryStatus.PENDING, msg_id
        assert stored.last_error is not None and stored.last_error.startswith(error)
        assert stored.next_attempt_at == T0 + timedelta(seconds=5)


def test_private_addresses_are_refused_at_send_time_unless_allowed(receiver: Receiver) -> None:
    outbox = InMemoryOutbox()
    delivery = make_delivery(receiver.url)  # stored while private URLs were allowed
    outbox.enqueue(delivery)

    one_round(outbox, FakeClock(), allow_private=False)
    assert receiver.requests == []
    stored = outbox.get(delivery.id)
    assert stored is not None and stored.status is DeliveryStatus.FAILED
    assert stored.last_error is not None and "not a public address" in stored.last_error


def test_a_lease_that_ran_out_is_retried_and_a_crashed_last_attempt_fails(
    receiver: Receiver,
) -> None:
    clock = FakeClock()
    outbox = InMemoryOutbox()
    lease = timedelta(seconds=30)
    schedule = RetrySchedule(delays=(1.0,), jitter=0.0)  # two attempts
    a = make_delivery(receiver.url, msg_id="msg_a")
    b = make_delivery(receiver.url, msg_id="msg_b")
    outbox.enqueue(a)
    outbox.enqueue(b)
    assert len(outbox.due(T0, 10, lease)) == 2  # a worker claims both, then dies
    clock.advance(30)
    assert len(outbox.due(clock(), 1, lease)) == 1  # msg_a: claimed and lost a second time
    clock.advance(30)

    assert one_round(outbox, clock, schedule=schedule) == 2
    stored_a, stored_b = outbox.get("msg_a"), outbox.get("msg_b")
    assert stored_a is not None and stored_a.status is DeliveryStatus.FAILED
    assert stored_a.last_error == "gave up after 2 attempts"
    assert stored_b is not None and stored_b.status is DeliveryStatus.DELIVERED
    assert [r.headers["webhook-id"] for r in receiver.requests] == ["msg_b"]


def test_dispatcher_refuses_a_lease_shorter_than_the_timeout() -> None:
    with pytest.raises(ValueError, match="lease"):
        WebhookDispatcher(InMemoryOutbox(), WebhookSigner(SECRET), timeout=30, lease=10)


def test_a_signer_per_delivery(receiver: Receiver) -> None:
    secrets_by_check = {"check-1": generate_secret()}
    outbox = InMemoryOutbox()
    outbox.enqueue(make_delivery(receiver.url))

    async def go() -> None:
        d = WebhookDispatcher(
            outbox,
            lambda delivery: WebhookSigner(secrets_by_check[delivery.check_id]),
            allow_private=True,
        )
        try:
            await d.run_once()
        finally:
            await d.stop()

    asyncio.run(go())
    (got,) = receiver.requests
    WebhookSigner(secrets_by_check["check-1"]).verify(got.headers, got.body)
    with pytest.raises(WebhookVerificationError):
        WebhookSigner(SECRET).verify(got.headers, got.body)


# ---- the JavaScript verifier ---------------------------------------------------------------------


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "Node.js is not installed: the webhook verifier tests need `node` (version 20 or "
            "later) on PATH to run examples/js/verify-webhook.mjs. Install Node.js (CI does); "
            "these tests must not be skipped.",
            pytrace=False,
        )
    return path


def run_js_verifier(
    secret: str, headers: dict[str, str], body: bytes, now: float | None = None
) -> dict[str, Any]:
    request: dict[str, Any] = {
        "secret": secret,
        "headers": headers,
        "body_base64": base64.b64encode(body).decode(),
    }
    if now is not None:
        request["now"] = now
    done = subprocess.run(
        [node(), str(JS_VERIFIER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if result["ok"] else 1), done.stderr
    return result


def test_js_verifier_accepts_python_signatures_and_rejects_changes() -> None:
    signer = WebhookSigner(SECRET)
    body = encode_payload({"type": "check.ended", "timestamp": "t", "data": {"label": "Mira ✓"}})
    headers = signer.headers("msg_js1", 1_700_000_000, body)
    ok = run_js_verifier(SECRET, headers, body, now=1_700_000_100)
    assert ok == {"ok": True, "id": "msg_js1", "timestamp": 1_700_000_000}
    tampered = run_js_verifier(SECRET, headers, body.replace(b"Mira", b"Miro"), now=1_700_000_100)
    assert tampered["ok"] is False and "no v1 signature" in tampered["error"]
    old = run_js_verifier(SECRET, headers, body, now=1_700_000_301)
    assert old["ok"] is False and "tolerance" in old["error"]
    other = run_js_verifier(generate_secret(), headers, body, now=1_700_000_000)
    assert other["ok"] is False
    rotating = WebhookSigner(generate_secret(), SECRET).headers("msg_js2", 1_700_000_000, body)
    assert run_js_verifier(SECRET, rotating, body, now=1_700_000_000)["ok"] is True
