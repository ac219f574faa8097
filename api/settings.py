"""Settings of the API, read from environment variables (docs/api.md lists them)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from skillcheck.errors import quoted

__all__ = ["DEFAULT_DATABASE_URL", "DEFAULT_RATE_LIMIT", "Settings", "parse_rate_limit"]

DEFAULT_DATABASE_URL = "sqlite:///./skillcheck.sqlite3"
#: Requests per client address: a player clicking fast makes a few per second.
DEFAULT_RATE_LIMIT: tuple[str, int] = ("minute", 1200)


def _split(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(part.strip() for part in value.split(",") if part.strip())


_KEY = re.compile(r"[\x21-\x7e]+")


def check_gm_keys(keys: tuple[str, ...], where: str = "SKILLCHECK_GM_KEYS") -> tuple[str, ...]:
    """``keys`` if each is printable ASCII with no space (what a browser can send in an
    Authorization header; the GM page refuses anything else), else a ValueError naming
    ``where`` they came from (never the key)."""
    for key in keys:
        if not _KEY.fullmatch(key):
            raise ValueError(
                f"{where} holds a key with a space or a character outside printable ASCII, "
                "which no browser can send in a header: use letters, digits and punctuation "
                "only (skillcheck serve makes such keys)"
            )
    return keys


_RATE_UNITS = ("second", "minute", "hour", "day")


def parse_rate_limit(value: str | None) -> tuple[str, int] | None:
    """``"1200/minute"`` → ``("minute", 1200)``; ``"off"`` or ``"0"`` → None (no limit)."""
    if value is None or not value.strip():
        return DEFAULT_RATE_LIMIT
    text = value.strip().lower()
    if text in {"off", "0", "none", "false", "no"}:
        return None
    count, _, unit = text.partition("/")
    if not count.strip().isdigit() or int(count) < 1 or unit.strip() not in _RATE_UNITS:
        raise ValueError(
            f"SKILLCHECK_RATE_LIMIT={quoted(value)} is not a rate limit: write <requests>/<unit> "
            f'with a unit among {", ".join(_RATE_UNITS)} (e.g. "1200/minute"), or "off"'
        )
    return unit.strip(), int(count)


def _flag(value: str | None, default: bool) -> bool:
    if value is None or not value.strip():
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    value = (env.get(name) or "").strip()
    if not value:
        return default
    if not value.isascii() or not value.isdigit() or int(value) < 1:
        raise ValueError(f"{name}={quoted(value)} is not a positive whole number")
    return int(value)


_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")


def _positive_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    value = (env.get(name) or "").strip()
    if not value:
        return default
    if not _SECONDS.fullmatch(value) or float(value) <= 0:
        raise ValueError(
            f"{name}={quoted(value)} is not a positive number of seconds (as 1800 or 0.5)"
        )
    return float(value)


@dataclass(frozen=True)
class Settings:
    """What the API needs to run. ``from_env()`` reads ``SKILLCHECK_*`` variables."""

    #: SQLAlchemy URL. Async driver names are accepted and mapped to their sync twins
    #: (``sqlite+aiosqlite`` → ``sqlite``, ``postgresql+asyncpg`` → ``postgresql+psycopg``).
    database_url: str = DEFAULT_DATABASE_URL
    #: GM API keys (Authorization: Bearer <key>); without any, nobody can create checks.
    gm_keys: tuple[str, ...] = ()
    #: Origins allowed by CORS (browser VTT modules); empty: no CORS headers at all.
    cors_origins: tuple[str, ...] = ()
    #: Sources allowed to frame the API's pages (CSP frame-ancestors); empty: 'self' only.
    frame_ancestors: tuple[str, ...] = ()
    #: Run the Alembic migrations to the newest revision when the app starts.
    migrate_on_startup: bool = True
    #: Redis URL (``redis://127.0.0.1:6379/0``). Set it when several API processes serve one
    #: database: live events, rate-limit counters and the odds cache are then shared through it.
    #: Unset: all of them live in the process's memory.
    redis_url: str | None = None
    #: Prefix of every Redis key and channel, so several deployments can share one Redis.
    redis_prefix: str = "skillcheck"
    #: Requests per client address and period (``SKILLCHECK_RATE_LIMIT=1200/minute``; ``off``).
    rate_limit: tuple[str, int] | None = DEFAULT_RATE_LIMIT
    #: Callback URLs on loopback/private networks are refused unless this is on (local tests,
    #: a VTT on the same LAN). Refusing them keeps the server from being used to reach them.
    webhooks_allow_private: bool = False
    #: Worker threads that run the (synchronous) handlers. Few threads keep Python's lock
    #: handovers short; requests beyond them wait their turn in order.
    threads: int = 4
    #: The API's public address (``https://checks.example``): webhooks then link the revealed
    #: record with an absolute URL; unset, the link is a path.
    public_url: str | None = None
    #: The Foundry VTT module's folder, served at /foundry/ (api/foundry.py); unset, the copy
    #: of examples/foundry/skillcheck/ installed with the package (or the checkout's).
    foundry_module: str | None = None
    #: Live streams (SSE) open at once, per check and per client address, in each process: a
    #: stream holds a connection and a subscription, so anyone with a token could otherwise
    #: open thousands. Over either, 429 with Retry-After.
    streams_per_check: int = 16
    streams_per_client: int = 32
    #: The longest a live stream stays open, in seconds; the client then resumes with
    #: Last-Event-ID (proxies cut long connections anyway; this makes it the server's choice).
    stream_seconds: float = 1800
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("SKILLCHECK_DATABASE_URL") or DEFAULT_DATABASE_URL,
            gm_keys=check_gm_keys(_split(env.get("SKILLCHECK_GM_KEYS"))),
            cors_origins=_split(env.get("SKILLCHECK_CORS_ORIGINS")),
            frame_ancestors=_split(env.get("SKILLCHECK_FRAME_ANCESTORS")),
            migrate_on_startup=_flag(env.get("SKILLCHECK_MIGRATE"), True),
            redis_url=env.get("SKILLCHECK_REDIS_URL") or None,
            redis_prefix=env.get("SKILLCHECK_REDIS_PREFIX") or "skillcheck",
            rate_limit=parse_rate_limit(env.get("SKILLCHECK_RATE_LIMIT")),
            webhooks_allow_private=_flag(env.get("SKILLCHECK_WEBHOOKS_ALLOW_PRIVATE"), False),
            public_url=(env.get("SKILLCHECK_PUBLIC_URL") or "").rstrip("/") or None,
            foundry_module=env.get("SKILLCHECK_FOUNDRY_MODULE") or None,
            threads=int(env.get("SKILLCHECK_THREADS") or 4),
            streams_per_check=_positive(env, "SKILLCHECK_STREAMS_PER_CHECK", 16),
            streams_per_client=_positive(env, "SKILLCHECK_STREAMS_PER_CLIENT", 32),
            stream_seconds=_positive_seconds(env, "SKILLCHECK_STREAM_SECONDS", 1800),
            host=env.get("SKILLCHECK_HOST") or "127.0.0.1",
            port=int(env.get("SKILLCHECK_PORT") or 8000),
            workers=int(env.get("SKILLCHECK_WORKERS") or 1),
        )
