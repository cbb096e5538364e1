"""The bulk CSV import of customers: ``POST /customers/bulk/csv`` checks the file and keeps its
rows as a ``PENDING`` job; the background worker imports the job's rows (each row a customer, as
``POST /customers`` makes one, or an entry of ``errors``) and ends it ``COMPLETED`` (``FAILED``
when no row could be imported), announcing it in the same database transaction
(``BULK_UPLOAD.COMPLETED`` or ``BULK_UPLOAD.FAILED`` with the job as ``data``).

Limits: the request is bounded by ``--max-body-size`` (413 ``BODY_TOO_LARGE``); the file has at
most :data:`MAX_ROWS` rows under its header (400 ``CSV_TOO_MANY_ROWS``) and at least one (400
``CSV_EMPTY``); it is UTF-8 text (400 ``INVALID_CSV``) with the three columns every row needs
(400 ``CSV_MISSING_COLUMNS``); a cell longer than :data:`MAX_CELL` characters fails its row.

A job is claimed by one worker (``PENDING`` -> ``PROCESSING`` where it is still ``PENDING``)
and imported in that same database transaction: a worker that stops half-way leaves the job
``PENDING`` with nothing imported, for the next tick.
"""

from __future__ import annotations

import csv
import io
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ...keys import KeyPair
from ..clock import Clock, iso
from ..db.engine import Database
from ..db.tables_customer_ops import BulkImportJob
from ..ids import new_id
from ..models.customers import CustomerCreate
from .customers import add_customer
from .errors import Refusal, invalid, not_found
from .webhooks import emit

__all__ = [
    "MAX_CELL",
    "MAX_ROWS",
    "REQUIRED",
    "import_due",
    "job_body",
    "read_upload",
    "start_job",
]

#: The most rows one file may hold (under its header).
MAX_ROWS = 1000
#: The longest cell, in characters.
MAX_CELL = 300
#: The columns every file must have.
REQUIRED = ("umaAddress", "platformCustomerId", "customerType")
_INDIVIDUAL = ("fullName", "birthDate", "addressLine1", "city", "state", "postalCode", "country")
_BUSINESS = ("businessLegalName", "addressLine1", "city", "state", "postalCode", "country")
#: Jobs one worker tick imports at most.
_BATCH = 2


def read_upload(content_type: str | None, body: bytes) -> list[dict[str, str]]:
    """The rows of the ``file`` part of a ``multipart/form-data`` body (400 otherwise)."""
    if not content_type or not content_type.lower().startswith("multipart/form-data"):
        raise invalid("Send the CSV as the file part of a multipart/form-data body.")
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1", "replace")
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    part = None
    if isinstance(message, EmailMessage) and message.is_multipart():
        for candidate in message.iter_parts():
            if (
                isinstance(candidate, EmailMessage)
                and candidate.get_param("name", header="content-disposition") == "file"
            ):
                part = candidate
                break
    if part is None:
        raise invalid("The multipart body has no file part.")
    raw = part.get_payload(decode=True)
    if not isinstance(raw, bytes):
        raise invalid("The file part is empty.", "CSV_EMPTY")
    return _rows(raw)


