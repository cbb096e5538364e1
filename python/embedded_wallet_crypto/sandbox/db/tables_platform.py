"""The platform's own tables: the API tokens it creates (``/tokens``; only a keyed hash of each
secret is kept) and its internal accounts (one per supported currency)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["ApiToken", "PlatformInternalAccount"]


class ApiToken(Base):
    """An API token: ``client_id`` is the HTTP Basic user name, ``secret_hash`` the
    HMAC-SHA256 of the secret under ``salt`` (the secret itself is never stored). A deleted
    token's row is gone: the check of every request reads this table."""

    __tablename__ = "sandbox_api_tokens"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    permissions: Mapped[list[str]] = mapped_column(JSON)
    salt: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_api_tokens_order", "created_at", "id"),)


class PlatformInternalAccount(Base):
    """An internal account of the platform itself: at most one per currency (the unique
    ``currency`` decides it across processes)."""

    __tablename__ = "sandbox_platform_internal_accounts"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    currency: Mapped[str] = mapped_column(String(10), unique=True)
    type: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
