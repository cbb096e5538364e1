"""The one place errors become answers: every error is ``{"status": int, "code": "UPPER_CASE",
"reason": "..."}``.

A :class:`~.domain.errors.Refusal` is answered as it says; the library's exceptions through
``library_refusal`` (their own status and code; 401s as the interface's ``UNAUTHORIZED`` with its
reasons). Request validation failures are 400 with a reason naming the field (a body that is not
JSON, or nested past the parser's depth, too); a body over the size limit is 413
``BODY_TOO_LARGE``; unknown routes and methods are 404 and 405 in the same shape; anything else
is a bug in the service: it is logged and answered with a plain 500.
"""

from __future__ import annotations

import http
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, StatementError

from ..errors import WalletCryptoError
from .domain.errors import Refusal, invalid, library_refusal
from .request_log import logged_path

__all__ = ["body_too_large", "error_response", "install_error_handlers", "unexpected"]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")


def error_response(refusal: Refusal) -> JSONResponse:
    """The refusal as its JSON response (status, headers and body)."""
    return JSONResponse(refusal.body(), status_code=refusal.status, headers=refusal.headers)


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
        return error_response(Refusal(404, "NOT_FOUND", "No such resource."))
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
    return error_response(invalid(reason))


async def _refusal(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, Refusal)
    return error_response(error)


async def _library_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, WalletCryptoError)
    return error_response(library_refusal(error))


_HTTP_CODES = {
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    401: "UNAUTHORIZED",
    413: "BODY_TOO_LARGE",
}


def body_too_large(limit: int) -> Refusal:
    """413: the request body passes ``limit`` bytes (``ewc serve --max-body-size``)."""
    return Refusal(413, "BODY_TOO_LARGE", f"The request body is larger than {limit} bytes.")


def _unparsable(error: Exception) -> Refusal:
    """A body the JSON parser gave up on (its error is the cause of the framework's 400): a
    refusal of the service's own reader (a repeated member, ``api.routing``) as it is."""
    if isinstance(error.__cause__, Refusal):
        return error.__cause__
    if isinstance(error.__cause__, RecursionError):
        return invalid("The request body is nested too deeply.")
    return invalid("The request body is not valid JSON.")


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
    return error_response(Refusal(status, code, reason, headers))


async def _statement(request: Request, error: Exception) -> JSONResponse:
    """A value the database cannot take (PostgreSQL refuses NUL in text; no driver encodes a
    lone surrogate) is the client's error; any other database failure is not."""
    original = getattr(error, "orig", None)
    if isinstance(error, DataError) or isinstance(original, (UnicodeError, ValueError)):
        return error_response(
            invalid(
                "The request contains text that cannot be stored "
                "(a NUL character or a lone surrogate)."
            )
        )
    return await _unexpected(request, error)


def unexpected() -> Refusal:
    """500: a bug of the service (logged; the answer says nothing more)."""
    return Refusal(500, "INTERNAL_ERROR", "An unexpected error occurred.")


async def _unexpected(request: Request, error: Exception) -> JSONResponse:
    logger.exception("unexpected error on %s %s", request.method, logged_path(request.scope))
    return error_response(unexpected())


def install_error_handlers(app: FastAPI) -> None:
    """Register every handler on ``app``."""
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(Refusal, _refusal)
    app.add_exception_handler(WalletCryptoError, _library_error)
    app.add_exception_handler(StatementError, _statement)
    for status in http.HTTPStatus:
        if 400 <= status < 500:
            app.add_exception_handler(int(status), _http_status)
    app.add_exception_handler(Exception, _unexpected)
