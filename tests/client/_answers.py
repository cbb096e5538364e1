"""Every answer of the service held to the client's model of it: an httpx transport (sync and
async) that records each answer, and the check that reads it into its operation's model (the
service's own, ``ewc.sandbox.models``) and back to exactly the JSON that came: a field the
model lacks, or one it requires that did not come, fails the check, naming the operation."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import httpx
from embedded_wallet_crypto.client import OPERATIONS, Operation
from embedded_wallet_crypto.client._answers import adapter
from embedded_wallet_crypto.sandbox.models.common import ErrorOut
from embedded_wallet_crypto.sandbox.models.wallet import SignedRequestChallengeOut
from pydantic import ValidationError

__all__ = ["Answer", "AnswerLog", "AsyncRecorder", "SyncRecorder", "model_problem", "operation_of"]

_PATTERNS = [
    (op, re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(op.path)) + "$"))
    for op in OPERATIONS
]


def operation_of(method: str, path: str) -> Operation | None:
    """The row of the table that serves ``method path`` (a path under the base URL): of
    those that match, the one with the fewest parameters (``/agents/me`` before
    ``/agents/{agentId}``, ``/customers/internal-accounts`` before ``/customers/{customerId}``),
    as the service routes them."""
    matching = [op for op, pattern in _PATTERNS if op.method == method and pattern.match(path)]
    return min(matching, key=lambda op: len(op.path_params), default=None)


@dataclass(frozen=True)
class Answer:
    method: str
    path: str
    status: int
    content_type: str
    content: bytes


def model_problem(op: Operation, answer: Answer) -> str | None:
    """What keeps ``answer`` from being exactly its model, or None when it is."""
    if answer.status == 204:
        return None if not answer.content else "a 204 with a body"
    if not answer.content_type.startswith("application/json"):
        if op.response_model is str and answer.status < 300:
            return None
        return f"a {answer.status} answer of type {answer.content_type!r}"
    data = json.loads(answer.content)
    if answer.status >= 400:
        model: Any = ErrorOut
    elif answer.status == 202 and op.signing == "retry":
        model = SignedRequestChallengeOut
    else:
        model = op.response_model
    if model is None:
        return f"a {answer.status} JSON answer but no response_model"
    reader = adapter(model)
    try:
        value = reader.validate_python(data)
    except ValidationError as error:
        return f"{answer.status} does not validate: {error}"
    again = reader.dump_python(value, mode="json", exclude_unset=True)
    if again != data:
        lost = sorted(set(data) - set(again)) if isinstance(data, dict) else []
        return f"{answer.status} does not read back to what came (fields not in the model: {lost})"
    return None


class AnswerLog:
    """The answers a client got, by operation."""

    def __init__(self, base_path: str) -> None:
        self.base_path = base_path.rstrip("/")
        self.answers: list[tuple[Operation | None, Answer]] = []

    def record(self, request: httpx.Request, response: httpx.Response, content: bytes) -> None:
        path = request.url.path.removeprefix(self.base_path)
        answer = Answer(
            request.method,
            path,
            response.status_code,
            response.headers.get("content-type", ""),
            content,
        )
        self.answers.append((operation_of(request.method, path), answer))

    def problems(self) -> list[str]:
        """Every answer that is not exactly its operation's model (or has no operation)."""
        found = []
        for op, answer in self.answers:
            if op is None:
                found.append(f"{answer.method} {answer.path}: no operation of the table")
                continue
            problem = model_problem(op, answer)
            if problem is not None:
                found.append(f"{op.qualified_name}: {problem}")
        return found


class SyncRecorder(httpx.HTTPTransport):
    def __init__(self, log: AnswerLog) -> None:
        super().__init__()
        self.log = log

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        self.log.record(request, response, response.read())
        return response


class AsyncRecorder(httpx.AsyncHTTPTransport):
    def __init__(self, log: AnswerLog) -> None:
        super().__init__()
        self.log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        self.log.record(request, response, await response.aread())
        return response
