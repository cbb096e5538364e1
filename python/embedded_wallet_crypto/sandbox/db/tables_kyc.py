"""The KYC/KYB tables: a business customer's beneficial owners, and the documents uploaded for
a customer or a beneficial owner (their metadata, size and SHA-256; never the file itself)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["BeneficialOwner", "Document"]


class BeneficialOwner(Base):
    """A beneficial owner, director or officer of a business customer."""

    __tablename__ = "sandbox_beneficial_owners"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), index=True)
    roles: Mapped[list[str]] = mapped_column(JSON)
    ownership_percentage: Mapped[int] = mapped_column(Integer)
    personal_info: Mapped[dict[str, Any]] = mapped_column(JSON)
    kyc_status: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_beneficial_owners_order", "created_at", "id"),)


class Document(Base):
    """An uploaded document's metadata; the file is checked and counted, then dropped."""

    __tablename__ = "sandbox_documents"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    holder: Mapped[str] = mapped_column(String(100), index=True)
    document_type: Mapped[str] = mapped_column(String(40))
    side: Mapped[str | None] = mapped_column(String(10), nullable=True)
    country: Mapped[str] = mapped_column(String(2))
    document_number: Mapped[str | None] = mapped_column(String(100), nullable=True)
    issuing_authority: Mapped[str | None] = mapped_column(String(200), nullable=True)
    file_name: Mapped[str] = mapped_column(String(255))
    media_type: Mapped[str] = mapped_column(String(40))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_documents_order", "created_at", "id"),)
