"""The tables of the customers' later operations: a customer's deletion (the customer row
stays, so that its transactions keep their customer) and the bulk CSV import jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["BulkImportJob", "CustomerDeletion"]


class CustomerDeletion(Base):
    """A deleted customer (``DELETE /customers/{customerId}``): the primary key makes one
    of concurrent deletions the one that happened."""

    __tablename__ = "sandbox_customer_deletions"

    customer_id: Mapped[str] = mapped_column(ForeignKey("sandbox_customers.id"), primary_key=True)
    deleted_at: Mapped[datetime] = mapped_column(UtcDateTime)


class BulkImportJob(Base):
    """A bulk CSV import (``POST /customers/bulk/csv``): its parsed rows wait in ``rows``
    until the worker imports them (``PENDING`` -> ``COMPLETED``; ``FAILED`` only when no row
    could be imported); ``errors`` holds the rows that failed."""

    __tablename__ = "sandbox_bulk_import_jobs"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    platform: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), index=True)
    rows: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    total: Mapped[int] = mapped_column(Integer)
    processed: Mapped[int] = mapped_column(Integer, default=0)
    successful: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
