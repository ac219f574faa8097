"""Tables, the database configuration and the migrations, through advanced-alchemy.

advanced-alchemy (Litestar's SQLAlchemy integration) owns the engine and the session maker
(:func:`database_config`, registered on the app by its ``SQLAlchemyPlugin``), gives the models
their declarative base and UTC-aware datetime type, and runs the Alembic migrations
(:func:`migrate`; also ``litestar --app api.app:create_app database upgrade``). The schema is
owned by the migrations in ``api/migrations``; the models mirror the newest revision.

The session service is synchronous, so the API uses a synchronous engine and runs its handlers
in worker threads (docs/api.md explains why).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from advanced_alchemy.base import DefaultBase
from advanced_alchemy.extensions.litestar import (
    AlembicCommands,
    AlembicSyncConfig,
    EngineConfig,
    SQLAlchemySyncConfig,
)
from advanced_alchemy.types import DateTimeUTC
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Mapped, mapped_column

__all__ = [
    "MIGRATION_LOCK_KEY",
    "VERSION_TABLE",
    "AccessRow",
    "ActionRow",
    "CheckRow",
    "DeliveryRow",
    "EventRow",
    "IdempotencyRow",
    "WebhookRow",
    "database_config",
    "migrate",
    "sync_url",
]

MIGRATIONS = Path(__file__).parent / "migrations"
#: Alembic's own table (its classic name, so ``alembic`` on the command line agrees).
VERSION_TABLE = "alembic_version"


class CheckRow(DefaultBase):
    """One check: its configuration, secret seed material, status and version."""

    __tablename__ = "checks"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(64))
    config: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    salt: Mapped[str] = mapped_column(sa.String(64))
    commitment: Mapped[str] = mapped_column(sa.String(64))
    status: Mapped[str] = mapped_column(sa.String(16))
    version: Mapped[int] = mapped_column(sa.Integer)
    last_sequence: Mapped[int] = mapped_column(sa.Integer)
    created_at: Mapped[datetime] = mapped_column(DateTimeUTC(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTimeUTC(timezone=True))


class ActionRow(DefaultBase):
    """The append-only log: action ``number`` n takes the check from version n-1 to n."""

    __tablename__ = "actions"

    check_id: Mapped[str] = mapped_column(
        sa.String(64), sa.ForeignKey("checks.id"), primary_key=True
    )
    number: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    code: Mapped[str] = mapped_column(sa.String(32))
    note: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    at: Mapped[datetime] = mapped_column(DateTimeUTC(timezone=True))


class EventRow(DefaultBase):
    """What listeners and the event stream see, numbered per check."""

    __tablename__ = "events"

    check_id: Mapped[str] = mapped_column(
        sa.String(64), sa.ForeignKey("checks.id"), primary_key=True
    )
    sequence: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    version: Mapped[int] = mapped_column(sa.Integer)
    kind: Mapped[str] = mapped_column(sa.String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    at: Mapped[datetime] = mapped_column(DateTimeUTC(timezone=True))


class IdempotencyRow(DefaultBase):
    """An accepted request's key: a retry with the same key gets the same answer."""

    __tablename__ = "idempotency_keys"

    scope: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    key: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(sa.String(64))
    check_id: Mapped[str] = mapped_column(sa.String(64))
    version: Mapped[int] = mapped_column(sa.Integer)


class AccessRow(DefaultBase):
    """Who may reach a check: SHA-256 hex digests of its player and spectator tokens and of the
    GM key that created it. The tokens themselves are never stored."""

    __tablename__ = "check_access"

    check_id: Mapped[str] = mapped_column(
        sa.String(64), sa.ForeignKey("checks.id"), primary_key=True
    )
    player_token_sha256: Mapped[str] = mapped_column(sa.String(64), unique=True)
    spectator_token_sha256: Mapped[str] = mapped_column(sa.String(64), unique=True)
    gm_key_sha256: Mapped[str] = mapped_column(sa.String(64), index=True)


