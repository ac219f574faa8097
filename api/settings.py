"""Settings of the API, read from environment variables (docs/api.md lists them)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DEFAULT_DATABASE_URL", "Settings"]

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./skillcheck.sqlite3"


def _split(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _flag(value: str | None, default: bool) -> bool:
    if value is None or not value.strip():
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


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
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("SKILLCHECK_DATABASE_URL") or DEFAULT_DATABASE_URL,
            gm_keys=_split(env.get("SKILLCHECK_GM_KEYS")),
            cors_origins=_split(env.get("SKILLCHECK_CORS_ORIGINS")),
            frame_ancestors=_split(env.get("SKILLCHECK_FRAME_ANCESTORS")),
            migrate_on_startup=_flag(env.get("SKILLCHECK_MIGRATE"), True),
            host=env.get("SKILLCHECK_HOST") or "127.0.0.1",
            port=int(env.get("SKILLCHECK_PORT") or 8000),
            workers=int(env.get("SKILLCHECK_WORKERS") or 1),
        )
