"""The delegated signing keys (``/auth/delegated-keys``): P-256 keys the service makes and
holds for a card funding source of an embedded wallet.

``status`` is STARTED after the first leg (not listed: nothing was authorized yet), PENDING
after the second (the signer identity exists, without policies), ACTIVE after the third,
REVOKED once revoked. ``request_id`` is the challenge of the next leg. ``private_key`` is the
service-held key sealed to the service's own key (``domain.at_rest``: base58check, opened into
a ``KeyPair`` in the core); it never leaves the service."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["DelegatedKeyRow"]


class DelegatedKeyRow(Base):
    __tablename__ = "sandbox_delegated_keys"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    card_id: Mapped[str] = mapped_column(String(200))
    funding_source_id: Mapped[str] = mapped_column(String(100), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("sandbox_internal_accounts.id"), index=True)
    user_id: Mapped[str] = mapped_column(String(100))
    public_key: Mapped[str] = mapped_column(String(66))
    private_key: Mapped[str] = mapped_column(Text)
    nickname: Mapped[str] = mapped_column(String(256))
    status: Mapped[str] = mapped_column(String(10))
    request_id: Mapped[str | None] = mapped_column(String(200), nullable=True, unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_delegated_keys_order", "created_at", "id"),)
