"""Error bodies: every error is ``{"status": int, "code": "UPPER_CASE", "reason": "..."}``.

Request validation failures are 400 with a reason naming the field (a body that is not JSON, or
nested past the parser's depth, too); a body over the size limit is 413 ``BODY_TOO_LARGE``;
unknown routes and methods are 404 and 405 in the same shape; the library's exceptions carry
their own status and code (401s as the interface's ``UNAUTHORIZED`` with its reasons); anything
else is a bug in the service: it is logged and answered with a plain 500.
"""

from __future__ import annotations

import http
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DataError, StatementError

from ..errors import OidcError, OtpError, PasskeyError, StampError, WalletCryptoError

__all__ = [
    "ApiError",
    "ErrorOut",
    "body_too_large",
    "error_body",
    "error_response",
    "error_responses",
    "install_error_handlers",
    "library_error",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: The interface's 401 reasons, per failed check (its Errors table).
INVALID_OTP = "Invalid OTP code"
INVALID_PASSKEY = "Invalid passkey signature"
INVALID_OIDC = "Invalid OIDC token"
INVALID_SIGNATURE = "Invalid Service-Wallet-Signature"


class ErrorOut(BaseModel):
    """Every error body of the service."""

    status: int
    code: str
    reason: str


_DESCRIPTIONS = {
    400: "The request is not valid (the reason names the field or the rule).",
    413: "The request body is larger than the service's limit (BODY_TOO_LARGE).",
    401: "Platform credentials, or a credential, signature or request id, failed a check.",
    404: "No such resource.",
    429: "Too many requests; wait the seconds of the Retry-After header.",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entries of these error statuses (for a router or a route)."""
    return {
        status: {"model": ErrorOut, "description": _DESCRIPTIONS[status]} for status in statuses
    }


class ApiError(Exception):
    """An error answer of the service: HTTP ``status``, a stable ``code``, a one-sentence
    ``reason``, and optional extra ``headers`` (``Retry-After``)."""

    def __init__(
        self, status: int, code: str, reason: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.code = code
        self.reason = reason
        self.headers = headers or {}


def error_body(status: int, code: str, reason: str) -> dict[str, Any]:
    return {"status": status, "code": code, "reason": reason}


def error_response(error: ApiError) -> JSONResponse:
    """The error as its JSON response (status, headers and body)."""
    return JSONResponse(
        error_body(error.status, error.code, error.reason),
        status_code=error.status,
        headers=error.headers,
    )


def library_error(error: WalletCryptoError) -> ApiError:
    """The answer to a library exception: its status; 401s as ``UNAUTHORIZED`` with the
    interface's reason for the failed check."""
    status = error.status if 400 <= error.status < 600 else 400
    headers: dict[str, str] = {}
    retry_after = getattr(error, "retry_after", None)
    if isinstance(retry_after, int):
        headers["Retry-After"] = str(retry_after)
    if status != 401:
        return ApiError(status, error.code, error.reason, headers)
    reason = error.reason
    if isinstance(error, OidcError):
        reason = INVALID_OIDC
    elif isinstance(error, OtpError) and error.code == "OTP_INVALID":
        reason = INVALID_OTP
    elif isinstance(error, PasskeyError) and error.code == "PASSKEY_SIGNATURE_INVALID":
        reason = INVALID_PASSKEY
    elif isinstance(error, StampError) and error.code != "WALLET_SIGNATURE_MISSING":
        reason = INVALID_SIGNATURE
    return ApiError(401, "UNAUTHORIZED", reason, headers)


def _location(loc: Any) -> str:
    parts = [str(part) for part in loc if part not in ("body",)] if isinstance(loc, tuple) else []
    return ".".join(parts) or "body"


async def _validation(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    # Only each problem's place, type and message are read: its input (which may be nested
    # past any encoder's recursion) is never encoded or echoed.
    problems = list(error.errors())
    if problems and all(tuple(problem.get("loc", ()))[:1] == ("path",) for problem in problems):
        # An id no resource can have (too long for any id): no such resource, as for any other.
        return error_response(ApiError(404, "NOT_FOUND", "No such resource."))
    if problems:
        first = problems[0]
        where = tuple(first.get("loc", ()))
        kind = where[0] if where else "body"
        what = {"query": "query parameter", "path": "path parameter", "header": "header"}.get(
            str(kind), "field"
        )
        message = str(first.get("msg", "is not valid"))[:200].removeprefix("Value error, ")
        if first.get("type") == "json_invalid":
            reason = "The request body is not valid JSON."
        elif first.get("type") in ("model_attributes_type", "dict_type") and len(where) <= 1:
            reason = "The request body must be a JSON object (Content-Type: application/json)."
        elif len(where) <= 1:
            reason = f"The request body is not valid: {message}."
        else:
            reason = (
                f"Invalid {what} {_location(where[1:] if kind != 'body' else where)}: {message}."
            )
    else:
        reason = "The request is not valid."
    return error_response(ApiError(400, "INVALID_INPUT", reason))


async def _api_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, ApiError)
    return error_response(error)


async def _library_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, WalletCryptoError)
    return error_response(library_error(error))


_HTTP_CODES = {
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    401: "UNAUTHORIZED",
    413: "BODY_TOO_LARGE",
}


def body_too_large(limit: int) -> ApiError:
    """413: the request body passes ``limit`` bytes (``ewc serve --max-body-size``)."""
    return ApiError(
        413,
        "BODY_TOO_LARGE",
        f"The request body is larger than {limit} bytes.",
    )


def _unparsable(error: Exception) -> ApiError:
    """A body the JSON parser gave up on (its error is the cause of the framework's 400)."""
    if isinstance(error.__cause__, RecursionError):
        return ApiError(400, "INVALID_INPUT", "The request body is nested too deeply.")
    return ApiError(400, "INVALID_INPUT", "The request body is not valid JSON.")


async def _http_status(request: Request, error: Exception) -> JSONResponse:
    status = int(getattr(error, "status_code", 500))
    if status == 413:
        return error_response(body_too_large(request.app.state.settings.max_body_size))
    if status == 400 and error.__cause__ is not None:
        return error_response(_unparsable(error))
    code = _HTTP_CODES.get(status) or http.HTTPStatus(status).name
    reason = {
        404: "No such resource or route.",
        405: "The method is not allowed on this path.",
    }.get(status, f"{http.HTTPStatus(status).phrase}.")
    headers = dict(getattr(error, "headers", None) or {})
    if status == 405:  # every method of every route on this path, not only the first route's
        allowed = {
            method
            for method in ("GET", "POST", "PUT", "PATCH", "DELETE")
            for route in request.app.routes
            if route.matches({**request.scope, "method": method})[0].name == "FULL"
        }
        if allowed:
            headers["Allow"] = ", ".join(sorted(allowed))
    return error_response(ApiError(status, code, reason, headers))


async def _statement(request: Request, error: Exception) -> JSONResponse:
    """A value the database cannot take (PostgreSQL refuses NUL in text; no driver encodes a
    lone surrogate) is the client's error; any other database failure is not."""
    original = getattr(error, "orig", None)
    if isinstance(error, DataError) or isinstance(original, (UnicodeError, ValueError)):
        return error_response(
            ApiError(
                400,
                "INVALID_INPUT",
                "The request contains text that cannot be stored "
                "(a NUL character or a lone surrogate).",
            )
        )
    return await _unexpected(request, error)


async def _unexpected(request: Request, error: Exception) -> JSONResponse:
    logger.exception("unexpected error on %s %s", request.method, request.url.path)
    return error_response(ApiError(500, "INTERNAL_ERROR", "An unexpected error occurred."))


def install_error_handlers(app: FastAPI) -> None:
    """Register every handler on ``app``."""
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(WalletCryptoError, _library_error)
    app.add_exception_handler(StatementError, _statement)
    for status in http.HTTPStatus:
        if 400 <= status < 500:
            app.add_exception_handler(int(status), _http_status)
    app.add_exception_handler(Exception, _unexpected)