def _rows(raw: bytes) -> list[dict[str, str]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise invalid("The CSV file is not UTF-8 text.", "INVALID_CSV") from None
    if "\x00" in text:
        raise invalid("The CSV file contains a NUL character.", "INVALID_CSV")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [name.strip() for name in reader.fieldnames or []]
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            raise invalid(f"The CSV header lacks {', '.join(missing)}.", "CSV_MISSING_COLUMNS")
        reader.fieldnames = header
        rows: list[dict[str, str]] = []
        for row in reader:
            if len(rows) == MAX_ROWS:
                raise invalid(f"The CSV has more than {MAX_ROWS} rows.", "CSV_TOO_MANY_ROWS")
            rows.append({k: (v or "").strip() for k, v in row.items() if isinstance(k, str)})
    except csv.Error as error:
        raise invalid(f"The CSV file is not valid: {str(error)[:100]}.", "INVALID_CSV") from None
    if not rows:
        raise invalid("The CSV file has no rows under its header.", "CSV_EMPTY")
    return rows


def start_job(db: Session, platform: str, rows: list[dict[str, str]]) -> dict[str, Any]:
    """A ``PENDING`` job of ``rows``; the 202 answer."""
    job = BulkImportJob(
        id=new_id("Job"),
        platform=platform,
        status="PENDING",
        rows=rows,
        total=len(rows),
        processed=0,
        successful=0,
        failed=0,
        errors=[],
        created_at=Clock.now(),
        completed_at=None,
    )
    db.add(job)
    db.flush()
    return {"jobId": job.id, "status": job.status}


def job_body(db: Session, job_id: str) -> dict[str, Any]:
    """The job's published BulkCustomerImportJob (404 ``BULK_UPLOAD_JOB_NOT_FOUND``)."""
    job = db.get(BulkImportJob, job_id)
    if job is None:
        raise not_found("No bulk import job has this id.", "BULK_UPLOAD_JOB_NOT_FOUND")
    body: dict[str, Any] = {
        "id": job.id,
        "status": job.status,
        "progress": {
            "total": job.total,
            "processed": job.processed,
            "successful": job.successful,
            "failed": job.failed,
        },
    }
    if job.errors:
        body["errors"] = list(job.errors)
    if job.completed_at is not None:
        body["completedAt"] = iso(job.completed_at)
    return body


def _customer_of(row: dict[str, str]) -> CustomerCreate:
    """The row as a customer to create; ValueError naming what is wrong."""
    long = [name for name, value in row.items() if len(value) > MAX_CELL]
    if long:
        raise ValueError(f"{long[0][:50]} is longer than {MAX_CELL} characters")
    kind = row.get("customerType", "")
    needed = {"INDIVIDUAL": _INDIVIDUAL, "BUSINESS": _BUSINESS}.get(kind)
    if needed is None:
        raise ValueError("customerType must be INDIVIDUAL or BUSINESS")
    absent = [name for name in ("umaAddress", "platformCustomerId", *needed) if not row.get(name)]
    if absent:
        raise ValueError(f"{', '.join(absent)} missing")
    address = {
        "line1": row["addressLine1"],
        "line2": row.get("addressLine2") or None,
        "city": row["city"],
        "state": row["state"],
        "postalCode": row["postalCode"],
        "country": row["country"],
    }
    fields: dict[str, Any] = {
        "customerType": kind,
        "platformCustomerId": row["platformCustomerId"],
        "umaAddress": row["umaAddress"],
        "address": {k: v for k, v in address.items() if v},
    }
    if kind == "INDIVIDUAL":
        fields.update(fullName=row["fullName"], birthDate=row["birthDate"])
        if row.get("email"):
            fields["email"] = row["email"]
    else:
        info = {
            "legalName": row["businessLegalName"],
            "registrationNumber": row.get("businessRegistrationNumber") or None,
            "taxId": row.get("businessTaxId") or None,
        }
        fields["businessInfo"] = {k: v for k, v in info.items() if v}
    try:
        return CustomerCreate.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise ValueError(f"{where}: {first.get('msg', 'is not valid')}") from None


def _import(db: Session, job: BulkImportJob, sealing_key: KeyPair) -> None:
    now = Clock.now()
    errors: list[dict[str, Any]] = []
    successful = 0
    for number, row in enumerate(job.rows, start=1):
        given = row.get("platformCustomerId", "")
        # An id past the cell limit is not kept (the row is refused for it): its row number is.
        correlation = given if 0 < len(given) <= MAX_CELL else f"row {number}"
        try:
            add_customer(db, now, _customer_of(row), sealing_key)
            successful += 1
        except (ValueError, Refusal) as error:
            errors.append(
                {"correlationId": correlation, "code": "INVALID_INPUT", "message": str(error)}
            )
    job.processed, job.successful, job.failed = job.total, successful, len(errors)
    job.errors = errors
    job.status = "COMPLETED" if successful else "FAILED"
    job.completed_at = now
    job.rows = []  # imported: the file's rows are not kept
    db.flush()
    emit(db, f"BULK_UPLOAD.{job.status}", job_body(db, job.id))  # with the change


def import_due(database: Database, sealing_key: KeyPair) -> int:
    """Import the pending jobs (a few per call), the wallets' mnemonics sealed with
    ``sealing_key`` (``at_rest``); returns how many were imported."""
    done = 0
    with database.reads() as connection:  # every tick: one statement, no transaction
        pending = list(
            connection.scalars(
                select(BulkImportJob.id)
                .where(BulkImportJob.status == "PENDING")
                .order_by(BulkImportJob.created_at)
                .limit(_BATCH)
            ).all()
        )
    for job_id in pending:
        with database.sessions() as db:
            claimed = db.execute(
                update(BulkImportJob)
                .where(BulkImportJob.id == job_id, BulkImportJob.status == "PENDING")
                .values(status="PROCESSING")
            )
            if getattr(claimed, "rowcount", 0) != 1:
                db.rollback()
                continue  # another process has it
            job = db.get(BulkImportJob, job_id)
            if job is None:
                continue
            db.refresh(job)
            _import(db, job, sealing_key)
            db.commit()
            done += 1
    return done
