"""Webhooks in the database: each check's callback, the delivery outbox (the semantics of
:class:`api.webhooks.Outbox`), and the glue that turns a check's end into a delivery.

Deliveries are enqueued by a listener right after the check's last event is committed; their
ids are the event's (``webhook_id``), so enqueueing twice does nothing. A process that dies
between the commit and the enqueue loses nothing: :meth:`SqlOutbox.enqueue_missing` (run at
startup) enqueues every ended check's delivery that is not in the outbox yet.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa
from advanced_alchemy.extensions.litestar import SQLAlchemySyncConfig
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.db import CheckRow, DeliveryRow, EventRow, WebhookRow
from api.webhooks import (
    DeliveryStatus,
    WebhookDelivery,
    WebhookSigner,
    delivery_for_event,
)
from skillcheck.sessions import CheckEvent, CheckStatus, EventKind

__all__ = ["CheckWebhook", "SqlOutbox"]

logger = logging.getLogger("api.webhooks")

TERMINAL = (EventKind.ENDED.value, EventKind.CANCELLED.value)
ENDED_STATUSES = tuple(status.value for status in CheckStatus if status.is_over)


class CheckWebhook:
    """Where a check's result goes and the secret that signs it."""

    __slots__ = ("check_id", "secret", "url")

    def __init__(self, check_id: str, url: str, secret: str) -> None:
        self.check_id, self.url, self.secret = check_id, url, secret


def _delivery(row: DeliveryRow) -> WebhookDelivery:
    return WebhookDelivery(
        id=row.id,
        check_id=row.check_id,
        url=row.url,
        event_type=row.event_type,
        body=bytes(row.body),
        created_at=row.created_at,
        next_attempt_at=row.next_attempt_at,
        attempts=row.attempts,
        status=DeliveryStatus(row.status),
        last_attempt_at=row.last_attempt_at,
        last_error=row.last_error,
    )


