"""Webhooks: a check's result POSTed to a callback URL, signed as Standard Webhooks specifies.

A GM gives a ``callback_url`` when creating a check; when the check ends (``check.ended``) or is
called off (``check.cancelled``), the API POSTs the result there. docs/webhooks.md is the
receiver's side (headers, verification in Python and JavaScript, retries, idempotency).

The pieces, from the bottom up:

- :class:`WebhookSigner` signs and verifies as the Standard Webhooks specification
  (https://www.standardwebhooks.com, ``spec/standard-webhooks.md``) says: HMAC-SHA256 with a
  ``whsec_<base64>`` secret over ``{webhook-id}.{webhook-timestamp}.{body}``, sent as
  ``webhook-signature: v1,<base64>`` (several space-separated signatures while a secret is being
  rotated). :func:`generate_secret` makes a secret.
- :func:`result_payload` / :func:`payload_for_event` build the JSON body
  ``{"type", "timestamp", "data"}``: the result only (status, outcome, degree, label, metadata,
  commitment...) and the path of the revealed record, never a card.
- :func:`validate_callback_url` is the URL policy (http/https, length, no private addresses
  unless ``allow_private``: see its docstring on SSRF).
- :class:`WebhookDelivery` is one message to one URL; an :class:`Outbox` stores deliveries durably
  and leases due ones to a worker; :class:`InMemoryOutbox` is the in-process implementation.
- :class:`WebhookDispatcher` is the asyncio worker: it claims due deliveries, POSTs them with
  httpx, and marks them delivered, to be retried after a backoff (:class:`RetrySchedule`), or
  failed.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import enum
import hashlib
import hmac
import ipaddress
import json
import logging
import random
import secrets
import socket
import string
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, Final, Protocol
from urllib.parse import quote, urlsplit

import httpx

from skillcheck.errors import quoted
from skillcheck.sessions import CheckEvent, CheckView, EventKind

__all__ = [
    "ALLOW_PRIVATE_SETTING",
    "DEFAULT_RETRY_DELAYS",
    "EVENT_TYPES",
    "MAX_URL_LENGTH",
    "SECRET_FORM",
    "SECRET_PREFIX",
    "USER_AGENT",
    "CallbackUrlError",
    "DeliveryStatus",
    "InMemoryOutbox",
    "Outbox",
    "RetrySchedule",
    "VerifiedWebhook",
    "WebhookDelivery",
    "WebhookDispatcher",
    "WebhookSecretError",
    "WebhookSigner",
    "WebhookVerificationError",
    "delivery_for_event",
    "encode_payload",
    "generate_secret",
    "new_delivery",
    "payload_for_event",
    "record_path",
    "result_payload",
    "validate_callback_url",
    "webhook_id",
]

logger = logging.getLogger("skillcheck.webhooks")

SECRET_PREFIX: Final = "whsec_"
#: The spec: a random secret of at least 24 bytes (192 bits) and at most 512 bits.
MIN_SECRET_BYTES: Final = 24
MAX_SECRET_BYTES: Final = 64
DEFAULT_SECRET_BYTES: Final = 32
#: Signature receivers accept: a webhook-timestamp at most this far from their clock.
DEFAULT_TOLERANCE: Final = 300.0
USER_AGENT: Final = "skillcheck-webhooks/1"
MAX_URL_LENGTH: Final = 2048
MAX_MSG_ID_LENGTH: Final = 256
#: The delays before the 2nd, 3rd, ... attempt, in seconds: the spec's example schedule
#: (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h): ten attempts over ~3 days.
DEFAULT_RETRY_DELAYS: Final[tuple[float, ...]] = (
    5.0,
    300.0,
    1800.0,
    7200.0,
    18000.0,
    36000.0,
    50400.0,
    72000.0,
    86400.0,
)

#: Event kinds that send a webhook, and the webhook ``type`` each sends.
EVENT_TYPES: Final[Mapping[EventKind, str]] = {
    EventKind.ENDED: "check.ended",
    EventKind.CANCELLED: "check.cancelled",
}

_MSG_ID_CHARS: Final = frozenset(string.ascii_letters + string.digits + "_-:~+/=")


def _utc_now() -> datetime:
    return datetime.now(UTC)


# ---- secrets, signing, verifying --------------------------------------------------------------


class WebhookVerificationError(Exception):
    """A webhook failed verification: missing or malformed headers, a timestamp outside the
    tolerance, or no signature made with the receiver's secret over these exact bytes."""


def generate_secret(nbytes: int = DEFAULT_SECRET_BYTES) -> str:
    """A new signing secret, ``whsec_`` + base64 of ``nbytes`` random bytes (24 to 64)."""
    if not MIN_SECRET_BYTES <= nbytes <= MAX_SECRET_BYTES:
        raise ValueError(
            f"a webhook secret has {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} random bytes, "
            f"not {nbytes}"
        )
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(nbytes)).decode("ascii")


