"""The initial schema: checks, actions, events, idempotency keys, check access.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "checks",
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
    op.create_table(
        "actions",
        sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
        sa.Column("sequence", sa.Integer, primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("scope", sa.String(64), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_table(
        "check_access",
        sa.Column("check_id", sa.String(64), sa.ForeignKey("checks.id"), primary_key=True),
        sa.Column("player_token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("spectator_token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("gm_key_sha256", sa.String(64), nullable=False),
    )
    op.create_index("ix_check_access_gm_key_sha256", "check_access", ["gm_key_sha256"])


def downgrade() -> None:
    op.drop_index("ix_check_access_gm_key_sha256", table_name="check_access")
    op.drop_table("check_access")
    op.drop_table("idempotency_keys")
    op.drop_table("events")
    op.drop_table("actions")
    op.drop_table("checks")
