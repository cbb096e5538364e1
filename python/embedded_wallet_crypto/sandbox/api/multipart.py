"""A ``multipart/form-data`` body (the document uploads), read with the standard library's
MIME parser (``email``): its text fields and its one file.

Refused with 400 ``INVALID_INPUT``: another content type, a body that is not a form, more than
:data:`MAX_PARTS` parts, a field given twice, a text field that is not UTF-8 or longer than
:data:`MAX_FIELD_CHARS`, a ``file`` without a file name. Fields the operation does not know are
ignored. The body's size is bounded before it is read (``ewc serve --max-body-size``: 413).
"""

from __future__ import annotations

import email.errors
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from typing import Any, Final

from fastapi import Request
from pydantic import BaseModel, ValidationError

from ..domain.documents import UploadedFile
from ..domain.errors import invalid
from ..models.fields import storable_text

__all__ = ["MAX_FIELD_CHARS", "MAX_PARTS", "Form", "form_of", "read_form", "validated"]

MAX_PARTS: Final = 20
MAX_FIELD_CHARS: Final = 1000
MAX_FILE_NAME: Final = 255


@dataclass(frozen=True)
class Form:
    """The text fields and the ``file`` part of a form."""

    fields: dict[str, str]
    file: UploadedFile | None


def _text(name: str, raw: bytes) -> str:
    try:
        value = raw.decode("utf-8")
        storable_text(value)
    except (UnicodeDecodeError, ValueError):
        raise invalid(f"The form field {name[:50]} is not text that can be stored.") from None
    if len(value) > MAX_FIELD_CHARS:
        raise invalid(f"The form field {name[:50]} is longer than {MAX_FIELD_CHARS} characters.")
    return value


def _file_name(raw: str | None) -> str:
    name = (raw or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name:
        raise invalid("The form's file part needs a file name (filename=...).")
    if len(name) > MAX_FILE_NAME:
        raise invalid(f"The file name is longer than {MAX_FILE_NAME} characters.")
    try:
        return storable_text(name)
    except ValueError:
        raise invalid("The file name is not text that can be stored.") from None


def form_of(content_type: str | None, body: bytes) -> Form:
    """The form in ``body``; 400 for anything that is not one (see the module)."""
    if not content_type or not content_type.lower().startswith("multipart/form-data"):
        raise invalid("The request body must be multipart/form-data.")
    try:
        message = BytesParser(policy=policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
        )
        parts = list(message.iter_parts()) if message.is_multipart() else []
    except (ValueError, LookupError, TypeError, UnicodeError, email.errors.MessageError):
        parts = []
    if not parts:
        raise invalid("The request body is not a multipart/form-data form.")
    if len(parts) > MAX_PARTS:
        raise invalid(f"The form has more than {MAX_PARTS} parts.")
    fields: dict[str, str] = {}
    upload: UploadedFile | None = None
    for part in parts:
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str) or not name:
            raise invalid("Every form part needs a name (Content-Disposition: form-data).")
        if name in fields or (name == "file" and upload is not None):
            raise invalid(f"The form field {name[:50]} is given twice.")
        payload = part.get_payload(decode=True)
        raw = payload if isinstance(payload, bytes) else b""
        if name == "file":
            upload = UploadedFile(_file_name(part.get_filename()), raw)
        else:
            fields[name] = _text(name, raw)
    return Form(fields, upload)


async def read_form(request: Request) -> Form:
    """The request's form (a route dependency: the body is read here, once)."""
    return form_of(request.headers.get("content-type"), await request.body())


def validated(model: type[BaseModel], fields: dict[str, Any]) -> Any:
    """``fields`` as ``model``; 400 ``INVALID_INPUT`` naming the first field that fails."""
    try:
        return model.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "form"
        message = str(first.get("msg", "is not valid"))[:200]
        raise invalid(f"Invalid form field {where}: {message}.") from None
