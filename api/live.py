"""Live updates: the session service's events fan out through Litestar's Channels, and each
check has a server-sent-events stream.

- One channel per check, ``check:<id>``. The process that commits an event publishes it; with the
  in-memory backend only that process's streams see it, with the Redis backend
  (``SKILLCHECK_REDIS_URL``) every API process's streams do.
- A stream first replays the stored events after the client's position (``Last-Event-ID`` or
  ``?after=``), then follows the channel. It subscribes *before* reading the backlog and drops
  what it already sent, so nothing falls between the two; a gap in the sequence numbers (a
  missed pub/sub message) is filled from the database. It ends after the check's last event.
- Events hold the player's view only (never hidden cards): the same JSON as ``GET .../events``.
- One channel per GM key, ``gm:<sha256 of the key>``, carries a summary of each check of that GM
  as it changes (:func:`api.store.summary_of`), for ``GET /v1/checks/stream``. The bridge
  publishes the summaries of moves and ends; a creation is published by the handler that saved
  the check's credentials (until then the check has no owner to look up).
- Re-issuing a token publishes ``{"access_changed": true}`` on the check's channel (every open
  stream of the check asks again whether its token still reaches it, and the old token's stream
  ends) and the check id on ``access``, where every process's bridge drops its cached
  credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio.to_thread
import msgspec
from litestar.channels import ChannelsPlugin
from litestar.channels.backends.memory import MemoryChannelsBackend
from litestar.channels.backends.redis import RedisChannelsPubSubBackend
from litestar.response import ServerSentEventMessage

from api.store import SqlCheckStore, summary_of
from skillcheck.sessions import CheckEvent, EventKind, SessionService

__all__ = [
    "ACCESS_CHANGED",
    "ACCESS_CHANNEL",
    "KEEPALIVE_SECONDS",
    "Bridge",
    "change_id",
    "channel_for",
    "event_stream",
    "gm_channel",
    "make_channels",
    "summary_message",
    "summary_stream",
    "time_of_change_id",
]

#: A comment line this often keeps proxies from closing an idle stream.
KEEPALIVE_SECONDS = 15.0
#: A stream is closed after this long; EventSource-style clients reconnect with Last-Event-ID.
MAX_STREAM_SECONDS = 30 * 60.0
TERMINAL_KINDS = frozenset({"ended", "cancelled"})


#: Where token re-issues are announced (the check id), so every process drops its cache.
ACCESS_CHANNEL = "access"
#: Published on a check's channel when one of its tokens is re-issued.
ACCESS_CHANGED = '{"access_changed":true}'
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def channel_for(check_id: str) -> str:
    return f"check:{check_id}"


def gm_channel(gm_key_sha256: str) -> str:
    return f"gm:{gm_key_sha256}"


def change_id(updated_at: str) -> str:
    """The SSE id of a summary: its ``updated_at`` in microseconds since 1970 (a client that
    reconnects with it as ``Last-Event-ID`` gets every check changed since)."""
    return str((datetime.fromisoformat(updated_at) - _EPOCH) // _MICROSECOND)


def time_of_change_id(micros: int) -> datetime:
    return _EPOCH + micros * _MICROSECOND


def summary_message(kind: str, summary: dict[str, Any]) -> str:
    """What a GM's channel carries: the kind of change and the check's summary."""
    return msgspec.json.encode({"kind": kind, "summary": summary}).decode()


def make_channels(redis_url: str | None, prefix: str = "skillcheck") -> ChannelsPlugin:
    """Channels on Redis pub/sub when ``redis_url`` is set, else in the process's memory."""
    if redis_url:
        from redis.asyncio import Redis

        backend: Any = RedisChannelsPubSubBackend(
            redis=Redis.from_url(redis_url), key_prefix=f"{prefix}:channels"
        )
    else:
        backend = MemoryChannelsBackend()
    return ChannelsPlugin(backend=backend, arbitrary_channels_allowed=True)


