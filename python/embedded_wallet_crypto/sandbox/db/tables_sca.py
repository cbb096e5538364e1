"""The tables of strong customer authentication (``/sca/*``), contact verification and
beneficiary trust: a customer's SCA profile (contact statuses, failed logins, lockout, SCA
session), the enrolled factors, the pending ceremonies (an enrollment, a login, a trust
change), the 2FA resets and the trusted beneficiaries.

A TOTP factor's secret is kept sealed to the service's key (``domain.at_rest``), a pending
enrollment's as its SHA-256 only; the factor's last accepted time step lives in the library's
store (``ewc.totp``), where the single use of each code is decided."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["ScaFactorRow", "ScaPending", "ScaProfile", "ScaReset", "TrustedBeneficiary"]


class ScaProfile(Base):
    """One customer's SCA state. ``email_status``/``phone_status``: PENDING or VERIFIED
    (contact verification); ``failed_attempts``, ``locked_until`` and ``suspended``: the
    lockout; ``session_expires_at``: the end of the customer's SCA login session."""

    __tablename__ = "sandbox_sca_profiles"
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), primary_key=True)
    email_status: Mapped[str] = mapped_column(String(10), default="PENDING")
    phone_status: Mapped[str] = mapped_column(String(10), default="PENDING")
    failed_attempts: Mapped[int] = mapped_column(Integer, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    session_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class ScaFactorRow(Base):
    """An enrolled factor (TOTP or PASSKEY; SMS_OTP is the customer's phone, not a row). One
    of each kind per customer (the unique index decides between concurrent enrollments)."""

    __tablename__ = "sandbox_sca_factors"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), index=True)
    factor: Mapped[str] = mapped_column(String(10))
    name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    secret: Mapped[str | None] = mapped_column(Text, nullable=True)  # TOTP: sealed (at_rest)
    credential_id: Mapped[str | None] = mapped_column(String(1400), nullable=True)  # base64url
    public_key: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)  # COSE
    sign_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ux_sandbox_sca_factor_kind", "customer_id", "factor", unique=True),)


class ScaPending(Base):
    """A ceremony waiting for its proof: ``kind`` ENROLL (``secret``: the TOTP secret's SHA-256;
    ``challenge``: a passkey registration's), LOGIN, TRUST or UNTRUST (``subject``: the
    external account), QUOTE (``subject``: the quote). Used once (``used``, set by a
    conditional update)."""

    __tablename__ = "sandbox_sca_pending"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10))
    factor: Mapped[str] = mapped_column(String(10))
    subject: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    secret: Mapped[str | None] = mapped_column(String(300), nullable=True, index=True)
    challenge: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used: Mapped[bool] = mapped_column(Boolean, default=False)


class ScaReset(Base):
    """A 2FA reset (liveness-gated; simulated)."""

    __tablename__ = "sandbox_sca_resets"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), index=True)
    factor: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class TrustedBeneficiary(Base):
    """An external account the customer trusts (sends to it skip per-transaction SCA)."""

    __tablename__ = "sandbox_trusted_beneficiaries"
    external_account_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), index=True)
    trusted_at: Mapped[datetime] = mapped_column(UtcDateTime)