#: What a signing secret looks like, in words.
SECRET_FORM: Final = (
    f"{quoted(SECRET_PREFIX)} followed by the standard base64 encoding of {MIN_SECRET_BYTES} to "
    f"{MAX_SECRET_BYTES} random bytes"
)


class WebhookSecretError(ValueError):
    """A malformed signing secret; ``reason`` says what is wrong with it (never repeating it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"a webhook secret is {SECRET_FORM} (generate_secret() makes one); {reason}"
        )
        self.reason = reason


def _secret_key(secret: str) -> bytes:
    """The key bytes of a ``whsec_<base64>`` secret. Error messages never repeat the secret."""
    if not isinstance(secret, str):
        raise WebhookSecretError(f"got a {type(secret).__name__}, not a string")
    if not secret.startswith(SECRET_PREFIX):
        raise WebhookSecretError(f"this value does not start with {quoted(SECRET_PREFIX)}")
    encoded = secret[len(SECRET_PREFIX) :]
    if not encoded:
        raise WebhookSecretError(f"nothing follows {quoted(SECRET_PREFIX)}")
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise WebhookSecretError(
            f"the part after {quoted(SECRET_PREFIX)} is not valid base64 (A-Z, a-z, "
            '0-9, "+", "/", "=" padding)'
        ) from None
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise WebhookSecretError(f"this one decodes to {len(key)} bytes")
    return key


def _check_msg_id(msg_id: str) -> None:
    if not isinstance(msg_id, str) or not 1 <= len(msg_id) <= MAX_MSG_ID_LENGTH:
        raise ValueError(f"a webhook id is 1 to {MAX_MSG_ID_LENGTH} characters")
    if not set(msg_id) <= _MSG_ID_CHARS:
        raise ValueError(
            "a webhook id may hold only ASCII letters, digits and '_-:~+/=' (never '.', which "
            f"delimits the signed content), not {quoted(msg_id)}"
        )


def _check_timestamp(timestamp: int) -> None:
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or not 0 <= timestamp < 10**12:
        raise ValueError(
            f"a webhook timestamp is whole seconds since 1970, not {quoted(timestamp)}"
        )


@dataclass(frozen=True)
class VerifiedWebhook:
    """What :meth:`WebhookSigner.verify` vouches for: the id (the idempotency key) and the
    attempt's timestamp."""

    msg_id: str
    timestamp: int