class Bridge:
    """Publishes every event the service commits to its check's channel.

    The service calls listeners from the thread that acted (a worker thread); Channels' publish
    queue belongs to the event loop, so events are handed over through a list and one
    ``call_soon_threadsafe`` per burst (waking the loop is a system call).
    """

    def __init__(
        self, service: SessionService, channels: ChannelsPlugin, store: SqlCheckStore | None = None
    ) -> None:
        self.service = service
        self.channels = channels
        #: Whose checks are whose (the GM channels) and whose credentials to evict.
        self.store = store
        self._evicting: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscription: Any = None
        self._lock = threading.Lock()
        self._waiting: list[tuple[str, str]] = []
        self._scheduled = False

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._subscription = self.service.subscribe(self._on_event)
        if self.store is not None:
            subscriber = await self.channels.subscribe([ACCESS_CHANNEL])
            self._evicting = asyncio.create_task(self._evict(subscriber))

    async def stop(self) -> None:
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
        if self._evicting is not None:
            self._evicting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._evicting
            self._evicting = None
        self._loop = None

    async def _evict(self, subscriber: Any) -> None:
        """Drop the cached credentials of each check whose token was re-issued (by any process)."""
        assert self.store is not None
        try:
            async for raw in subscriber.iter_events():
                text = raw.decode() if isinstance(raw, bytes) else str(raw)
                self.store.forget_access(text)
        finally:
            with contextlib.suppress(Exception):
                await self.channels.unsubscribe(subscriber)

    def _on_event(self, event: CheckEvent) -> None:
        if self._loop is None:
            return
        items = [(msgspec.json.encode(event.to_dict()).decode(), channel_for(event.check_id))]
        owner = None
        if self.store is not None and event.kind is not EventKind.CREATED:
            owner = self.store.access(event.check_id)  # cached by the request that acted
        view = event.payload.get("view")
        if owner is not None and isinstance(view, dict):
            items.append(
                (
                    summary_message(event.kind.value, summary_of(view)),
                    gm_channel(owner.gm_key_sha256),
                )
            )
        self.publish(*items)

    def publish(self, *items: tuple[str, str]) -> None:
        """Publish ``(data, channel)`` pairs from any thread, in order."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with self._lock:
            self._waiting.extend(items)
            if self._scheduled:
                return  # the loop has a flush coming: it takes this one too
            self._scheduled = True
        try:
            loop.call_soon_threadsafe(self._flush)
        except RuntimeError:  # the loop closed meanwhile (shutdown)
            with self._lock:
                self._scheduled = False

    def _flush(self) -> None:
        """On the event loop: publish what the worker threads handed over, in order (one wake-up
        of the loop for a burst of events)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
            self._scheduled = False
        for data, channel in waiting:
            self.channels.publish(data, channel)


def _message(event: dict[str, Any]) -> ServerSentEventMessage:
    return ServerSentEventMessage(
        data=json.dumps(event, separators=(",", ":")),
        event=str(event["kind"]),
        id=event["sequence"],
    )


#: The keepalive: a comment and nothing else (an empty ``data:`` line would be an event with
#: no data, which a client might try to read; schemathesis found it).
KEEPALIVE = ServerSentEventMessage(comment="keepalive", data=None)
#: The first line of a GM's list stream, sent once it is subscribed: from then on no change
#: is missed (a client, or a test, that creates a check after reading it will hear of it).
SUBSCRIBED = ServerSentEventMessage(comment="subscribed", data=None)


async def _until(incoming: Any, keepalive: float, max_seconds: float) -> AsyncIterator[Any | None]:
    """The messages of a subscription's queue for at most ``max_seconds``; None each time
    ``keepalive`` seconds pass without one (the stream sends a comment then)."""
    deadline = asyncio.get_running_loop().time() + max_seconds
    while True:
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            return
        try:
            yield await asyncio.wait_for(incoming.get(), min(keepalive, remaining))
        except TimeoutError:
            yield None


