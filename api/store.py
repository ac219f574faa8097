"""A SQLAlchemy implementation of the library's :class:`~skillcheck.sessions.CheckStore`.

``append`` is an atomic compare-and-append: one transaction runs ``UPDATE checks SET version =
:expected + n ... WHERE id = :id AND version = :expected``; no row updated means the version moved
(or the check does not exist) and nothing is written; then the actions, events and idempotency key
are inserted. A unique violation on the key rolls all of it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from api import db
from skillcheck.errors import CheckNotFoundError, IdempotencyKeyExistsError, VersionConflictError
from skillcheck.sessions import (
    Action,
    Append,
    CheckConfig,
    CheckEvent,
    CheckStatus,
    EventKind,
    IdempotencyRecord,
    StoredCheck,
)

__all__ = ["Access", "SqlCheckStore"]


def _utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes: they were written in UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


class Access:
    """The hashed credentials of one check."""

    __slots__ = ("check_id", "gm_key_sha256", "player_token_sha256", "spectator_token_sha256")

    def __init__(self, check_id: str, player: str, spectator: str, gm: str) -> None:
        self.check_id = check_id
        self.player_token_sha256 = player
        self.spectator_token_sha256 = spectator
        self.gm_key_sha256 = gm


class SqlCheckStore:
    """Checks in SQL tables (SQLite or PostgreSQL), safe to use from many threads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- the CheckStore protocol ------------------------------------------------------------------
    def create(
        self,
        check: StoredCheck,
        events: Sequence[CheckEvent],
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        _check_sequences(check.check_id, check.last_sequence, events)
        try:
            with self.engine.begin() as conn:
                if idempotency is not None:
                    self._refuse_taken_key(conn, idempotency)
                conn.execute(
                    sa.insert(db.checks).values(
                        id=check.check_id,
                        game=check.config.game,
                        config=check.config.to_dict(),
                        seed=check.seed,
                        salt=check.salt,
                        commitment=check.commitment,
                        status=check.status.value,
                        version=check.version,
                        last_sequence=check.last_sequence + len(events),
                        created_at=check.created_at,
                        updated_at=check.updated_at,
                    )
                )
                self._insert_actions(conn, check.check_id, 1, check.actions)
                self._insert_events(conn, events)
                if idempotency is not None:
                    self._insert_key(conn, idempotency)
        except IntegrityError:
            if idempotency is not None and self.idempotency(idempotency.scope, idempotency.key):
                raise IdempotencyKeyExistsError(idempotency.scope, idempotency.key) from None
            raise

    def load(self, check_id: str) -> StoredCheck:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(db.checks).where(db.checks.c.id == check_id)).first()
            if row is None:
                raise CheckNotFoundError(check_id)
            logged = conn.execute(
                sa.select(db.actions.c.code, db.actions.c.at, db.actions.c.note)
                .where(db.actions.c.check_id == check_id)
                .order_by(db.actions.c.number)
            ).all()
        config: dict[str, Any] = dict(row.config)
        return StoredCheck(
            check_id=row.id,
            config=CheckConfig(**config),
            seed=int(row.seed),
            salt=row.salt,
            commitment=row.commitment,
            created_at=_utc(row.created_at),
            actions=tuple(Action(a.code, _utc(a.at), a.note) for a in logged),
            status=CheckStatus(row.status),
            last_sequence=row.last_sequence,
        )

    def append(self, check_id: str, change: Append) -> StoredCheck:
        expected = change.expected_version
        n = len(change.actions)
        try:
            with self.engine.begin() as conn:
                updated_at = change.actions[-1].at if change.actions else None
                values: dict[str, Any] = {
                    "version": expected + n,
                    "last_sequence": db.checks.c.last_sequence + len(change.events),
                    "status": change.status.value,
                }
                if updated_at is not None:
                    values["updated_at"] = updated_at
                result = conn.execute(
                    sa.update(db.checks)
                    .where(db.checks.c.id == check_id, db.checks.c.version == expected)
                    .values(**values)
                )
                if result.rowcount != 1:
                    actual = conn.execute(
                        sa.select(db.checks.c.version).where(db.checks.c.id == check_id)
                    ).scalar_one_or_none()
                    if actual is None:
                        raise CheckNotFoundError(check_id)
                    raise VersionConflictError(check_id, expected, actual)
                # The row is locked by this transaction now: its last_sequence is ours.
                last = conn.execute(
                    sa.select(db.checks.c.last_sequence).where(db.checks.c.id == check_id)
                ).scalar_one()
                _check_sequences(check_id, last - len(change.events), change.events)
                if change.idempotency is not None:
                    self._refuse_taken_key(conn, change.idempotency)
                self._insert_actions(conn, check_id, expected + 1, change.actions)
                self._insert_events(conn, change.events)
                if change.idempotency is not None:
                    self._insert_key(conn, change.idempotency)
        except IntegrityError:
            key = change.idempotency
            if key is not None and self.idempotency(key.scope, key.key) is not None:
                raise IdempotencyKeyExistsError(key.scope, key.key) from None
            raise
        return self.load(check_id)

    def events(self, check_id: str, after: int = 0, limit: int | None = None) -> list[CheckEvent]:
        with self.engine.connect() as conn:
            exists = conn.execute(
                sa.select(db.checks.c.id).where(db.checks.c.id == check_id)
            ).first()
            if exists is None:
                raise CheckNotFoundError(check_id)
            query = (
                sa.select(db.events)
                .where(db.events.c.check_id == check_id, db.events.c.sequence > after)
                .order_by(db.events.c.sequence)
            )
            if limit is not None:
                query = query.limit(limit)
            rows = conn.execute(query).all()
        return [
            CheckEvent(
                r.check_id, r.sequence, r.version, EventKind(r.kind), dict(r.payload), _utc(r.at)
            )
            for r in rows
        ]

    def idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(db.idempotency_keys).where(
                    db.idempotency_keys.c.scope == scope, db.idempotency_keys.c.key == key
                )
            ).first()
        if row is None:
            return None
        return IdempotencyRecord(row.scope, row.key, row.fingerprint, row.check_id, row.version)

    # -- access (tokens are stored as SHA-256 digests only) ---------------------------------------
    def save_access(self, access: Access) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                sa.insert(db.access).values(
                    check_id=access.check_id,
                    player_token_sha256=access.player_token_sha256,
                    spectator_token_sha256=access.spectator_token_sha256,
                    gm_key_sha256=access.gm_key_sha256,
                )
            )

    def access(self, check_id: str) -> Access | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(db.access).where(db.access.c.check_id == check_id)).first()
        if row is None:
            return None
        return Access(
            row.check_id, row.player_token_sha256, row.spectator_token_sha256, row.gm_key_sha256
        )

    # -- helpers ----------------------------------------------------------------------------------
    @staticmethod
    def _refuse_taken_key(conn: Connection, record: IdempotencyRecord) -> None:
        taken = conn.execute(
            sa.select(db.idempotency_keys.c.key).where(
                db.idempotency_keys.c.scope == record.scope,
                db.idempotency_keys.c.key == record.key,
            )
        ).first()
        if taken is not None:
            raise IdempotencyKeyExistsError(record.scope, record.key)

    @staticmethod
    def _insert_actions(
        conn: Connection, check_id: str, first: int, logged: Sequence[Action]
    ) -> None:
        if logged:
            conn.execute(
                sa.insert(db.actions),
                [
                    {"check_id": check_id, "number": first + i, "code": a.code, "note": a.note,
                     "at": a.at}
                    for i, a in enumerate(logged)
                ],
            )  # fmt: skip

    @staticmethod
    def _insert_events(conn: Connection, new: Sequence[CheckEvent]) -> None:
        if new:
            conn.execute(
                sa.insert(db.events),
                [
                    {"check_id": e.check_id, "sequence": e.sequence, "version": e.version,
                     "kind": e.kind.value, "payload": e.payload, "at": e.at}
                    for e in new
                ],
            )  # fmt: skip

    @staticmethod
    def _insert_key(conn: Connection, record: IdempotencyRecord) -> None:
        conn.execute(
            sa.insert(db.idempotency_keys).values(
                scope=record.scope,
                key=record.key,
                fingerprint=record.fingerprint,
                check_id=record.check_id,
                version=record.version,
            )
        )


def _check_sequences(check_id: str, last_sequence: int, new: Sequence[CheckEvent]) -> None:
    for offset, event in enumerate(new, 1):
        if event.check_id != check_id or event.sequence != last_sequence + offset:
            raise ValueError(
                f"event {event.sequence} of check {event.check_id!r} does not follow event "
                f"{last_sequence + offset - 1} of check {check_id!r}"
            )
