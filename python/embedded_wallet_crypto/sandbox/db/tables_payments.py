"""The money side's tables: external accounts, receiver lookups, quotes, transactions and their
scheduled steps, idempotency keys and the platform configuration (webhooks: ``tables_events``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

#: The width of a quote's and a transaction's status (20 before PENDING_AUTHORIZATION; an
#: older PostgreSQL database is widened at start, ``widened_columns``).
STATUS_LENGTH = 30

__all__ = [
    "STATUS_LENGTH",
    "ExternalAccount",
    "IdempotencyRecord",
    "PlatformConfig",
    "Quote",
    "ReceiverLookup",
    "Transaction",
]


class ExternalAccount(Base):
    """An external (bank) account of a customer, or of the platform (``customer_id`` NULL)."""

    __tablename__ = "sandbox_external_accounts"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    currency: Mapped[str] = mapped_column(String(10))
    account_info: Mapped[dict[str, Any]] = mapped_column(JSON)
    identifier: Mapped[str] = mapped_column(String(300))  # the primary identifier (suffixes)
    platform_account_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    status: Mapped[str] = mapped_column(String(20))
    verification_status: Mapped[str] = mapped_column(String(40))
    verified_name: Mapped[str | None] = mapped_column(String(300), nullable=True)
    # The customer id when this is the customer's default UMA deposit account, else NULL: the
    # unique index makes "at most one per customer" hold across processes.
    default_uma_of: Mapped[str | None] = mapped_column(String(100), nullable=True, unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_external_order", "created_at", "id"),)


class Quote(Base):
    """A quote. An embedded-wallet source keeps the ``payloadToSign`` its execution must be
    stamped over; the signed-retry challenge of that payload is ``extra["signedRequestId"]``
    (its single use is the library's claim, as for every signed payload)."""

    __tablename__ = "sandbox_quotes"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    platform: Mapped[str] = mapped_column(String(200))
    agent_id: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    customer_id: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    source: Mapped[dict[str, Any]] = mapped_column(JSON)
    destination: Mapped[dict[str, Any]] = mapped_column(JSON)
    source_kind: Mapped[str] = mapped_column(String(20))  # account type or REALTIME_FUNDING
    sending_currency: Mapped[str] = mapped_column(String(10))
    receiving_currency: Mapped[str] = mapped_column(String(10))
    total_sending: Mapped[int] = mapped_column(BigInteger)
    total_receiving: Mapped[int] = mapped_column(BigInteger)
    fees: Mapped[int] = mapped_column(BigInteger)
    exchange_rate: Mapped[float] = mapped_column(Float)
    rate_details: Mapped[dict[str, Any]] = mapped_column(JSON)
    payment_instructions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    payload_to_sign: Mapped[str | None] = mapped_column(Text, nullable=True)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON)  # description, purposeOfPayment, ...
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH))  # PENDING_AUTHORIZATION: 21
    transaction_id: Mapped[str] = mapped_column(String(100))
    executed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Transaction(Base):
    """A transaction, with the steps still to come (``schedule``: ``[{at, status,
    failureReason, refund, credit}]``, ``at`` in epoch seconds) and ``next_at`` of the first."""

    __tablename__ = "sandbox_transactions"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    type: Mapped[str] = mapped_column(String(10))  # INCOMING, OUTGOING
    kind: Mapped[str] = mapped_column(String(20))  # QUOTE, TRANSFER_IN, TRANSFER_OUT, UMA
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH))
    customer_id: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    platform_customer_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    agent_id: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    quote_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    source_account_id: Mapped[str | None] = mapped_column(String(300), nullable=True)
    source_currency: Mapped[str | None] = mapped_column(String(10), nullable=True)
    sent_amount: Mapped[int] = mapped_column(BigInteger, default=0)
    destination_account_id: Mapped[str | None] = mapped_column(String(300), nullable=True)
    destination_currency: Mapped[str] = mapped_column(String(10))
    received_amount: Mapped[int] = mapped_column(BigInteger)
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    reference: Mapped[str] = mapped_column(String(100), index=True)
    failure_reason: Mapped[str | None] = mapped_column(String(60), nullable=True)
    extra: Mapped[dict[str, Any]] = mapped_column(JSON)
    schedule: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    next_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    settled_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    __table_args__ = (Index("ix_sandbox_transactions_order", "created_at", "id"),)


class ReceiverLookup(Base):
    """A receiver lookup (``GET /receiver/...``): what a quote's ``lookupId`` names."""

    __tablename__ = "sandbox_lookups"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    #: ``UMA_ADDRESS`` (``target`` is the address) or ``ACCOUNT`` (the external account id).
    kind: Mapped[str] = mapped_column(String(20))
    target: Mapped[str] = mapped_column(String(300))
    customer_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    required_payer_fields: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class IdempotencyRecord(Base):
    """An ``Idempotency-Key`` of a caller (the platform credential or the agent), bound to the
    fingerprint of its first request (``domain.idempotency``). The primary key makes one
    request of concurrent ones claim it. ``IN_PROGRESS`` while that request runs
    (``expires_at``: the end of its lease), then ``DONE`` with the stored response
    (``expires_at``: the end of the retention)."""

    __tablename__ = "sandbox_idempotency_keys"
    caller: Mapped[str] = mapped_column(String(300), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(20))
    token: Mapped[str] = mapped_column(String(32))
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    body: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)


class PlatformConfig(Base):
    """The platform configuration: one row, made at the first start."""

    __tablename__ = "sandbox_platform_config"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    uma_domain: Mapped[str] = mapped_column(String(300))
    proxy_uma_subdomain: Mapped[str] = mapped_column(String(300))
    webhook_endpoint: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    supported_currencies: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    is_regulated: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
