"""Fixtures for the HTTP API tests: apps on a temporary SQLite file, or on PostgreSQL in a
schema of their own (skipped with the reason when no server answers)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from api_support import PG_BASE, play_whole_check, running
from litestar.testing import TestClient
from webhook_receiver import receiver  # noqa: F401 (a fixture for the webhook tests)


def pytest_configure(config: pytest.Config) -> None:
    # Litestar 2.2x deprecates the inferred path/body style that every 2.x release accepts;
    # the API keeps that style so the whole litestar>=2.12,<3 range works.
    config.addinivalue_line(
        "filterwarnings", "ignore::litestar.exceptions.LitestarDeprecationWarning"
    )


@pytest.fixture
def sqlite_url(tmp_path: Any) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'skillcheck.sqlite3'}"


@pytest.fixture
def client(sqlite_url: str) -> Iterator[TestClient[Any]]:
    with running(sqlite_url) as c:
        yield c


def _reachable_pg_user() -> tuple[str | None, str]:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - the api extra installs it
        return None, f"psycopg is not installed: {exc}"
    reasons = []
    for user in ("postgres", "root"):
        try:
            with psycopg.connect(
                host="127.0.0.1", port=5432, dbname="test", user=user, connect_timeout=3
            ):
                return user, ""
        except Exception as exc:
            reasons.append(f"{user}: {str(exc).strip().splitlines()[0]}")
    return None, "; ".join(reasons)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A URL on the PostgreSQL server at 127.0.0.1:5432/test, in a schema of its own (dropped
    afterwards); skips with the reason when no server answers."""
    user, reason = _reachable_pg_user()
    if user is None:
        pytest.skip(f"PostgreSQL at 127.0.0.1:5432/test is unreachable ({reason})")
    import psycopg

    schema = f"skillcheck_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(host="127.0.0.1", dbname="test", user=user, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield PG_BASE.format(user=user) + f"?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(host="127.0.0.1", dbname="test", user=user, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def whole_check() -> Callable[[TestClient[Any]], dict[str, Any]]:
    return play_whole_check
