"""The control plane's tables (sandbox only): the service's state (the test clock's offset, the
seed's counters), the armed faults and the request log. Shared by every process on the
database, so that each sees what another was told."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Float, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["STATE_ID", "ControlState", "FaultRow", "RequestRecord"]

#: The id of the one :class:`ControlState` row.
STATE_ID = 1


class ControlState(Base):
    """One row: how far the test clock was moved (seconds added to the real time); the seed's
    ``generation`` (one more at each reset, so that ids made after a reset never repeat ids made
    before it) and ``ordinal`` (the number of the last changing request, in the order the
    database saw them)."""

    __tablename__ = "sandbox_control_state"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    clock_offset: Mapped[float] = mapped_column(Float, default=0.0)
    generation: Mapped[int] = mapped_column(BigInteger, default=0)
    ordinal: Mapped[int] = mapped_column(BigInteger, default=0)


class FaultRow(Base):
    """An armed fault: the next ``remaining`` calls of ``operation`` (``METHOD /template``)
    answer ``status`` (or are slowed by ``latency_ms``)."""

    __tablename__ = "sandbox_faults"
    operation: Mapped[str] = mapped_column(String(300), primary_key=True)
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    retry_after: Mapped[int | None] = mapped_column(Integer, nullable=True)
    latency_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    remaining: Mapped[int] = mapped_column(Integer)
    after_commit: Mapped[bool] = mapped_column(Boolean, default=False)


class RequestRecord(Base):
    """One answered request of the request log (never a header, a query or a body)."""

    __tablename__ = "sandbox_request_log"
    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(String(210))
    status: Mapped[int] = mapped_column(Integer)
    duration_ms: Mapped[float] = mapped_column(Float)
    code: Mapped[str | None] = mapped_column(String(100), nullable=True)
