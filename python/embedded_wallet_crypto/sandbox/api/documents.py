"""Documents: ``POST/GET /documents``, ``GET/PUT/DELETE /documents/{documentId}``
(``domain.documents``); uploads are ``multipart/form-data`` (``api.multipart``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, committed, require_platform
from ..domain import documents
from ..domain.documents import DocumentFields, UploadedFile
from ..domain.errors import invalid
from ..models.kyc import (
    DocumentList,
    DocumentOut,
    DocumentReplaceForm,
    DocumentType,
    DocumentUploadForm,
)
from .common import PathId, answer, cap_response, error_responses
from .multipart import Form, read_form, validated
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Documents"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 403),
)


def _form_body(holder: bool) -> dict[str, Any]:
    """The OpenAPI request body of an upload (``holder``) or a replacement."""
    properties: dict[str, Any] = {
        "file": {"type": "string", "format": "binary", "description": "PDF, JPEG or PNG"},
        "documentType": {"type": "string", "enum": [t.value for t in DocumentType]},
        "side": {"type": "string", "enum": ["FRONT", "BACK"]},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
        "documentNumber": {"type": "string", "maxLength": 100},
        "issuingAuthority": {"type": "string", "maxLength": 200},
    }
    required = ["file", "documentType", "country"]
    if holder:
        properties["documentHolder"] = {"type": "string", "maxLength": 200}
        required.append("documentHolder")
    schema = {"type": "object", "required": required, "properties": properties}
    return {
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": schema}}}
    }


def _parts(form: Form, model: type[DocumentReplaceForm]) -> tuple[DocumentFields, UploadedFile]:
    checked = validated(model, form.fields)
    if form.file is None:
        raise invalid("The form needs a file part (file).")
    fields = DocumentFields(
        document_type=checked.documentType.value,
        country=checked.country,
        side=checked.side.value if checked.side is not None else None,
        document_number=checked.documentNumber,
        issuing_authority=checked.issuingAuthority,
        holder=getattr(checked, "documentHolder", None),
    )
    return fields, form.file


_Form = Annotated[Form, Depends(read_form)]


@router.post(
    "/documents",
    status_code=201,
    response_model=DocumentOut,
    responses={**error_responses(404, 413), **cap_response("documents of the holder")},
    openapi_extra=_form_body(holder=True),
)
def upload_document(form: _Form, db: Db, services: Svc) -> JSONResponse:
    """Upload a document of a customer or a beneficial owner (its metadata is kept; the
    file is checked, hashed and dropped)."""
    fields, upload = _parts(form, DocumentUploadForm)
    return answer(db, documents.create_document(db, services, fields, upload), status=201)


@router.get("/documents", response_model=DocumentList)
def list_documents(
    db: Db,
    paging: Paging,
    documentHolder: Annotated[str | None, Query(max_length=200)] = None,
) -> JSONResponse:
    """The documents, oldest first, of one holder or of all."""
    return answer(db, documents.list_documents(db, paging, documentHolder))


@router.get("/documents/{documentId}", response_model=DocumentOut, responses=error_responses(404))
def get_document(documentId: PathId, db: Db) -> JSONResponse:
    """One document's metadata."""
    return answer(db, documents.find_document(db, documentId))


@router.put(
    "/documents/{documentId}",
    response_model=DocumentOut,
    responses=error_responses(404, 413),
    openapi_extra=_form_body(holder=False),
)
def replace_document(documentId: PathId, form: _Form, db: Db, services: Svc) -> JSONResponse:
    """Replace a document's file and metadata (its holder stays)."""
    fields, upload = _parts(form, DocumentReplaceForm)
    return answer(db, documents.replace_document(db, services, documentId, fields, upload))


@router.delete("/documents/{documentId}", status_code=204, responses=error_responses(404))
def delete_document(documentId: PathId, db: Db) -> Response:
    """Delete a document."""
    documents.delete_document(db, documentId)
    return committed(db, Response(status_code=204))
