"""The tables of cards and stablecoins: cards and their card transactions; stablecoin provider
account links, registered stablecoins (with the supply the sandbox keeps) and their mint and
burn operations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = [
    "Card",
    "CardTransaction",
    "Stablecoin",
    "StablecoinOperation",
    "StablecoinProviderAccount",
]


class Card(Base):
    """A card: its cardholder (a customer), its ordered funding sources (internal account ids)
    and its state."""

    __tablename__ = "sandbox_cards"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    platform: Mapped[str] = mapped_column(String(200))
    cardholder_id: Mapped[str] = mapped_column(String(100), index=True)
    platform_card_id: Mapped[str] = mapped_column(String(200), index=True)
    state: Mapped[str] = mapped_column(String(20))
    state_reason: Mapped[str | None] = mapped_column(String(30), nullable=True)
    brand: Mapped[str] = mapped_column(String(20))
    form: Mapped[str] = mapped_column(String(20))
    last4: Mapped[str] = mapped_column(String(4))
    exp_month: Mapped[int] = mapped_column(Integer)
    exp_year: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(10))
    funding_sources: Mapped[list[str]] = mapped_column(JSON)
    max_spend: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_cards_order", "created_at", "id"),)


class CardTransaction(Base):
    """A card transaction: the authorization and what reconciled against it. ``held`` is what
    its funding source has been debited for and not given back (smallest units); ``version``
    makes each change a conditional update (one simulation of two at once wins)."""

    __tablename__ = "sandbox_card_transactions"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    card_id: Mapped[str] = mapped_column(String(100), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20))
    direction: Mapped[str] = mapped_column(String(10))
    account_id: Mapped[str] = mapped_column(String(100))
    currency: Mapped[str] = mapped_column(String(10))
    merchant: Mapped[dict[str, Any]] = mapped_column(JSON)
    authorized: Mapped[int] = mapped_column(BigInteger)
    settled: Mapped[int] = mapped_column(BigInteger, default=0)
    refunded: Mapped[int] = mapped_column(BigInteger, default=0)
    held: Mapped[int] = mapped_column(BigInteger, default=0)
    pulls: Mapped[int] = mapped_column(Integer, default=0)
    pulled: Mapped[int] = mapped_column(BigInteger, default=0)
    clearings: Mapped[int] = mapped_column(Integer, default=0)
    refunds: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class StablecoinProviderAccount(Base):
    """A linked stablecoin provider account (the secret is never stored: only its SHA-256,
    so that the same link can be recognised)."""

    __tablename__ = "sandbox_stablecoin_provider_accounts"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    platform: Mapped[str] = mapped_column(String(200))
    provider: Mapped[str] = mapped_column(String(20))
    provider_account_id: Mapped[str] = mapped_column(String(200))
    environment: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    client_id: Mapped[str] = mapped_column(String(300))
    secret_hash: Mapped[str] = mapped_column(String(64))
    verified_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (
        Index("ix_sandbox_stablecoin_links_order", "created_at", "id"),
        Index(
            "ux_sandbox_stablecoin_link", "platform", "provider", "provider_account_id", unique=True
        ),
    )


class Stablecoin(Base):
    """A registered stablecoin. ``supply`` is what its completed mints made less what its burns
    took (smallest units): a burn takes it in one conditional update, never below zero."""

    __tablename__ = "sandbox_stablecoins"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    platform: Mapped[str] = mapped_column(String(200))
    provider_account_id: Mapped[str] = mapped_column(String(100))
    provider_token: Mapped[str] = mapped_column(String(200))
    network_token: Mapped[str] = mapped_column(String(300))
    network: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(200))
    symbol: Mapped[str] = mapped_column(String(20))
    decimals: Mapped[int] = mapped_column(Integer)
    base_currency: Mapped[str] = mapped_column(String(10))
    environment: Mapped[str] = mapped_column(String(20))
    supply: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (
        Index("ix_sandbox_stablecoins_order", "created_at", "id"),
        Index("ux_sandbox_stablecoin_token", "platform", "network", "network_token", unique=True),
    )


class StablecoinOperation(Base):
    """A mint or a burn of a stablecoin."""

    __tablename__ = "sandbox_stablecoin_operations"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    stablecoin_id: Mapped[str] = mapped_column(String(100), index=True)
    operation_type: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(20))
    amount: Mapped[int] = mapped_column(BigInteger)
    source: Mapped[dict[str, Any]] = mapped_column(JSON)
    destination: Mapped[dict[str, Any]] = mapped_column(JSON)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON)  # instructions, delivery, expiry
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_stablecoin_ops_order", "created_at", "id"),)
