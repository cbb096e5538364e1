"""An incoming payment's approval request (``INCOMING_PAYMENT.PENDING``, kind ``APPROVAL``): what
the receiver's answer does to the payment, as the published document's incoming-payment
webhook describes it. One attempt, never retried.

- 200: approved; the body's ``receiverCustomerInfo`` must hold every mandatory field of
  ``requestedReceiverCustomerInfoFields`` (else FAILED ``MISSING_MANDATORY_PAYEE_DATA``).
- 202: held; the platform calls ``POST /transactions/{id}/approve`` (or reject) before the
  approval window ends (else FAILED ``PAYMENT_APPROVAL_TIMED_OUT``).
- 403: rejected: REJECTED ``COMPLIANCE_REJECTED``.
- 422 with ``requiredFields``: the sandbox's simulated sender supplies them (sandbox values in
  ``counterpartyInformation``) and a new approval request (a new event) follows; once per
  payment: a second 422 fails it (``PAYMENT_APPROVAL_WEBHOOK_ERROR``).
- Anything else (another status, no answer): FAILED ``PAYMENT_APPROVAL_WEBHOOK_ERROR``.

What the receiver answers is checked before anything of it is stored: ``requiredFields`` must
be 1 to :data:`MAX_REQUIRED_FIELDS` names of :data:`FIELD_NAME` (letters, digits, ``_``; 1 to
60), and ``receiverCustomerInfo`` must pass the bounds of ``POST /transactions/{id}/approve``'s
body (``ApproveBody``: an object of strings, within the free-form bounds, no NUL, no lone
surrogate). An answer that does not is a failed delivery, never stored: the event is
``FAILED`` with the attempt's outcome ``INVALID_RECEIVER_ANSWER``, and the payment FAILED
``PAYMENT_APPROVAL_WEBHOOK_ERROR``.

The decision is made under the transaction's row lock, in the transaction that records the
attempt, so a concurrent approve call and the answer decide the payment once.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy.orm import Session

from ..db.engine import lock
from ..db.tables_events import WebhookEvent
from ..db.tables_payments import Transaction
from ..models.transactions import ApproveBody
from .transactions import apply_approval, transaction_body
from .webhooks import APPROVAL, Answer, emit

__all__ = ["FIELD_NAME", "MAX_INFORMATION_ROUNDS", "MAX_REQUIRED_FIELDS", "decide"]

#: How many 422 answers the simulated sender satisfies per payment.
MAX_INFORMATION_ROUNDS: Final = 1
#: The most field names a 422's ``requiredFields`` may hold, and what each must look like.
MAX_REQUIRED_FIELDS: Final = 20
FIELD_NAME: Final = re.compile(r"[A-Za-z0-9_]{1,60}")
#: The attempt's outcome for a receiver's answer that fails the checks above.
_INVALID: Final = "INVALID_RECEIVER_ANSWER"
#: What the simulated sender supplies for a field a 422 asks for (others: "SANDBOX").
_SENDER_VALUES: Final = {
    "FULL_NAME": "Sandbox Sender",
    "BIRTH_DATE": "1990-01-01",
    "NATIONALITY": "US",
    "COUNTRY_OF_RESIDENCE": "US",
    "EMAIL": "sender@sandbox.invalid",
    "PHONE_NUMBER": "+14155550100",
    "POSTAL_ADDRESS": "1 Sandbox Way, San Francisco, CA 94105, US",
}


def _awaits(row: Transaction, event: WebhookEvent) -> bool:
    return (
        row.status == "PENDING"
        and bool(row.extra.get("awaitingApproval"))
        and row.extra.get("approvalEvent") == event.id
    )


def _receiver_info(info: Any) -> dict[str, str] | None:
    """The receiver's ``receiverCustomerInfo`` as ``ApproveBody`` takes it ({} when absent), or
    None when it does not pass its bounds."""
    try:
        return ApproveBody.model_validate({"receiverCustomerInfo": info or {}}).receiverCustomerInfo
    except ValidationError:
        return None


def _approve(db: Session, row: Transaction, given: dict[str, str]) -> str:
    missing = [
        field["name"]
        for field in row.extra.get("requestedReceiverCustomerInfoFields", [])
        if field.get("mandatory") and not given.get(field["name"])
    ]
    row.extra = {**row.extra, "awaitingApproval": False}
    if missing:
        apply_approval(db, row, False, "MISSING_MANDATORY_PAYEE_DATA")
        return "PAYMENT_FAILED_MISSING_PAYEE_DATA"
    row.extra = {**row.extra, "receiverCustomerInfo": given}
    apply_approval(db, row, True, None)
    return "APPROVED"


def _required_fields(body: dict[str, Any]) -> list[str] | None:
    fields = body.get("requiredFields")
    if (
        not isinstance(fields, list)
        or not 1 <= len(fields) <= MAX_REQUIRED_FIELDS
        or not all(isinstance(f, str) and FIELD_NAME.fullmatch(f) for f in fields)
    ):
        return None
    return list(dict.fromkeys(fields))


def _refuse_answer(db: Session, row: Transaction) -> tuple[str, str]:
    """A receiver's answer that fails the checks: the payment fails, nothing of it is kept."""
    row.extra = {**row.extra, "awaitingApproval": False}
    apply_approval(db, row, False, "PAYMENT_APPROVAL_WEBHOOK_ERROR")
    return "FAILED", _INVALID


