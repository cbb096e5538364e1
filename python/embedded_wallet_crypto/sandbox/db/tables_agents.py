"""The agents' tables: agents, their device codes and access tokens (only SHA-256 hashes are
stored), AgentActions; and invitations and verifications."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = [
    "Agent",
    "AgentAction",
    "AgentDeviceCode",
    "AgentToken",
    "Invitation",
    "Verification",
]

_TS = UtcDateTime


class Agent(Base):
    """An agent: one customer, one policy (JSON, as the interface's AgentPolicy)."""

    __tablename__ = "sandbox_agents"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(String(100), index=True)
    name: Mapped[str] = mapped_column(String(500))
    is_paused: Mapped[bool] = mapped_column(Boolean, default=False)
    is_connected: Mapped[bool] = mapped_column(Boolean, default=False)
    policy: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(_TS)
    updated_at: Mapped[datetime] = mapped_column(_TS)


class AgentDeviceCode(Base):
    """A device code, by its SHA-256: single use, expires, invalidated by a newer code."""

    __tablename__ = "sandbox_agent_device_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    agent_id: Mapped[str] = mapped_column(
        String(100), ForeignKey("sandbox_agents.id", ondelete="CASCADE"), index=True
    )
    expires_at: Mapped[datetime] = mapped_column(_TS)
    redeemed: Mapped[bool] = mapped_column(Boolean, default=False)
    invalidated: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(_TS)


class AgentToken(Base):
    """An agent access token, by its SHA-256."""

    __tablename__ = "sandbox_agent_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    agent_id: Mapped[str] = mapped_column(
        String(100), ForeignKey("sandbox_agents.id", ondelete="CASCADE"), index=True
    )
    expires_at: Mapped[datetime] = mapped_column(_TS)
    created_at: Mapped[datetime] = mapped_column(_TS)


class AgentAction(Base):
    """An AgentAction; ``quote`` keeps the quote as submitted (EXECUTE_QUOTE),
    ``transfer_details`` the transfer (TRANSFER_OUT, TRANSFER_IN), ``transaction_id`` the
    result."""

    __tablename__ = "sandbox_agent_actions"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    agent_id: Mapped[str] = mapped_column(String(100), index=True)
    customer_id: Mapped[str] = mapped_column(String(100), index=True)
    platform_customer_id: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(32), index=True)
    type: Mapped[str] = mapped_column(String(32))
    quote_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    quote: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    transfer_details: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    wallet_signature: Mapped[str | None] = mapped_column(Text, nullable=True)
    transaction_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    transaction: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    rejection_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    failure_reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: The amount in the policy's spending currency (for the usage counters).
    spend: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at: Mapped[datetime] = mapped_column(_TS, index=True)
    updated_at: Mapped[datetime] = mapped_column(_TS)


class Invitation(Base):
    """An UMA invitation."""

    __tablename__ = "sandbox_invitations"

    code: Mapped[str] = mapped_column(String(32), primary_key=True)
    inviter_uma: Mapped[str] = mapped_column(String(300))
    invitee_uma: Mapped[str | None] = mapped_column(String(300), nullable=True)
    first_name: Mapped[str | None] = mapped_column(String(300), nullable=True)
    amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    currency: Mapped[str | None] = mapped_column(String(8), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(_TS)
    claimed_at: Mapped[datetime | None] = mapped_column(_TS, nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(_TS, nullable=True)


class Verification(Base):
    """A KYC/KYB verification and its outcome."""

    __tablename__ = "sandbox_verifications"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(String(100), index=True)
    status: Mapped[str] = mapped_column(String(32))
    errors: Mapped[list[Any]] = mapped_column(JSON)
    details: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(_TS)
    updated_at: Mapped[datetime] = mapped_column(_TS)
