"""Alembic environment. The API runs it through advanced-alchemy's ``AlembicCommands``
(``api.db.migrate``), which hands over the app's engine; the ``alembic`` command line uses
``SKILLCHECK_DATABASE_URL`` (else the URL in alembic.ini)."""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import context
from sqlalchemy.engine import Connection, Engine

from api.db import MIGRATION_LOCK_KEY as LOCK_KEY
from api.db import VERSION_TABLE, CheckRow, database_config
from api.settings import DEFAULT_DATABASE_URL

config = context.config
target_metadata = CheckRow.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection, target_metadata=target_metadata, version_table=VERSION_TABLE
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":  # one migrating process at a time
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        context.run_migrations()


def run_migrations_offline() -> None:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get(
        "SKILLCHECK_DATABASE_URL", DEFAULT_DATABASE_URL
    )
    context.configure(
        url=url, target_metadata=target_metadata, literal_binds=True, version_table=VERSION_TABLE
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = getattr(config, "engine", None)  # advanced-alchemy's AlembicCommandConfig
    owned = False
    if not isinstance(engine, Engine):
        url = os.environ.get("SKILLCHECK_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
        engine = database_config(url or DEFAULT_DATABASE_URL).get_engine()
        owned = True
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        if owned:
            engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