class WebhookSigner:
    """Signs and verifies webhooks with one or more ``whsec_`` secrets (Standard Webhooks ``v1``).

    ``WebhookSigner(current, previous)`` signs with every secret (the signature header lists one
    ``v1,<base64>`` per secret, space-separated) so receivers keep working while a secret is
    rotated; :meth:`verify` accepts a signature made with any of them. Raises :class:`ValueError`
    naming the problem when a secret is malformed (without echoing it).
    """

    __slots__ = ("_keys",)

    def __init__(self, secret: str, *previous: str) -> None:
        self._keys: tuple[bytes, ...] = tuple(_secret_key(s) for s in (secret, *previous))

    def __repr__(self) -> str:
        return f"WebhookSigner(<{len(self._keys)} secret(s)>)"

    def _digests(self, msg_id: str, timestamp: int, body: bytes) -> list[bytes]:
        content = f"{msg_id}.{timestamp}.".encode("ascii") + bytes(body)
        return [hmac.new(key, content, hashlib.sha256).digest() for key in self._keys]

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> str:
        """The ``webhook-signature`` value for these exact body bytes: ``v1,<base64>`` per
        secret, space-separated."""
        _check_msg_id(msg_id)
        _check_timestamp(timestamp)
        return " ".join(
            "v1," + base64.b64encode(d).decode("ascii")
            for d in self._digests(msg_id, timestamp, body)
        )

    def headers(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The three Standard Webhooks headers: ``webhook-id``, ``webhook-timestamp`` and
        ``webhook-signature``."""
        return {
            "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": self.sign(msg_id, timestamp, body),
        }

    def verify(
        self,
        headers: Mapping[str, str],
        body: bytes,
        *,
        tolerance: float = DEFAULT_TOLERANCE,
        now: float | None = None,
    ) -> VerifiedWebhook:
        """Check a received webhook (for receivers: VTT modules, RPG engines, tests).

        ``headers`` is any mapping (names in any case); ``body`` the raw bytes as received: never
        parse and re-serialize JSON before verifying. The timestamp must be within ``tolerance``
        seconds of ``now`` (default: this machine's clock) to stop replays; the signature is
        compared in constant time. Returns the id and timestamp; raises
        :class:`WebhookVerificationError`. Store the id to process each webhook once.
        """
        lowered = {str(k).lower(): str(v) for k, v in headers.items()}
        msg_id = lowered.get("webhook-id", "").strip()
        stamp = lowered.get("webhook-timestamp", "").strip()
        signatures = lowered.get("webhook-signature", "").strip()
        missing = [
            name
            for name, value in (
                ("webhook-id", msg_id),
                ("webhook-timestamp", stamp),
                ("webhook-signature", signatures),
            )
            if not value
        ]
        if missing:
            raise WebhookVerificationError(f"missing header(s): {', '.join(missing)}")
        # Lenient on purpose (other senders' ids): printable ASCII without spaces, never '.'.
        if len(msg_id) > MAX_MSG_ID_LENGTH or not msg_id.isascii() or not msg_id.isprintable():
            raise WebhookVerificationError(f"webhook-id is not a valid id: {quoted(msg_id)}")
        if "." in msg_id or any(c.isspace() for c in msg_id):
            raise WebhookVerificationError(
                "webhook-id may not contain '.' or spaces (never '.', which delimits the signed "
                "content)"
            )
        if not stamp.isascii() or not stamp.isdigit() or len(stamp) > 12:
            raise WebhookVerificationError(
                f"webhook-timestamp must be whole seconds since 1970, not {quoted(stamp)}"
            )
        timestamp = int(stamp)
        current = time.time() if now is None else now
        if timestamp < current - tolerance:
            raise WebhookVerificationError(
                f"webhook-timestamp is {current - timestamp:.0f} s old (tolerance {tolerance:g} s)"
            )
        if timestamp > current + tolerance:
            raise WebhookVerificationError(
                f"webhook-timestamp is {timestamp - current:.0f} s in the future "
                f"(tolerance {tolerance:g} s)"
            )
        expected = self._digests(msg_id, timestamp, body)
        for item in signatures.split()[:32]:
            version, _, encoded = item.partition(",")
            if version != "v1":
                continue  # v1a (ed25519) and future schemes: not ours
            try:
                given = base64.b64decode(encoded, validate=True)
            except (binascii.Error, ValueError):
                continue
            # Check every key without stopping early: the time taken says nothing of which.
            if any([hmac.compare_digest(given, digest) for digest in expected]):
                return VerifiedWebhook(msg_id, timestamp)
        raise WebhookVerificationError("no v1 signature matches this body with this secret")


# ---- payloads ----------------------------------------------------------------------------------


def _iso(at: datetime) -> str:
    text = at.astimezone(UTC).isoformat()
    return text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text


def record_path(check_id: str) -> str:
    """The API path of a finished check's revealed record."""
    return f"/v1/checks/{quote(check_id, safe='')}/record"


def _result_data(view: Mapping[str, Any], base_url: str | None) -> dict[str, Any]:
    check_id = str(view["check_id"])
    path = record_path(check_id)
    return {
        "check_id": check_id,
        "game": view.get("game"),
        "status": view.get("status"),
        "outcome": view.get("outcome"),
        "degree": view.get("degree"),
        "tier": view.get("tier"),
        "tier_text": view.get("tier_text"),
        "moves_made": view.get("moves_made"),
        "version": view.get("version"),
        "label": view.get("label"),
        "metadata": view.get("metadata") or {},
        "commitment": view.get("commitment"),
        "cancel_reason": view.get("cancel_reason"),
        "record_url": path if base_url is None else base_url.rstrip("/") + path,
    }


def result_payload(
    view: CheckView, event_type: str, occurred_at: datetime, *, base_url: str | None = None
) -> dict[str, Any]:
    """The webhook body of a finished check, as plain JSON data.

    ``{"type": "check.ended" | "check.cancelled", "timestamp": ISO-8601 (UTC, Z), "data": {...}}``
    where ``data`` is the result only: ``check_id``, ``game``, ``status`` (won/lost/cancelled),
    ``outcome`` (status, reason, degree, summary; null if cancelled), ``degree``, ``tier`` and
    ``tier_text`` (the four tiers, docs/rules.md; null if cancelled), ``moves_made``, ``version``,
    ``label``, ``metadata``, ``commitment``, ``cancel_reason`` and ``record_url``
    (the revealed record's path, absolute if ``base_url`` is given). No cards: the position and
    the deal stay behind ``record_url`` (public once the check is over), keeping the body small.
    """
    return {
        "type": event_type,
        "timestamp": _iso(occurred_at),
        "data": _result_data(view.to_dict(), base_url),
    }


def payload_for_event(event: CheckEvent, *, base_url: str | None = None) -> dict[str, Any] | None:
    """:func:`result_payload` of a terminal event (``ended``/``cancelled``), from the view its
    payload carries; ``None`` for events that send no webhook."""
    event_type = EVENT_TYPES.get(event.kind)
    if event_type is None:
        return None
    view = event.payload.get("view")
    if not isinstance(view, Mapping):
        raise ValueError(f"the {event.kind.value} event of {event.check_id} carries no view")
    return {
        "type": event_type,
        "timestamp": _iso(event.at),
        "data": _result_data(view, base_url),
    }


def encode_payload(payload: Mapping[str, Any]) -> bytes:
    """The exact bytes sent and signed: compact UTF-8 JSON."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
        "utf-8"
    )


def webhook_id(check_id: str, sequence: int) -> str:
    """The ``webhook-id`` of a check's event: ``msg_`` + 32 hex digits derived from the check id
    and the event's sequence number, so enqueueing the same event twice is a no-op."""
    digest = hashlib.sha256(f"{check_id}\n{sequence}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


# ---- the callback URL policy -------------------------------------------------------------------


class CallbackUrlError(ValueError):
    """A callback URL the policy refuses; the message says why and what is allowed."""


#: The setting that lets callback URLs reach loopback and private networks (api/settings.py).
ALLOW_PRIVATE_SETTING: Final = "SKILLCHECK_WEBHOOKS_ALLOW_PRIVATE"


_LOCAL_NAMES: Final = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
_LOCAL_SUFFIXES: Final = (".localhost", ".local", ".internal", ".home.arpa", ".lan")


def _address_is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None and not _address_is_public(mapped):
            return False
        if address in ipaddress.IPv6Network("64:ff9b::/96"):  # NAT64 of an IPv4 address
            return _address_is_public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return address.is_global and not address.is_multicast


def _literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address if it is one, in any form a resolver accepts (``127.1``,
    ``0x7f.1``, ``2130706433``, ``[::1]``)."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        pass
    if all(c in string.hexdigits + ".xX" for c in host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def validate_callback_url(url: str, *, allow_private: bool = False) -> str:
    """Check a callback URL before anything is stored; returns it unchanged or raises
    :class:`CallbackUrlError`.

    Allowed: an absolute ``http://`` or ``https://`` URL of at most :data:`MAX_URL_LENGTH`
    characters, with a host, without user:password, fragment, spaces or control characters.

    **SSRF.** The API sends requests to URLs its clients choose, from inside the server's
    network. Without a policy, anyone who may create a check can make the server POST to
    ``http://127.0.0.1:5432``, ``http://10.0.0.7/admin`` or the cloud metadata service
    ``http://169.254.169.254/`` (server-side request forgery) and learn from the delivery
    status what answers there. So unless ``allow_private`` is true, hosts that are IP literals
    must be public (not loopback, private, link-local, CGNAT, multicast or reserved, in any
    spelling such as ``127.1`` or ``[::ffff:127.0.0.1]``), and obviously local names
    (``localhost``, ``*.local``, ``*.internal``...) are refused. A name can still resolve to a
    private address, so :class:`WebhookDispatcher` resolves the host again before each attempt
    and refuses private answers. DNS can change between that check and the connection (DNS
    rebinding): for full protection in production also send webhooks through an egress proxy
    that filters internal addresses (Stripe's smokescreen) or from a network that cannot reach
    internal services. ``allow_private=True`` is for development and for self-hosted setups
    whose VTT runs on the same machine or LAN; enable it only explicitly.
    """
    if not isinstance(url, str):
        raise CallbackUrlError(f"the callback URL must be a string, not {type(url).__name__}")
    if not url:
        raise CallbackUrlError("the callback URL is empty")
    if len(url) > MAX_URL_LENGTH:
        raise CallbackUrlError(
            f"the callback URL has {len(url)} characters; at most {MAX_URL_LENGTH} are allowed"
        )
    if not url.isascii() or any(c.isspace() or not c.isprintable() for c in url):
        raise CallbackUrlError(
            "the callback URL may not hold spaces, control or non-ASCII characters "
            "(percent-encode them; use the punycode form of international domain names)"
        )
    try:
        parts = urlsplit(url)
    except ValueError:  # urlsplit refuses only an IPv6 host whose brackets do not match
        raise CallbackUrlError(
            "the callback URL is malformed: its host has an unmatched [ or ] (an IPv6 address "
            "goes in brackets, https://[2001:db8::1]/hook)"
        ) from None
    try:
        port = parts.port
    except ValueError:  # out of range, or not a number
        written = parts.netloc.rpartition(":")[2]
        raise CallbackUrlError(
            f"the callback URL's port must be a whole number from 1 to 65535, not {quoted(written)}"
        ) from None
    if parts.scheme.lower() not in {"http", "https"}:
        has = f"has the scheme {quoted(parts.scheme + ':')}" if parts.scheme else "has no scheme"
        raise CallbackUrlError(
            "the callback URL must start with https:// (or http://), as an absolute URL such "
            f"as https://bot.example.org/hooks does; this one {has}"
        )
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise CallbackUrlError("the callback URL has no host (expected https://host/path)")
    if parts.username is not None or parts.password is not None:
        raise CallbackUrlError(
            "the callback URL may not hold a user name or password: the signature "
            "authenticates the webhook"
        )
    if parts.fragment or url.endswith("#"):
        raise CallbackUrlError("the callback URL may not have a #fragment")
    if port == 0:
        raise CallbackUrlError(
            "the callback URL's port must be a whole number from 1 to 65535, not 0"
        )
    if _literal_address(host) is None:
        _check_host_name(host)
    if not allow_private:
        address = _literal_address(host)
        if address is not None and not _address_is_public(address):
            raise CallbackUrlError(
                f"the callback URL's host {quoted(host)} is a loopback, private, link-local or "
                "reserved address; webhooks go only to public addresses unless private ones are "
                f"explicitly allowed ({ALLOW_PRIVATE_SETTING}=1 on the server)"
            )
        name = host.lower()
        single_label = address is None and "." not in name
        if name in _LOCAL_NAMES or name.endswith(_LOCAL_SUFFIXES) or single_label:
            raise CallbackUrlError(
                f"the callback URL's host {quoted(host)} is a local name; webhooks go only to "
                "public hosts unless private ones are explicitly allowed "
                f"({ALLOW_PRIVATE_SETTING}=1 on the server)"
            )
    return url


#: A DNS name's limits (RFC 1035 2.3.4, RFC 1123 2.1): the whole name, and each label.
MAX_HOST_NAME = 253
MAX_HOST_LABEL = 63


def _check_host_name(host: str) -> None:
    """Refuse a host name DNS could never resolve: longer than a name or a label may be, or
    with an empty label (``a..b``)."""
    if len(host) > MAX_HOST_NAME:
        raise CallbackUrlError(
            f"the callback URL's host name has {len(host)} characters; a DNS name has at most "
            f"{MAX_HOST_NAME}"
        )
    labels = host.split(".")
    if any(not label for label in labels):
        raise CallbackUrlError(
            f"the callback URL's host {quoted(host)} has an empty label (two dots in a row)"
        )
    long = next((label for label in labels if len(label) > MAX_HOST_LABEL), None)
    if long is not None:
        raise CallbackUrlError(
            f"the callback URL's host has a label of {len(long)} characters "
            f"({quoted(long)}); a DNS label has at most {MAX_HOST_LABEL}"
        )


async def _refuse_private_resolution(url: str) -> None:
    """Resolve the URL's host now and raise :class:`CallbackUrlError` if any address is not
    public (the dispatcher's check before each attempt; see :func:`validate_callback_url`)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    literal = _literal_address(host)
    if literal is not None:
        addresses: set[str] = {str(literal)}
    else:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        addresses = {str(info[4][0]) for info in infos}
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if not _address_is_public(address):
            raise CallbackUrlError(
                f"{quoted(host)} resolves to {address}, which is not a public address; refused "
                "(private callback addresses are not allowed)"
            )


# ---- deliveries and the outbox -----------------------------------------------------------------


class DeliveryStatus(enum.Enum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


@dataclass(frozen=True)
class WebhookDelivery:
    """One webhook message to one URL, as an :class:`Outbox` stores it.

    ``id`` is the ``webhook-id`` (the same on every attempt: the receiver's idempotency key);
    ``body`` the exact bytes sent and signed. ``attempts`` counts the attempts started (a claim
    adds one); ``next_attempt_at`` is when the delivery is next due (while claimed: when the
    lease ends); ``last_attempt_at`` when the last one was claimed; ``last_error`` why the last
    attempt failed.
    """

    id: str
    check_id: str
    url: str
    event_type: str
    body: bytes
    created_at: datetime
    next_attempt_at: datetime
    attempts: int = 0
    status: DeliveryStatus = DeliveryStatus.PENDING
    last_attempt_at: datetime | None = None
    last_error: str | None = None


def new_delivery(
    msg_id: str,
    check_id: str,
    url: str,
    payload: Mapping[str, Any],
    *,
    now: datetime,
    allow_private: bool = False,
) -> WebhookDelivery:
    """A pending delivery of ``payload`` to ``url``, due at once; checks the URL
    (:func:`validate_callback_url`) and the id."""
    _check_msg_id(msg_id)
    validate_callback_url(url, allow_private=allow_private)
    return WebhookDelivery(
        id=msg_id,
        check_id=check_id,
        url=url,
        event_type=str(payload["type"]),
        body=encode_payload(payload),
        created_at=now,
        next_attempt_at=now,
    )


def delivery_for_event(
    event: CheckEvent,
    url: str,
    *,
    now: datetime | None = None,
    base_url: str | None = None,
    allow_private: bool = False,
) -> WebhookDelivery | None:
    """The delivery a check event sends to ``url`` (``None`` for non-terminal events), with the
    deterministic id :func:`webhook_id` so enqueueing it twice is harmless."""
    payload = payload_for_event(event, base_url=base_url)
    if payload is None:
        return None
    return new_delivery(
        webhook_id(event.check_id, event.sequence),
        event.check_id,
        url,
        payload,
        now=_utc_now() if now is None else now,
        allow_private=allow_private,
    )


class Outbox(Protocol):
    """Durable storage of deliveries, shared by any number of dispatchers.

    The semantics every implementation (in memory, SQL) keeps:

    - **enqueue** stores a new ``pending`` delivery as given and returns True; if a delivery
      with the same ``id`` exists (in any status) it changes nothing and returns False (ids are
      unique: a primary key; insert-or-ignore).
    - **due(now, limit, lease)** atomically *claims* at most ``limit`` deliveries with status
      ``pending`` and ``next_attempt_at <= now``, oldest ``next_attempt_at`` first (ties by
      ``id``). Claiming one sets ``attempts += 1``, ``last_attempt_at = now`` and
      ``next_attempt_at = now + lease``, in the same transaction as the selection, and returns
      the deliveries as claimed (after those changes). So a claimed delivery is leased until
      ``now + lease``: no other caller gets it before then, even in another process, and if its
      worker dies it becomes due again when the lease ends. (PostgreSQL: ``SELECT ... FOR
      UPDATE SKIP LOCKED`` then ``UPDATE`` in one transaction, or ``UPDATE ... WHERE id IN
      (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING``; SQLite: one ``UPDATE ... RETURNING`` in
      a write transaction.) The lease must exceed the request timeout.
    - **mark_delivered / mark_retry / mark_failed(delivery, ...)** apply only if the stored row
      still has status ``pending`` and ``attempts == delivery.attempts`` (the claim's fencing
      token: a worker whose lease ran out and whose delivery was claimed again cannot overwrite
      the newer attempt's result); they return whether they applied. ``mark_delivered`` sets
      status ``delivered`` and clears ``last_error``; ``mark_retry(next_at, error)`` keeps it
      ``pending`` with ``next_attempt_at = next_at`` and ``last_error = error``;
      ``mark_failed(error)`` sets status ``failed`` and ``last_error = error``. Delivered and
      failed deliveries are never claimed again.
    - **get(id)** returns the stored delivery or None.

    Methods are synchronous and may block (the dispatcher calls them in a worker thread); they
    must be safe to call from several threads at once.
    """

    def enqueue(self, delivery: WebhookDelivery) -> bool: ...

    def due(self, now: datetime, limit: int, lease: timedelta) -> list[WebhookDelivery]: ...

    def mark_delivered(self, delivery: WebhookDelivery) -> bool: ...

    def mark_retry(self, delivery: WebhookDelivery, next_at: datetime, error: str) -> bool: ...

    def mark_failed(self, delivery: WebhookDelivery, error: str) -> bool: ...

    def get(self, delivery_id: str) -> WebhookDelivery | None: ...


class InMemoryOutbox:
    """An :class:`Outbox` in a dict behind a lock (tests, embedding, a single process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, WebhookDelivery] = {}

    def enqueue(self, delivery: WebhookDelivery) -> bool:
        with self._lock:
            if delivery.id in self._rows:
                return False
            self._rows[delivery.id] = delivery
            return True

    def due(self, now: datetime, limit: int, lease: timedelta) -> list[WebhookDelivery]:
        with self._lock:
            ready = sorted(
                (
                    d
                    for d in self._rows.values()
                    if d.status is DeliveryStatus.PENDING and d.next_attempt_at <= now
                ),
                key=lambda d: (d.next_attempt_at, d.id),
            )[: max(limit, 0)]
            claimed = [
                replace(
                    d, attempts=d.attempts + 1, last_attempt_at=now, next_attempt_at=now + lease
                )
                for d in ready
            ]
            for d in claimed:
                self._rows[d.id] = d
            return claimed

    def _update(self, delivery: WebhookDelivery, **changes: Any) -> bool:
        with self._lock:
            stored = self._rows.get(delivery.id)
            if (
                stored is None
                or stored.status is not DeliveryStatus.PENDING
                or stored.attempts != delivery.attempts
            ):
                return False
            self._rows[delivery.id] = replace(stored, **changes)
            return True

    def mark_delivered(self, delivery: WebhookDelivery) -> bool:
        return self._update(delivery, status=DeliveryStatus.DELIVERED, last_error=None)

    def mark_retry(self, delivery: WebhookDelivery, next_at: datetime, error: str) -> bool:
        return self._update(delivery, next_attempt_at=next_at, last_error=error)

    def mark_failed(self, delivery: WebhookDelivery, error: str) -> bool:
        return self._update(delivery, status=DeliveryStatus.FAILED, last_error=error)

    def get(self, delivery_id: str) -> WebhookDelivery | None:
        with self._lock:
            return self._rows.get(delivery_id)

    def all(self) -> list[WebhookDelivery]:
        """Every delivery, oldest first (for tests and inspection)."""
        with self._lock:
            return sorted(self._rows.values(), key=lambda d: (d.created_at, d.id))


# ---- retries -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetrySchedule:
    """When to try again: ``delays[i]`` seconds after the ``i+1``-th failed attempt, each
    multiplied by a random factor in ``[1 - jitter, 1 + jitter]`` (the spec recommends jitter so
    that retries do not arrive in step). After ``len(delays) + 1`` attempts the delivery fails.
    """

    delays: tuple[float, ...] = DEFAULT_RETRY_DELAYS
    jitter: float = 0.1

    def __post_init__(self) -> None:
        if any(d < 0 for d in self.delays):
            raise ValueError(f"retry delays must be >= 0 seconds, not {self.delays}")
        if not 0 <= self.jitter < 1:
            raise ValueError(f"jitter is a fraction in [0, 1), not {self.jitter}")

    @property
    def max_attempts(self) -> int:
        return len(self.delays) + 1

    @property
    def max_delay(self) -> float:
        return max(self.delays, default=0.0)

    def delay_after(self, attempts: int, rng: random.Random | None = None) -> float | None:
        """Seconds to wait after ``attempts`` failed attempts; None: give up."""
        if attempts < 1 or attempts > len(self.delays):
            return None
        base = self.delays[attempts - 1]
        if not self.jitter:
            return base
        return base * (rng or random).uniform(1 - self.jitter, 1 + self.jitter)


def _retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - now).total_seconds(), 0.0)


# ---- the dispatcher ----------------------------------------------------------------------------

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]
SignerFor = Callable[[WebhookDelivery], WebhookSigner]


class _Stop(Exception):
    """The attempt's result is final: mark the delivery failed with this message."""


class WebhookDispatcher:
    """The asyncio worker that sends due deliveries.

    Each :meth:`run_once` claims up to ``batch_size`` due deliveries from the outbox (leased for
    ``lease`` seconds) and POSTs them concurrently (at most ``concurrency`` at once) with
    ``content-type: application/json``, ``user-agent: skillcheck-webhooks/1`` and the signature
    headers (a fresh ``webhook-timestamp`` per attempt, the same ``webhook-id``), a ``timeout``
    and no redirects followed. Then:

    - ``2xx``: delivered.
    - ``410 Gone``: the receiver wants no more: failed, no retry.
    - any other status (3xx included), a timeout or a network error: retried after
      ``schedule.delay_after(attempts)`` (exponential, with jitter); a ``Retry-After`` on 429 or
      503 lengthens that wait, up to the schedule's longest delay. After the schedule's last
      attempt: failed (logged at ERROR).
    - with ``allow_private`` false, a host that resolves to a non-public address: failed.

    :meth:`start` runs :meth:`run_once` in a background task until :meth:`stop`, sleeping
    ``poll_interval`` seconds (with the injected ``sleep``) when nothing was due; :meth:`wake`
    (thread-safe) cuts a sleep short after an enqueue. ``signer`` is one
    :class:`WebhookSigner` or a function choosing one per delivery (per-GM secrets). ``clock``
    (aware datetimes), ``sleep``, ``rng`` and ``client`` can be injected for tests; a client
    passed in is not closed by :meth:`stop`.
    """

    def __init__(
        self,
        outbox: Outbox,
        signer: WebhookSigner | SignerFor,
        *,
        schedule: RetrySchedule | None = None,
        timeout: float = 15.0,
        lease: float = 120.0,
        batch_size: int = 20,
        concurrency: int = 8,
        poll_interval: float = 2.0,
        allow_private: bool = False,
        client: httpx.AsyncClient | None = None,
        clock: Clock = _utc_now,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if lease <= timeout:
            raise ValueError(f"the lease ({lease} s) must be longer than the timeout ({timeout} s)")
        self.outbox = outbox
        self._signer = signer
        self.schedule = schedule or RetrySchedule()
        self.timeout = timeout
        self.lease = timedelta(seconds=lease)
        self.batch_size = batch_size
        self.concurrency = concurrency
        self.poll_interval = poll_interval
        self.allow_private = allow_private
        self._client = client
        self._owns_client = client is None
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False

    # -- lifecycle

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout),
                follow_redirects=False,
                trust_env=False,
            )
            self._owns_client = True
        return self._client

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the background loop (idempotent); call from the app's startup."""
        if self.running:
            return
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name="skillcheck-webhooks")

    async def stop(self) -> None:
        """Stop the loop after the attempts in flight, and close the client it made."""
        self._stopping = True
        if self._wake is not None:
            self._wake.set()
        if self._task is not None:
            task, self._task = self._task, None
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._owns_client and self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> WebhookDispatcher:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def wake(self) -> None:
        """Make the loop look for due deliveries now (safe from any thread)."""
        loop, event = self._loop, self._wake
        if loop is None or event is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(event.set)

    async def _run(self) -> None:
        while not self._stopping:
            try:
                done = await self.run_once()
            except Exception:
                logger.exception("webhook dispatcher: a round failed; trying again")
                done = 0
            if self._stopping:
                break
            if done < self.batch_size:
                await self._idle()

    async def _idle(self) -> None:
        assert self._wake is not None
        if self._wake.is_set():
            self._wake.clear()
            return
        sleeper = asyncio.ensure_future(self._sleep(self.poll_interval))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pending in (sleeper, waker):
                if not pending.done():
                    pending.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await pending
            self._wake.clear()

    # -- one round

    async def run_once(self) -> int:
        """Claim the due deliveries and attempt each once; returns how many were attempted."""
        now = self._clock()
        claimed = await asyncio.to_thread(self.outbox.due, now, self.batch_size, self.lease)
        if not claimed:
            return 0
        limit = asyncio.Semaphore(max(self.concurrency, 1))

        async def attempt(delivery: WebhookDelivery) -> None:
            async with limit:
                try:
                    await self._attempt(delivery)
                except Exception:  # never lose the others' results to one bug
                    logger.exception("webhook %s: attempt crashed", delivery.id)

        await asyncio.gather(*(attempt(d) for d in claimed))
        return len(claimed)

    def _signer_for(self, delivery: WebhookDelivery) -> WebhookSigner:
        if isinstance(self._signer, WebhookSigner):
            return self._signer
        return self._signer(delivery)

    async def _attempt(self, delivery: WebhookDelivery) -> None:
        if delivery.attempts > self.schedule.max_attempts:
            # Its lease ran out after the last attempt started (a worker died): give up.
            await self._fail(delivery, f"gave up after {delivery.attempts - 1} attempts")
            return
        status: int | None = None
        retry_after: float | None = None
        try:
            if not self.allow_private:
                try:
                    await _refuse_private_resolution(delivery.url)
                except CallbackUrlError as exc:
                    raise _Stop(str(exc)) from None
            timestamp = int(self._clock().timestamp())
            headers = {
                **self._signer_for(delivery).headers(delivery.id, timestamp, delivery.body),
                "content-type": "application/json",
                "user-agent": USER_AGENT,
            }
            async with self._http().stream(
                "POST",
                delivery.url,
                content=delivery.body,
                headers=headers,
                timeout=self.timeout,
                follow_redirects=False,
            ) as response:
                status = response.status_code
                if status in (429, 503):
                    retry_after = _retry_after(response.headers.get("retry-after"), self._clock())
                reason = response.reason_phrase
        except _Stop as exc:
            await self._fail(delivery, str(exc))
            return
        except (httpx.HTTPError, OSError) as exc:
            error = f"{type(exc).__name__}: {exc}".rstrip(": ") or type(exc).__name__
            await self._retry(delivery, error, None)
            return
        if 200 <= status < 300:
            if await asyncio.to_thread(self.outbox.mark_delivered, delivery):
                logger.info(
                    "webhook %s (%s of %s) delivered on attempt %d",
                    delivery.id,
                    delivery.event_type,
                    delivery.check_id,
                    delivery.attempts,
                )
            return
        error = f"HTTP {status} {reason}".strip()
        if status == 410:
            await self._fail(delivery, f"{error}: the receiver asked for no more webhooks")
            return
        await self._retry(delivery, error, retry_after)

    async def _retry(
        self, delivery: WebhookDelivery, error: str, retry_after: float | None
    ) -> None:
        delay = self.schedule.delay_after(delivery.attempts, self._rng)
        if delay is None:
            await self._fail(
                delivery, f"gave up after {delivery.attempts} attempts; last error: {error}"
            )
            return
        if retry_after is not None:
            delay = min(max(delay, retry_after), max(self.schedule.max_delay, delay))
        next_at = self._clock() + timedelta(seconds=delay)
        logger.warning(
            "webhook %s to %s: attempt %d failed (%s); next attempt in %.0f s",
            delivery.id,
            delivery.url,
            delivery.attempts,
            error,
            delay,
        )
        await asyncio.to_thread(self.outbox.mark_retry, delivery, next_at, error)

    async def _fail(self, delivery: WebhookDelivery, error: str) -> None:
        if await asyncio.to_thread(self.outbox.mark_failed, delivery, error):
            logger.error(
                "webhook %s (%s of %s) to %s failed for good: %s",
                delivery.id,
                delivery.event_type,
                delivery.check_id,
                delivery.url,
                error,
            )
