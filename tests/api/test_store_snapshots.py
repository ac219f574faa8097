"""SqlCheckStore.load reads one moment of a check even while another process moves it.

A move committed between load's two reads (the check's row, then its action log) once gave a
check at the new version with the row's older ``last_sequence``; the next move numbered its
events from that and the store refused it with a ValueError, a 500 (seen in a browser test: a
move, then an undo while the page was reading the view). Here the move is committed exactly
between the two reads, on real SQLite and PostgreSQL, by a second service over the same
database (another API process, its own caches).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from api.db import database_config, migrate
from api.store import SqlCheckStore
from skillcheck.sessions import SessionService


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'snapshots.sqlite3'}"
    else:
        yield request.getfixturevalue("pg_url")


def test_a_move_between_the_two_reads_of_a_load_is_not_half_seen(database: str) -> None:
    config = database_config(database)
    migrate(config)
    store = SqlCheckStore(config)
    reader, mover = SessionService(store), SessionService(SqlCheckStore(database_config(database)))
    check_id = reader.create("three-towers", {"level": 9}, seed=4).check_id
    code = reader.view(check_id).moves[0]["code"]
    engine = config.get_engine()
    moved: list[int] = []

    def move_in_between(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # Right after load has read the check's row, before it reads the action log.
        if not moved and "FROM checks" in statement and "SELECT" in statement:
            moved.append(mover.move(check_id, code).version)

    sa.event.listen(engine, "after_cursor_execute", move_in_between)
    try:
        loaded = store.load(check_id)
    finally:
        sa.event.remove(engine, "after_cursor_execute", move_in_between)
    assert moved == [1], "the move did not run between the reads: nothing was tested"
    # Created (event 1), then one event per move: the version and the sequence agree.
    assert (loaded.version, loaded.last_sequence) in {(0, 1), (1, 2)}, loaded
    # And the reader, acting on what it had, gets a version conflict or acts: never a crash.
    after = reader.undo(check_id) if reader.view(check_id).can_undo else None
    assert after is None or after.version == 2
