"""Verification documents (``/documents``) of a customer or a beneficial owner.

The sandbox checks each file and keeps only its metadata, its size and its SHA-256 (never the
file: nothing reads it back). A file is PDF, JPEG or PNG by its first bytes (400
``UNSUITABLE_DOCUMENT`` for any other kind or an empty file), at most :data:`MAX_FILE_BYTES`
(400 ``INVALID_INPUT`` past it; the request body's limit, ``ewc serve --max-body-size``, 1 MiB by
default, answers 413 ``BODY_TOO_LARGE`` first). A document can always be deleted (the sandbox
submits none for verification); a deleted document is gone. A holder has at most 50 documents
(409 ``COLLECTION_LIMIT_REACHED``, counted with the holder's row locked); a deleted customer (or
its beneficial owner) takes none (404 ``USER_NOT_FOUND``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.engine import lock
from ..db.pages import PageRequest, page
from ..db.tables_kyc import BeneficialOwner, Document
from ..ids import new_id
from ..services import Services
from .collection_caps import MAX_DOCUMENTS, ensure_room
from .errors import Refusal, invalid, not_found
from .live_customers import live_customer

__all__ = [
    "MAX_FILE_BYTES",
    "DocumentFields",
    "UploadedFile",
    "create_document",
    "delete_document",
    "document_body",
    "find_document",
    "list_documents",
    "replace_document",
]

#: The published limit of one file: 10 MB.
MAX_FILE_BYTES: Final = 10 * 1024 * 1024
_KINDS: Final = (
    (b"%PDF-", "application/pdf"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
)


@dataclass(frozen=True)
class UploadedFile:
    """A file of a multipart body: its name and bytes."""

    name: str
    content: bytes


@dataclass(frozen=True)
class DocumentFields:
    """The checked metadata of an upload or a replacement (``holder`` None for a replacement)."""

    document_type: str
    country: str
    side: str | None
    document_number: str | None
    issuing_authority: str | None
    holder: str | None = None


def _media_type(upload: UploadedFile) -> str:
    if len(upload.content) > MAX_FILE_BYTES:
        raise invalid(f"The file is larger than {MAX_FILE_BYTES} bytes (10 MB).")
    for magic, media_type in _KINDS:
        if upload.content.startswith(magic):
            return media_type
    raise invalid("The file must be a PDF, JPEG or PNG.", "UNSUITABLE_DOCUMENT")


def document_body(row: Document) -> dict[str, Any]:
    """The published Document."""
    body: dict[str, Any] = {
        "id": row.id,
        "documentHolder": row.holder,
        "documentType": row.document_type,
        "country": row.country,
        "fileName": row.file_name,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    for name, value in (
        ("side", row.side),
        ("documentNumber", row.document_number),
        ("issuingAuthority", row.issuing_authority),
    ):
        if value is not None:
            body[name] = value
    return body


def _live_holder(db: Session, holder: str) -> None:
    """The holder exists, its customer is not deleted, and its row is locked until the
    transaction ends (the documents' cap is counted under it); else 404 ``USER_NOT_FOUND``."""
    if not holder.startswith("BeneficialOwner:"):
        live_customer(db, holder, locked=True)
        return
    owner = db.get(BeneficialOwner, holder)
    if owner is None:
        raise not_found("No customer or beneficial owner has this id.", "USER_NOT_FOUND")
    live_customer(db, owner.customer_id)
    lock(db, owner)


def _fill(row: Document, fields: DocumentFields, upload: UploadedFile) -> None:
    row.media_type = _media_type(upload)
    row.document_type = fields.document_type
    row.country = fields.country
    row.side = fields.side
    row.document_number = fields.document_number
    row.issuing_authority = fields.issuing_authority
    row.file_name = upload.name
    row.size = len(upload.content)
    row.sha256 = hashlib.sha256(upload.content).hexdigest()


def create_document(
    db: Session, services: Services, fields: DocumentFields, upload: UploadedFile
) -> dict[str, Any]:
    assert fields.holder is not None
    now = services.clock.now()
    row = Document(id=new_id("Document"), holder=fields.holder, created_at=now, updated_at=now)
    _fill(row, fields, upload)
    _live_holder(db, fields.holder)
    held = select(Document.id).where(Document.holder == fields.holder)
    ensure_room(db, held, MAX_DOCUMENTS, "documents per customer or beneficial owner")
    db.add(row)
    return document_body(row)


def _missing() -> Refusal:
    return not_found("No document has this id.")


def replace_document(
    db: Session, services: Services, document_id: str, fields: DocumentFields, upload: UploadedFile
) -> dict[str, Any]:
    """A new file and metadata for a document (its id, holder and creation time stay)."""
    row = db.get(Document, document_id)
    if row is None:
        raise _missing()
    _live_holder(db, row.holder)
    _fill(row, fields, upload)
    row.updated_at = services.clock.now()
    return document_body(row)


def find_document(db: Session, document_id: str) -> dict[str, Any]:
    row = db.get(Document, document_id)
    if row is None:
        raise _missing()
    return document_body(row)


def delete_document(db: Session, document_id: str) -> None:
    """One conditional ``DELETE`` decides (404 when it was already gone)."""
    removed = db.execute(delete(Document).where(Document.id == document_id))
    if getattr(removed, "rowcount", 0) != 1:
        raise _missing()


def list_documents(db: Session, request: PageRequest, holder: str | None) -> dict[str, Any]:
    """The documents, oldest first, of one holder or of all."""
    query = select(Document)
    if holder is not None:
        query = query.where(Document.holder == holder)
    return page(db, query, Document, document_body, request)
