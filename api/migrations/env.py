"""Alembic environment: uses the connection the API hands over (``api.db.migrate``), or the
URL from alembic.ini / ``SKILLCHECK_DATABASE_URL`` for the ``alembic`` command line."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy.engine import Connection

from api.db import make_engine, metadata
from api.settings import DEFAULT_DATABASE_URL

config = context.config
target_metadata = metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get(
        "SKILLCHECK_DATABASE_URL", DEFAULT_DATABASE_URL
    )
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = os.environ.get("SKILLCHECK_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    engine = make_engine(url or DEFAULT_DATABASE_URL)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