def _ask_sender(db: Session, row: Transaction, fields: list[str]) -> None:
    """The simulated sender supplies ``fields``; a new approval request is recorded."""
    information = dict(row.extra.get("counterpartyInformation") or {})
    for name in fields:
        information.setdefault(name, _SENDER_VALUES.get(name, "SANDBOX"))
    rounds = int(row.extra.get("informationRounds", 0)) + 1
    row.extra = {**row.extra, "counterpartyInformation": information, "informationRounds": rounds}
    row.version += 1
    event = emit(
        db, "INCOMING_PAYMENT.PENDING", transaction_body(row), transaction_id=row.id, kind=APPROVAL
    )
    row.extra = {**row.extra, "approvalEvent": event, "lastEventId": event}


def decide(db: Session, event: WebhookEvent, answer: Answer) -> tuple[str, str]:
    """The payment's decision on ``answer``, in ``db``'s transaction: (the event's state, the
    attempt's outcome)."""
    status = answer.status
    understood = status is not None and (200 <= status < 300 or status in (403, 422))
    state = "DELIVERED" if understood else "FAILED"
    row = db.get(Transaction, event.transaction_id) if event.transaction_id else None
    if row is None:
        return state, "NO_PAYMENT"
    lock(db, row)  # against a concurrent POST /transactions/{id}/approve
    if not _awaits(row, event):
        return state, "PAYMENT_ALREADY_DECIDED"
    if status == 202:
        return state, "HELD"
    if status is not None and 200 <= status < 300:
        given = _receiver_info(answer.json().get("receiverCustomerInfo"))
        if given is None:
            return _refuse_answer(db, row)
        return state, _approve(db, row, given)
    row.extra = {**row.extra, "awaitingApproval": False}
    if status == 403:
        apply_approval(db, row, False, "COMPLIANCE_REJECTED", status="REJECTED")
        return state, "REJECTED"
    if status == 422:
        fields = _required_fields(answer.json())
        if fields is None:
            return _refuse_answer(db, row)
        if row.extra.get("informationRounds", 0) < MAX_INFORMATION_ROUNDS:
            row.extra = {**row.extra, "awaitingApproval": True}
            _ask_sender(db, row, fields)
            return state, "MORE_INFORMATION_REQUESTED"
        apply_approval(db, row, False, "PAYMENT_APPROVAL_WEBHOOK_ERROR")
        return state, "MORE_INFORMATION_UNAVAILABLE"
    apply_approval(db, row, False, "PAYMENT_APPROVAL_WEBHOOK_ERROR")
    return ("STOPPED" if status == 409 else state), "PAYMENT_FAILED_WEBHOOK_ERROR"
