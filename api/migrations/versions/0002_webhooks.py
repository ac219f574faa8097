"""Webhooks: each check's callback URL and signing secret, and the delivery outbox.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "check_webhooks",
        sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("secret", sa.String(128), nullable=False),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
    )
    op.create_index(
        "ix_webhook_deliveries_due", "webhook_deliveries", ["status", "next_attempt_at"]
    )
    op.create_index("ix_webhook_deliveries_check", "webhook_deliveries", ["check_id"])


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_check", "webhook_deliveries")
    op.drop_index("ix_webhook_deliveries_due", "webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_table("check_webhooks")