class WebhookRow(DefaultBase):
    """A check's callback URL and the secret its deliveries are signed with (an HMAC key: it
    is needed in clear to sign, so it is stored as given)."""

    __tablename__ = "check_webhooks"

    check_id: Mapped[str] = mapped_column(
        sa.String(64), sa.ForeignKey("checks.id"), primary_key=True
    )
    url: Mapped[str] = mapped_column(sa.String(2048))
    secret: Mapped[str] = mapped_column(sa.String(128))


class DeliveryRow(DefaultBase):
    """The webhook outbox (``api.webhooks.Outbox`` semantics; ``api.outbox`` implements it)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        sa.Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        sa.Index("ix_webhook_deliveries_check", "check_id"),
    )

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    check_id: Mapped[str] = mapped_column(sa.String(64), sa.ForeignKey("checks.id"))
    url: Mapped[str] = mapped_column(sa.String(2048))
    event_type: Mapped[str] = mapped_column(sa.String(64))
    body: Mapped[bytes] = mapped_column(sa.LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTimeUTC(timezone=True))
    next_attempt_at: Mapped[datetime] = mapped_column(DateTimeUTC(timezone=True))
    attempts: Mapped[int] = mapped_column(sa.Integer)
    status: Mapped[str] = mapped_column(sa.String(16))
    last_attempt_at: Mapped[datetime | None] = mapped_column(
        DateTimeUTC(timezone=True), nullable=True
    )
    last_error: Mapped[str | None] = mapped_column(sa.Text, nullable=True)


def sync_url(url: str) -> sa.URL:
    """The URL with a synchronous driver: ``sqlite+aiosqlite`` → ``sqlite``;
    ``postgresql``, ``postgresql+asyncpg`` → ``postgresql+psycopg``."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed.set(drivername="sqlite")
    if backend == "postgresql" and parsed.get_driver_name() in {"asyncpg", "psycopg2", "psycopg"}:
        return parsed.set(drivername="postgresql+psycopg")
    return parsed


def _sqlite_pragmas(engine: Engine, wal: bool) -> None:
    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # WAL keeps commits durable in order
        cursor.close()


def database_config(url: str) -> SQLAlchemySyncConfig:
    """The advanced-alchemy configuration for ``url`` (any SQLAlchemy URL; async driver names
    are mapped to their sync twins). SQLite gets WAL, a busy timeout and foreign keys."""
    target = sync_url(url)
    sqlite = target.get_backend_name() == "sqlite"
    if sqlite:
        engine_config = EngineConfig(connect_args={"check_same_thread": False, "timeout": 30})
    else:
        engine_config = EngineConfig(pool_pre_ping=True)
    config = SQLAlchemySyncConfig(
        connection_string=target.render_as_string(hide_password=False),
        engine_config=engine_config,
        alembic_config=AlembicSyncConfig(
            script_location=str(MIGRATIONS), version_table_name=VERSION_TABLE
        ),
        create_all=False,  # the migrations make the schema, never create_all
        session_dependency_key="db_session",
    )
    if sqlite:
        _sqlite_pragmas(config.get_engine(), wal=target.database not in (None, "", ":memory:"))
    return config


#: PostgreSQL advisory lock held while migrating (any constant the app owns).
MIGRATION_LOCK_KEY = 0x5C_1C_EC_01


def migrate(config: SQLAlchemySyncConfig, revision: str = "head") -> None:
    """Bring the database to ``revision`` with Alembic (the only way the schema is made).

    Several API processes start at once and all migrate: on PostgreSQL an advisory lock (taken
    in ``migrations/env.py``) lets one run while the others wait and then find nothing to do;
    on a SQLite file an exclusive lock on a file beside it does the same."""
    url = config.get_engine().url
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        with _file_lock(Path(f"{url.database}.migrate-lock")):
            AlembicCommands(sqlalchemy_config=config).upgrade(revision)
        return
    AlembicCommands(sqlalchemy_config=config).upgrade(revision)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    import fcntl

    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
