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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio.to_thread
import msgspec
from litestar.channels import ChannelsPlugin
from litestar.channels.backends.memory import MemoryChannelsBackend
from litestar.channels.backends.redis import RedisChannelsPubSubBackend
from litestar.response import ServerSentEventMessage

from skillcheck.sessions import CheckEvent, SessionService

__all__ = [
    "KEEPALIVE_SECONDS",
    "Bridge",
    "channel_for",
    "event_stream",
    "make_channels",
]

#: A comment line this often keeps proxies from closing an idle stream.
KEEPALIVE_SECONDS = 15.0
#: A stream is closed after this long; EventSource-style clients reconnect with Last-Event-ID.
MAX_STREAM_SECONDS = 30 * 60.0
TERMINAL_KINDS = frozenset({"ended", "cancelled"})


def channel_for(check_id: str) -> str:
    return f"check:{check_id}"


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

    def __init__(self, service: SessionService, channels: ChannelsPlugin) -> None:
        self.service = service
        self.channels = channels
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscription: Any = None
        self._lock = threading.Lock()
        self._waiting: list[tuple[str, str]] = []
        self._scheduled = False

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._subscription = self.service.subscribe(self._on_event)

    async def stop(self) -> None:
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
        self._loop = None

    def _on_event(self, event: CheckEvent) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        item = (msgspec.json.encode(event.to_dict()).decode(), channel_for(event.check_id))
        with self._lock:
            self._waiting.append(item)
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


async def event_stream(
    channels: ChannelsPlugin,
    read_events: Callable[[int], list[dict[str, Any]]],
    check_id: str,
    after: int,
    *,
    keepalive: float = KEEPALIVE_SECONDS,
    max_seconds: float = MAX_STREAM_SECONDS,
) -> AsyncIterator[ServerSentEventMessage]:
    """The SSE messages of one check from sequence ``after`` on; ``read_events(after)`` reads
    the stored events (a blocking call; it runs in a worker thread)."""
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
            deadline = asyncio.get_running_loop().time() + max_seconds
            while True:
                remaining = deadline - asyncio.get_running_loop().time()
                if remaining <= 0:
                    return
                try:
                    raw = await asyncio.wait_for(incoming.get(), min(keepalive, remaining))
                except TimeoutError:
                    yield ServerSentEventMessage(comment="keepalive")
                    continue
                event = json.loads(raw)
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
