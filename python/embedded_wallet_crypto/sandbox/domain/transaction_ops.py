"""The platform's later decisions on a transaction: reject a held incoming payment, cancel a
bank transfer before it settles, confirm the delivery of its receipt.

Each locks the transaction's row and decides under that lock, in the transaction that makes the
change, and moves its version on (so that a step the worker read before is not applied after
it, ``worker._take``): of concurrent decisions on one transaction each sees what the one before
it committed. An approval and a rejection of one held payment: one of them, the other 409; two
cancellations: one, the other 409, the source refunded once.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy.orm import Session

from ..clock import Clock, iso
from ..db.engine import lock
from ..db.tables_payments import Transaction
from ..models.transaction_ops import CancelBody, ConfirmBody, RejectBody
from .errors import Refusal, invalid
from .transaction_queries import find_transaction
from .transactions import apply_due, is_final, transaction_body

__all__ = ["CANCELLABLE_KINDS", "cancel", "confirm_receipt", "reject_incoming"]

#: The bank-rail transfers a cancellation applies to (``/transfer-in``, ``/transfer-out``).
CANCELLABLE_KINDS = ("TRANSFER_IN", "TRANSFER_OUT")


def _decide(db: Session, row: Transaction, status: str, *, refund: bool) -> None:
    """End ``row`` in ``status`` now (no failure reason), dropping its remaining steps; with
    ``refund`` an internal source gets the sending amount back."""
    now = Clock.time()
    row.schedule = [
        {"at": now, "status": status, "failureReason": None, "refund": refund, "credit": False}
    ]
    row.version += 1
    apply_due(db, row, now)


def reject_incoming(db: Session, transaction_id: str, body: RejectBody | None) -> dict[str, Any]:
    """Reject an incoming payment held by the approval webhook: it ends ``REJECTED`` and
    nothing is credited. 409 ``TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL`` when it awaits no
    approval (approved, rejected, timed out, or never held)."""
    row = find_transaction(db, transaction_id)
    lock(db, row)
    if row.type != "INCOMING" or row.status != "PENDING" or not row.extra.get("awaitingApproval"):
        raise Refusal(
            409,
            "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
            "This transaction awaits no approval.",
        )
    extra = {**row.extra, "awaitingApproval": False}
    if body is not None and body.reason is not None:
        extra["rejectionReason"] = body.reason
    row.extra = extra
    _decide(db, row, "REJECTED", refund=False)
    return transaction_body(row)


def cancel(db: Session, transaction_id: str, body: CancelBody | None) -> dict[str, Any]:
    """Cancel a bank transfer that has not settled: a transfer out ends ``REFUNDED`` (its
    internal source gets the amount back; its ``refund`` says ``USER_CANCELLATION``), a
    transfer in ends ``FAILED`` (nothing credited).
    400 ``TRANSACTION_NOT_CANCELLABLE_TYPE`` for any other kind of transaction; 409
    ``TRANSACTION_NOT_CANCELLABLE`` once it has settled or ended."""
    row = find_transaction(db, transaction_id)
    lock(db, row)
    if row.kind not in CANCELLABLE_KINDS:
        raise invalid(
            "Only bank transfers (transfer-in, transfer-out) can be cancelled.",
            "TRANSACTION_NOT_CANCELLABLE_TYPE",
        )
    if is_final(row.status):
        raise Refusal(
            409,
            "TRANSACTION_NOT_CANCELLABLE",
            f"The transaction is {row.status}: past the point where it can be cancelled.",
        )
    reason = body.reason if body is not None and body.reason is not None else None
    row.extra = {**row.extra, "cancellation": {"reason": reason, "at": Clock.time()}}
    outgoing = row.kind == "TRANSFER_OUT"
    if outgoing:  # shown with the change (a refund that cannot be made replaces it: FAILED)
        moment = iso(Clock.now())
        row.extra = {
            **row.extra,
            "refund": {
                "reference": f"{row.reference}-REFUND",
                "initiatedAt": moment,
                "settledAt": moment,
                "status": "COMPLETED",
                "reason": "USER_CANCELLATION",
            },
        }
    _decide(db, row, "REFUNDED" if outgoing else "FAILED", refund=outgoing)
    return transaction_body(row)


def confirm_receipt(
    db: Session, transaction_id: str, body: ConfirmBody | None, now: datetime
) -> dict[str, Any]:
    """Record when the platform delivered the transaction's receipt (``now`` when the body
    gives no time); a later call replaces it. Any transaction, in any status."""
    row = find_transaction(db, transaction_id)
    lock(db, row)
    moment = body.receiptDeliveryConfirmedAt if body is not None else None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)  # no zone is UTC
    try:
        shown = iso(moment or now)
    except (OverflowError, ValueError):
        raise invalid("receiptDeliveryConfirmedAt is out of range.") from None
    row.extra = {**row.extra, "receiptDeliveryConfirmedAt": shown}
    row.version += 1
    return transaction_body(row)