class SqlOutbox:
    """The outbox and the checks' callbacks in SQL (SQLite or PostgreSQL), thread-safe."""

    def __init__(
        self,
        config: SQLAlchemySyncConfig,
        *,
        base_url: str | None = None,
        allow_private: bool = False,
    ) -> None:
        self._session_maker = config.create_session_maker()
        self._postgres = config.get_engine().dialect.name == "postgresql"
        self.base_url = base_url
        self.allow_private = allow_private

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with self._session_maker() as session, session.begin():
            yield session

    # -- the checks' callbacks --------------------------------------------------------------------
    def webhook(self, check_id: str) -> CheckWebhook | None:
        with self._session_maker() as session:
            row = session.get(WebhookRow, check_id)
            return None if row is None else CheckWebhook(row.check_id, row.url, row.secret)

    def signer_for(self, delivery: WebhookDelivery) -> WebhookSigner:
        """The signer of a delivery: its check's secret (read per attempt; attempts are rare)."""
        hook = self.webhook(delivery.check_id)
        if hook is None:
            raise LookupError(f"check {delivery.check_id} has no webhook")
        return WebhookSigner(hook.secret)

    def delivery_for(self, event: CheckEvent) -> WebhookDelivery | None:
        """The delivery ``event`` sends, if it ends a check that has a callback."""
        if event.kind.value not in TERMINAL:
            return None
        hook = self.webhook(event.check_id)
        if hook is None:
            return None
        return delivery_for_event(
            event, hook.url, base_url=self.base_url, allow_private=self.allow_private
        )

    def enqueue_missing(self, limit: int = 1000) -> int:
        """Enqueue the result of every ended check with a callback whose delivery is not in the
        outbox (a process died between the two); returns how many."""
        with self._session_maker() as session:
            # from the (few) checks with a callback, by primary keys: no scan of the events
            rows = session.execute(
                sa.select(EventRow)
                .select_from(WebhookRow)
                .join(CheckRow, CheckRow.id == WebhookRow.check_id)
                .join(EventRow, EventRow.check_id == WebhookRow.check_id)
                .where(
                    CheckRow.status.in_(ENDED_STATUSES),
                    EventRow.kind.in_(TERMINAL),
                    ~sa.exists().where(DeliveryRow.check_id == WebhookRow.check_id),
                )
                .limit(limit)
            ).scalars()
            events = [
                CheckEvent(r.check_id, r.sequence, r.version, EventKind(r.kind), r.payload, r.at)
                for r in rows
            ]
        added = 0
        for event in events:
            try:
                delivery = self.delivery_for(event)
            except ValueError as exc:  # the URL is no longer allowed by the settings
                logger.warning("check %s: webhook not sent: %s", event.check_id, exc)
                continue
            if delivery is not None and self.enqueue(delivery):
                added += 1
        return added

    # -- the Outbox protocol ----------------------------------------------------------------------
    def enqueue(self, delivery: WebhookDelivery) -> bool:
        try:
            with self._transaction() as session:
                if session.get(DeliveryRow, delivery.id) is not None:
                    return False
                session.add(
                    DeliveryRow(
                        id=delivery.id,
                        check_id=delivery.check_id,
                        url=delivery.url,
                        event_type=delivery.event_type,
                        body=delivery.body,
                        created_at=delivery.created_at,
                        next_attempt_at=delivery.next_attempt_at,
                        attempts=delivery.attempts,
                        status=delivery.status.value,
                        last_attempt_at=delivery.last_attempt_at,
                        last_error=delivery.last_error,
                    )
                )
        except IntegrityError:
            return False  # another process enqueued the same id at the same moment
        return True

    def due(self, now: datetime, limit: int, lease: timedelta) -> list[WebhookDelivery]:
        if limit <= 0:
            return []
        ready = (
            sa.select(DeliveryRow.id)
            .where(
                DeliveryRow.status == DeliveryStatus.PENDING.value,
                DeliveryRow.next_attempt_at <= now,
            )
            .order_by(DeliveryRow.next_attempt_at, DeliveryRow.id)
            .limit(limit)
        )
        if self._postgres:
            ready = ready.with_for_update(skip_locked=True)
        with self._transaction() as session:
            claimed = session.scalars(
                sa.update(DeliveryRow)
                .where(DeliveryRow.id.in_(ready.scalar_subquery()))
                .values(
                    attempts=DeliveryRow.attempts + 1,
                    last_attempt_at=now,
                    next_attempt_at=now + lease,
                )
                .returning(DeliveryRow)
                .execution_options(synchronize_session=False)
            ).all()
            deliveries = [_delivery(row) for row in claimed]
        deliveries.sort(key=lambda d: (d.last_attempt_at or now, d.id))
        return deliveries

    def _fenced_update(self, delivery: WebhookDelivery, **values: Any) -> bool:
        with self._transaction() as session:
            result = cast(
                "CursorResult[Any]",
                session.execute(
                    sa.update(DeliveryRow)
                    .where(
                        DeliveryRow.id == delivery.id,
                        DeliveryRow.status == DeliveryStatus.PENDING.value,
                        DeliveryRow.attempts == delivery.attempts,
                    )
                    .values(**values)
                    .execution_options(synchronize_session=False)
                ),
            )
            return result.rowcount == 1

    def mark_delivered(self, delivery: WebhookDelivery) -> bool:
        return self._fenced_update(delivery, status=DeliveryStatus.DELIVERED.value, last_error=None)

    def mark_retry(self, delivery: WebhookDelivery, next_at: datetime, error: str) -> bool:
        return self._fenced_update(delivery, next_attempt_at=next_at, last_error=error[:2000])

    def mark_failed(self, delivery: WebhookDelivery, error: str) -> bool:
        return self._fenced_update(
            delivery, status=DeliveryStatus.FAILED.value, last_error=error[:2000]
        )

    def get(self, delivery_id: str) -> WebhookDelivery | None:
        with self._session_maker() as session:
            row = session.get(DeliveryRow, delivery_id)
            return None if row is None else _delivery(row)

    def deliveries(self, check_id: str) -> list[WebhookDelivery]:
        """A check's deliveries (the GM's view of what was sent)."""
        with self._session_maker() as session:
            rows = session.scalars(
                sa.select(DeliveryRow)
                .where(DeliveryRow.check_id == check_id)
                .order_by(DeliveryRow.created_at, DeliveryRow.id)
            ).all()
            return [_delivery(r) for r in rows]
