"""Tables, the engine and the migrations.

The schema is owned by Alembic (``api/migrations``); :data:`metadata` mirrors the newest
revision for queries. The session service is synchronous, so the API uses a synchronous
SQLAlchemy engine and runs its handlers in worker threads (docs/api.md explains why).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine, make_url

__all__ = [
    "access",
    "actions",
    "checks",
    "events",
    "idempotency_keys",
    "make_engine",
    "metadata",
    "migrate",
    "sync_url",
]

MIGRATIONS = Path(__file__).parent / "migrations"

metadata = sa.MetaData()

checks = sa.Table(
    "checks",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("config", sa.JSON, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("salt", sa.String(64), nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("last_sequence", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("code", sa.String(32), nullable=False),
    sa.Column("note", sa.Text, nullable=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
    sa.Column("sequence", sa.Integer, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("payload", sa.JSON, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    sa.Column("scope", sa.String(64), primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("check_id", sa.String(64), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
)

#: Who may reach a check: SHA-256 hex digests of its player and spectator tokens and of the GM
#: key that created it. The tokens themselves are never stored.
access = sa.Table(
    "check_access",
    metadata,
    sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
    sa.Column("player_token_sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("spectator_token_sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("gm_key_sha256", sa.String(64), nullable=False, index=True),
)


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


def make_engine(url: str) -> Engine:
    target = sync_url(url)
    kwargs: dict[str, Any] = {"future": True}
    if target.get_backend_name() == "sqlite":
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs["pool_pre_ping"] = True
    engine = sa.create_engine(target, **kwargs)
    if target.get_backend_name() == "sqlite":

        @sa.event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            if target.database not in (None, "", ":memory:"):
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

    return engine


def alembic_config(url: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        config.set_main_option(
            "sqlalchemy.url", sync_url(url).render_as_string(hide_password=False).replace("%", "%%")
        )
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with Alembic (the only way the schema is made)."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