async def event_stream(
    channels: ChannelsPlugin,
    read_events: Callable[[int], list[dict[str, Any]]],
    check_id: str,
    after: int,
    *,
    keepalive: float = KEEPALIVE_SECONDS,
    max_seconds: float = MAX_STREAM_SECONDS,
    still_allowed: Callable[[], bool] | None = None,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    """The SSE messages of one check from sequence ``after`` on; ``read_events(after)`` reads
    the stored events (a blocking call; it runs in a worker thread). When one of the check's
    tokens is re-issued, ``still_allowed()`` (blocking too) says whether this stream's token
    still reaches the check; if not, the stream ends at once."""
    last = after
    async with channels.start_subscription([channel_for(check_id)]) as subscriber:
        incoming: asyncio.Queue[bytes] = asyncio.Queue()

        async def pump() -> None:
            async for raw in subscriber.iter_events():
                incoming.put_nowait(raw)

        pumping = asyncio.create_task(pump())
        try:
            for event in await anyio.to_thread.run_sync(read_events, last):
                yield _message(event)
                last = event["sequence"]
                if event["kind"] in TERMINAL_KINDS:
                    return
            async for raw in _until(incoming, keepalive, max_seconds):
                if raw is None:
                    yield KEEPALIVE
                    continue
                event = json.loads(raw)
                if event.get("access_changed"):
                    if still_allowed is not None and not await anyio.to_thread.run_sync(
                        still_allowed
                    ):
                        return
                    continue
                sequence = event["sequence"]
                if sequence <= last:
                    continue  # already sent from the backlog
                batch = [event]
                if sequence > last + 1:  # a message was missed: the database has them all
                    batch = await anyio.to_thread.run_sync(read_events, last)
                for item in batch:
                    if item["sequence"] <= last:
                        continue
                    yield _message(item)
                    last = item["sequence"]
                    if item["kind"] in TERMINAL_KINDS:
                        return
        finally:
            pumping.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pumping


async def summary_stream(
    channels: ChannelsPlugin,
    gm_key_sha256: str,
    read_since: Callable[[datetime], list[dict[str, Any]]],
    since: datetime | None,
    *,
    keepalive: float = KEEPALIVE_SECONDS,
    max_seconds: float = MAX_STREAM_SECONDS,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    """The summaries of one GM's checks as they change. With ``since`` (a resumed stream) it
    first sends every check changed at or after that time (``read_since``, blocking, in a
    worker thread; event name ``changed``); it subscribes before reading (and says so first,
    with the comment ``: subscribed``), and never sends a check at a version older than one it
    sent, nor the same change twice. Each message: id = :func:`change_id`, event = the kind of
    change, data = the summary. (The move that ends a check makes two events at one version,
    ``moved`` and ``ended``: both are sent.)"""
    sent: dict[str, tuple[int, str]] = {}

    def message(kind: str, summary: dict[str, Any]) -> ServerSentEventMessage | None:
        check_id, version = summary["check_id"], summary["version"]
        last = sent.get(check_id)
        if last is not None and (version < last[0] or (version, kind) == last):
            return None
        sent[check_id] = (version, kind)
        return ServerSentEventMessage(
            data=json.dumps(summary, separators=(",", ":")),
            event=kind,
            id=change_id(summary["updated_at"]),
        )

    async with channels.start_subscription([gm_channel(gm_key_sha256)]) as subscriber:
        yield SUBSCRIBED
        incoming: asyncio.Queue[bytes] = asyncio.Queue()

        async def pump() -> None:
            async for raw in subscriber.iter_events():
                incoming.put_nowait(raw)

        pumping = asyncio.create_task(pump())
        try:
            if since is not None:
                for summary in await anyio.to_thread.run_sync(read_since, since):
                    found = message("changed", summary)
                    if found is not None:
                        yield found
            async for raw in _until(incoming, keepalive, max_seconds):
                if raw is None:
                    yield KEEPALIVE
                    continue
                change = json.loads(raw)
                found = message(str(change["kind"]), change["summary"])
                if found is not None:
                    yield found
        finally:
            pumping.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pumping
