"""What an AgentAction runs, and how it is kept and shown: the quote execution behind an
EXECUTE_QUOTE action, the transfer behind a TRANSFER_OUT or TRANSFER_IN action (each as the
state machine's :class:`~.actions.QuoteExecution`), the outcome of a trigger stored on the
action, and the interface's AgentAction body."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ...clock import iso
from ...db.tables_agents import AgentAction
from ...db.tables_payments import Quote, Transaction
from ...models.transfers import TransferIn, TransferOut
from ...services import Services
from ..errors import Refusal, not_found
from ..quotes import Signature, execute_quote, is_expired, quote_body
from ..transactions import transaction_body
from ..transfers import transfer_in, transfer_out
from .actions import ExecutionFailed, Outcome, QuoteExecution

__all__ = ["action_body", "apply", "work_of"]


def action_body(db: Session, action: AgentAction) -> dict[str, Any]:
    """The interface's AgentAction: the quote as it is now, the transaction once execution began."""
    body: dict[str, Any] = {
        "id": action.id,
        "agentId": action.agent_id,
        "customerId": action.customer_id,
        "platformCustomerId": action.platform_customer_id,
        "status": action.status,
        "type": action.type,
        "createdAt": iso(action.created_at),
        "updatedAt": iso(action.updated_at),
    }
    if action.quote_id is not None:
        quote = db.get(Quote, action.quote_id)
        body["quote"] = quote_body(quote) if quote is not None else action.quote
    if action.transfer_details is not None:
        body["transferDetails"] = dict(action.transfer_details)
    if action.transaction_id is not None:
        tx = db.get(Transaction, action.transaction_id)
        body["transaction"] = transaction_body(tx) if tx is not None else action.transaction
    if action.status == "REJECTED" and action.rejection_reason is not None:
        body["rejectionReason"] = action.rejection_reason
    return body


def apply(action: AgentAction, outcome: Outcome, now: datetime) -> None:
    """Store what a trigger of the state machine did."""
    action.status = outcome.status
    action.failure_reason = outcome.failure
    if outcome.transaction is not None:
        action.transaction = dict(outcome.transaction)
        tx_id = outcome.transaction.get("id")
        action.transaction_id = tx_id if isinstance(tx_id, str) else None
    action.updated_at = now


def _failed_at_once(transaction: Mapping[str, Any]) -> Mapping[str, Any]:
    """The transaction of an execution that began, unless it failed at once (a sandbox outcome
    such as suffix 002): then the execution failed, and the action ends FAILED with it."""
    if transaction.get("status") == "FAILED":
        raise ExecutionFailed(
            str(transaction.get("failureReason") or "EXECUTION_FAILED"), transaction
        )
    return transaction


def work_of(db: Session, services: Services, action: AgentAction) -> QuoteExecution:
    """The work behind an action: the quote engine (EXECUTE_QUOTE) or the transfer engine
    (TRANSFER_OUT, TRANSFER_IN). A refusal of the work (insufficient funds, an account or a
    session key gone meanwhile ...) is the execution's failure, with its code."""
    if action.type != "EXECUTE_QUOTE":
        return _transfer_work(db, services, action)
    row = db.get(Quote, action.quote_id)
    if row is None:
        raise not_found("The action's quote no longer exists.", "QUOTE_NOT_FOUND")

    def execute() -> Mapping[str, Any]:
        try:
            # The submission verified the stamp and used its request id.
            signature = Signature(action.wallet_signature, claimed=True)
            execute_quote(db, row, services=services, signature=signature, agent=action.agent_id)
        except Refusal as refusal:
            raise ExecutionFailed(refusal.code) from None
        tx = db.get(Transaction, row.transaction_id)
        return _failed_at_once(
            transaction_body(tx) if tx is not None else {"id": row.transaction_id}
        )

    return QuoteExecution(expired=lambda: is_expired(row), execute=execute)


def _transfer_work(db: Session, services: Services, action: AgentAction) -> QuoteExecution:
    details = action.transfer_details or {}
    request = {
        "source": {"accountId": details.get("sourceAccountId")},
        "destination": {"accountId": details.get("destinationAccountId")},
        "amount": details.get("amount"),
    }

    def execute() -> Mapping[str, Any]:
        try:
            if action.type == "TRANSFER_OUT":
                transaction = transfer_out(
                    db,
                    action.agent_id,
                    TransferOut.model_validate(request),
                    services=services,
                    agent=action.agent_id,
                )
            else:
                transaction = transfer_in(
                    db,
                    action.agent_id,
                    TransferIn.model_validate(request),
                    services=services,
                    agent=action.agent_id,
                )
        except Refusal as refusal:
            raise ExecutionFailed(refusal.code) from None
        return _failed_at_once(transaction)

    return QuoteExecution(expired=lambda: False, execute=execute)
