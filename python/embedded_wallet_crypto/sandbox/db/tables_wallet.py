"""The wallet's tables: platform credentials, service secrets, customers, internal accounts,
credentials (AuthMethods) with their passkey data and pending passkey logins, and sessions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = [
    "CUSTOMER_PLATFORM_ID",
    "AuthMethod",
    "Customer",
    "InternalAccount",
    "OtpTarget",
    "PasskeyChallenge",
    "PasskeyData",
    "PlatformCredential",
    "ServiceSecret",
    "UsedRegistrationChallenge",
    "WalletSession",
]


class PlatformCredential(Base):
    """An HTTP Basic credential of the platform: only a salted SHA-256 of the secret is kept."""

    __tablename__ = "sandbox_platform_credentials"
    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    salt: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ServiceSecret(Base):
    """Values made once at the first start and shared by every process (the OTP hash key,
    the organization id)."""

    __tablename__ = "sandbox_service_secrets"
    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Customer(Base):
    __tablename__ = "sandbox_customers"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    # Unique per platform (one platform per database): see CUSTOMER_PLATFORM_ID below.
    platform_customer_id: Mapped[str] = mapped_column(String(200))
    customer_type: Mapped[str] = mapped_column(String(20))
    region: Mapped[str | None] = mapped_column(String(10), nullable=True)
    currencies: Mapped[list[str]] = mapped_column(JSON)
    email: Mapped[str | None] = mapped_column(String(320), nullable=True)
    phone_number: Mapped[str | None] = mapped_column(String(20), nullable=True)
    uma_address: Mapped[str] = mapped_column(String(300))
    details: Mapped[dict[str, Any]] = mapped_column(JSON)  # fullName, address, businessInfo...
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


#: A platform's own customer id names one customer: the database decides between two
#: concurrent creations (``POST /customers`` answers the second 409 CONFLICT). Also made on a
#: database created before it (``Database.create_tables``).
CUSTOMER_PLATFORM_ID = Index(
    "uq_sandbox_customers_platform_customer_id", Customer.platform_customer_id, unique=True
)


class InternalAccount(Base):
    """An internal account. ``wallet_secret`` is the embedded wallet's mnemonic (EMBEDDED_WALLET
    only), sealed to the service's key with the account's id as associated data
    (``domain.at_rest``: ``hpke1:<hex>``; a row of an earlier release holds it in the clear
    until the next start seals it)."""

    __tablename__ = "sandbox_internal_accounts"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), index=True)
    type: Mapped[str] = mapped_column(String(20))
    currency: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(20), default="ACTIVE")
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    wallet_secret: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The embedded wallet's privacy (``privateEnabled``); NULL is off (and for other types).
    private_enabled: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_accounts_order", "created_at", "id"),)


class AuthMethod(Base):
    """A credential (the interface's AuthMethod). ``subject`` identifies its owner: the email
    address (EMAIL_OTP), the E.164 phone number (SMS_OTP), ``issuer + " " + sub`` (OAUTH), or
    the WebAuthn credential id (PASSKEY, base64url)."""

    __tablename__ = "sandbox_auth_methods"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("sandbox_internal_accounts.id"), index=True)
    type: Mapped[str] = mapped_column(String(20))
    nickname: Mapped[str] = mapped_column(String(400))
    subject: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Authentication rule 4: at most one credential of each type per account.
    __table_args__ = (UniqueConstraint("account_id", "type", name="uq_sandbox_auth_method_type"),)


class PasskeyData(Base):
    """What a verified passkey registration leaves for later logins."""

    __tablename__ = "sandbox_passkeys"
    auth_method_id: Mapped[str] = mapped_column(
        ForeignKey("sandbox_auth_methods.id", ondelete="CASCADE"), primary_key=True
    )
    credential_id: Mapped[str] = mapped_column(String(1400))  # base64url
    public_key: Mapped[bytes] = mapped_column(LargeBinary)  # COSE key
    sign_count: Mapped[int] = mapped_column(BigInteger, default=0)
    transports: Mapped[list[str]] = mapped_column(JSON)


class UsedRegistrationChallenge(Base):
    """A passkey registration challenge that a credential was created with (single use)."""

    __tablename__ = "sandbox_used_registration_challenges"
    challenge_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    used_at: Mapped[datetime] = mapped_column(UtcDateTime)


class OtpTarget(Base):
    """The OTP target key of a credential's outstanding code (the encrypted EMAIL_OTP login):
    its public half went out in ``otpEncryptionTargetBundle``; used once."""

    __tablename__ = "sandbox_otp_targets"
    auth_method_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    private_key: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class PasskeyChallenge(Base):
    """A pending passkey login (``/challenge``): its session-creation body, used once."""

    __tablename__ = "sandbox_passkey_challenges"
    request_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    auth_method_id: Mapped[str] = mapped_column(String(100), index=True)
    body: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used: Mapped[bool] = mapped_column(Boolean, default=False)


class WalletSession(Base):
    """A session: the compressed public key later stamps must be made with, until expiry."""

    __tablename__ = "sandbox_sessions"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("sandbox_internal_accounts.id"), index=True)
    auth_method_id: Mapped[str] = mapped_column(String(100))
    type: Mapped[str] = mapped_column(String(20))
    nickname: Mapped[str] = mapped_column(String(400))
    public_key: Mapped[str] = mapped_column(String(66))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
