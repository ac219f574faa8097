"""A SQL implementation of the library's :class:`~skillcheck.sessions.CheckStore`, on
advanced-alchemy's session maker and repositories.

``append`` is an atomic compare-and-append: one transaction runs ``UPDATE checks SET version =
:expected + n ... WHERE id = :id AND version = :expected``; no row updated means the version moved
(or the check does not exist) and nothing is written; then the actions, events and idempotency key
are inserted. A unique violation on the key rolls all of it back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import sqlalchemy as sa
from advanced_alchemy.extensions.litestar import SQLAlchemySyncConfig
from advanced_alchemy.repository import SQLAlchemySyncRepository
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.db import AccessRow, ActionRow, CheckRow, EventRow, IdempotencyRow, WebhookRow
from api.outbox import CheckWebhook
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


class CheckRepository(SQLAlchemySyncRepository[CheckRow]):
    model_type = CheckRow


class AccessRepository(SQLAlchemySyncRepository[AccessRow]):
    model_type = AccessRow


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

    def __init__(self, config: SQLAlchemySyncConfig) -> None:
        self.config = config
        self._session_maker = config.create_session_maker()

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with self._session_maker() as session, session.begin():
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._session_maker() as session:
            yield session

    # -- the CheckStore protocol ------------------------------------------------------------------
    def create(
        self,
        check: StoredCheck,
        events: Sequence[CheckEvent],
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        _check_sequences(check.check_id, check.last_sequence, events)
        try:
            with self._transaction() as session:
                if idempotency is not None:
                    self._refuse_taken_key(session, idempotency)
                CheckRepository(session=session).add(
                    CheckRow(
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
                self._insert_actions(session, check.check_id, 1, check.actions)
                self._insert_events(session, events)
                if idempotency is not None:
                    self._insert_key(session, idempotency)
        except IntegrityError:
            if idempotency is not None and self.idempotency(idempotency.scope, idempotency.key):
                raise IdempotencyKeyExistsError(idempotency.scope, idempotency.key) from None
            raise

    def load(self, check_id: str) -> StoredCheck:
        with self._reading() as session:
            row = CheckRepository(session=session).get_one_or_none(id=check_id)
            if row is None:
                raise CheckNotFoundError(check_id)
            logged = session.execute(
                sa.select(ActionRow.code, ActionRow.at, ActionRow.note)
                .where(ActionRow.check_id == check_id)
                .order_by(ActionRow.number)
            ).all()
            return StoredCheck(
                check_id=row.id,
                config=CheckConfig(**dict(row.config)),
                seed=int(row.seed),
                salt=row.salt,
                commitment=row.commitment,
                created_at=row.created_at,
                actions=tuple(Action(a.code, a.at, a.note) for a in logged),
                status=CheckStatus(row.status),
                last_sequence=row.last_sequence,
            )

    def append(self, check_id: str, change: Append) -> None:
        expected = change.expected_version
        try:
            with self._transaction() as session:
                values: dict[str, Any] = {
                    "version": expected + len(change.actions),
                    "last_sequence": CheckRow.last_sequence + len(change.events),
                    "status": change.status.value,
                }
                if change.actions:
                    values["updated_at"] = change.actions[-1].at
                result = cast(
                    "CursorResult[Any]",
                    session.execute(
                        sa.update(CheckRow)
                        .where(CheckRow.id == check_id, CheckRow.version == expected)
                        .values(**values)
                        .returning(CheckRow.last_sequence)
                    ),
                )
                last = result.scalar_one_or_none()
                if last is None:
                    actual = session.execute(
                        sa.select(CheckRow.version).where(CheckRow.id == check_id)
                    ).scalar_one_or_none()
                    if actual is None:
                        raise CheckNotFoundError(check_id)
                    raise VersionConflictError(check_id, expected, actual)
                # The row is locked by this transaction now: its last_sequence is ours.
                _check_sequences(check_id, last - len(change.events), change.events)
                if change.idempotency is not None:
                    self._refuse_taken_key(session, change.idempotency)
                self._insert_actions(session, check_id, expected + 1, change.actions)
                self._insert_events(session, change.events)
                if change.idempotency is not None:
                    self._insert_key(session, change.idempotency)
        except IntegrityError:
            key = change.idempotency
            if key is not None and self.idempotency(key.scope, key.key) is not None:
                raise IdempotencyKeyExistsError(key.scope, key.key) from None
            raise

    def events(self, check_id: str, after: int = 0, limit: int | None = None) -> list[CheckEvent]:
        with self._reading() as session:
            if not CheckRepository(session=session).exists(id=check_id):
                raise CheckNotFoundError(check_id)
            query = (
                sa.select(EventRow)
                .where(EventRow.check_id == check_id, EventRow.sequence > after)
                .order_by(EventRow.sequence)
            )
            if limit is not None:
                query = query.limit(limit)
            rows = session.scalars(query).all()
            return [
                CheckEvent(
                    r.check_id, r.sequence, r.version, EventKind(r.kind), dict(r.payload), r.at
                )
                for r in rows
            ]

    def idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self._reading() as session:
            row = session.get(IdempotencyRow, (scope, key))
            if row is None:
                return None
            return IdempotencyRecord(row.scope, row.key, row.fingerprint, row.check_id, row.version)

    # -- access (tokens are stored as SHA-256 digests only) ---------------------------------------
    def save_access(self, access: Access, webhook: CheckWebhook | None = None) -> None:
        """Store a new check's hashed credentials and, if it has one, its callback."""
        with self._transaction() as session:
            if webhook is not None:
                session.add(
                    WebhookRow(check_id=webhook.check_id, url=webhook.url, secret=webhook.secret)
                )
            AccessRepository(session=session).add(
                AccessRow(
                    check_id=access.check_id,
                    player_token_sha256=access.player_token_sha256,
                    spectator_token_sha256=access.spectator_token_sha256,
                    gm_key_sha256=access.gm_key_sha256,
                )
            )

    def access(self, check_id: str) -> Access | None:
        with self._reading() as session:
            row = AccessRepository(session=session).get_one_or_none(check_id=check_id)
            if row is None:
                return None
            return Access(
                row.check_id, row.player_token_sha256, row.spectator_token_sha256, row.gm_key_sha256
            )

    # -- helpers ----------------------------------------------------------------------------------
    @staticmethod
    def _refuse_taken_key(session: Session, record: IdempotencyRecord) -> None:
        if session.get(IdempotencyRow, (record.scope, record.key)) is not None:
            raise IdempotencyKeyExistsError(record.scope, record.key)

    @staticmethod
    def _insert_actions(
        session: Session, check_id: str, first: int, logged: Sequence[Action]
    ) -> None:
        if logged:
            session.execute(
                sa.insert(ActionRow),
                [
                    {"check_id": check_id, "number": first + i, "code": a.code, "note": a.note,
                     "at": a.at}
                    for i, a in enumerate(logged)
                ],
            )  # fmt: skip

    @staticmethod
    def _insert_events(session: Session, new: Sequence[CheckEvent]) -> None:
        if new:
            session.execute(
                sa.insert(EventRow),
                [
                    {"check_id": e.check_id, "sequence": e.sequence, "version": e.version,
                     "kind": e.kind.value, "payload": e.payload, "at": e.at}
                    for e in new
                ],
            )  # fmt: skip

    @staticmethod
    def _insert_key(session: Session, record: IdempotencyRecord) -> None:
        session.add(
            IdempotencyRow(
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
