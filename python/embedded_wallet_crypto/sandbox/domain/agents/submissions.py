"""What an agent submits under ``/agents/me``: a quote for its customer, the execution of its
quote, a same-currency transfer. Each submission is checked against the agent's policy and
becomes one AgentAction: APPROVED (its work runs at once) or PENDING_APPROVAL.

Concurrency: one decision per quote at a time (its row is locked until the action is committed,
and read again), and one agent's submissions counted one after the other against its limits
(the agent's row is locked the same way), across processes. The checks that read only are made
first, the signed retry of an embedded wallet's stamp is used next (before the transaction's
first write), and the decisions are made again under the locks.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...db.engine import lock
from ...db.tables_agents import Agent, AgentAction
from ...db.tables_payments import ExternalAccount, Quote
from ...db.tables_wallet import InternalAccount
from ...ids import new_id
from ...models.quotes import QuoteCreate
from ...models.transfers import TransferIn, TransferOut
from ...services import Services
from ..errors import Refusal, invalid, not_found
from ..quotes import (
    already_executed,
    check_signer,
    claim_signature,
    create_quote,
    is_expired,
    quote_body,
)
from ..transfers import WALLET_PAYS_BY_QUOTE
from ..webhooks import emit
from . import actions
from .policy import Money, evaluate, require_permission
from .registry import customer_of, usage
from .work import action_body, apply, work_of

__all__ = ["create_own_quote", "find_own_quote", "submit_execution", "submit_transfer"]


def _not_allowed(reason: str) -> Refusal:
    return Refusal(403, "POLICY_ACCOUNT_NOT_ALLOWED", reason)


def check_active(agent: Agent) -> None:
    """403 AGENT_PAUSED for a paused agent."""
    if agent.is_paused:
        raise Refusal(403, "AGENT_PAUSED", "The agent is paused and cannot submit actions.")


def check_budget(db: Session, agent: Agent, spend: int, now: datetime) -> None:
    """403 POLICY_LIMIT_EXCEEDED when the daily or monthly limits would be passed."""
    limits: Mapping[str, Any] = agent.policy["spendingLimits"]
    used = usage(db, agent, now)
    count = limits.get("dailyTransactionLimit")
    if (
        (count is not None and used["dailyTransactionCount"] + 1 > count)
        or (
            limits.get("dailyLimit") is not None
            and used["dailySpend"] + spend > limits["dailyLimit"]
        )
        or (
            limits.get("monthlyLimit") is not None
            and used["monthlySpend"] + spend > limits["monthlyLimit"]
        )
    ):
        raise Refusal(
            403, "POLICY_LIMIT_EXCEEDED", "The action would pass the agent's spending limits."
        )


def _record(
    db: Session,
    services: Services,
    agent: Agent,
    needs_approval: bool,
    spend: int,
    **fields: Any,
) -> dict[str, Any]:
    """Under the agent's lock, the budget decided again; then the action, its trigger run."""
    now = services.clock.now()
    lock(db, agent)  # held until the new action is committed
    check_budget(db, agent, spend, now)
    action = AgentAction(
        id=new_id("AgentAction"),
        agent_id=agent.id,
        customer_id=agent.customer_id,
        platform_customer_id=customer_of(db, agent).platform_customer_id,
        status="PENDING_APPROVAL",
        spend=spend,
        created_at=now,
        updated_at=now,
        **fields,
    )
    db.add(action)
    db.flush()
    apply(action, actions.submit(needs_approval, work_of(db, services, action)), now)
    db.flush()
    body = action_body(db, action)
    if action.status == "PENDING_APPROVAL":  # the platform is asked (AGENT_ACTION webhook)
        emit(db, "AGENT_ACTION.PENDING_APPROVAL", body)
    return body


def create_own_quote(
    db: Session, services: Services, agent: Agent, body: QuoteCreate
) -> dict[str, Any]:
    """A quote for the agent's customer (CREATE_QUOTES); its source must be one of the
    customer's accounts."""
    check_active(agent)
    require_permission(agent.policy, "CREATE_QUOTES")
    if body.immediatelyExecute:
        raise invalid(
            "An agent executes a quote with POST /agents/me/quotes/{quoteId}/execute.",
            "IMMEDIATE_EXECUTION_NOT_SUPPORTED",
        )
    account = db.get(InternalAccount, body.source.accountId) if body.source.accountId else None
    if account is None or account.customer_id != agent.customer_id:
        raise _not_allowed("The source must be an account of the agent's customer.")
    return create_quote(db, agent.id, body, services=services, agent=agent.id)


def find_own_quote(db: Session, agent: Agent, quote_id: str) -> Quote:
    """A quote this agent created (404 for any other)."""
    row = db.get(Quote, quote_id)
    if row is None or row.agent_id != agent.id:
        raise not_found("No quote of this agent has this id.", "QUOTE_NOT_FOUND")
    return row


def _check_open(db: Session, row: Quote) -> None:
    """409 unless the quote can still be submitted: executed, expired, or already waiting."""
    if row.executed:
        raise already_executed()
    if is_expired(row):
        raise Refusal(409, "QUOTE_EXPIRED", "The quote has expired; create a new one.")
    taken = db.scalars(
        select(AgentAction.id).where(
            AgentAction.quote_id == row.id, AgentAction.status == "PENDING_APPROVAL"
        )
    ).first()
    if taken is not None:
        raise Refusal(409, "QUOTE_PENDING_APPROVAL", "This quote already waits for approval.")


def submit_execution(
    db: Session, services: Services, agent: Agent, row: Quote, stamp: str | None
) -> dict[str, Any]:
    """Submit the execution of the agent's quote (``find_own_quote``; EXECUTE_QUOTES): an
    EXECUTE_QUOTE action, APPROVED (executed, transaction populated) or PENDING_APPROVAL as the
    policy says. An embedded-wallet source needs ``stamp`` (401 now, not at approval)."""
    check_active(agent)
    require_permission(agent.policy, "EXECUTE_QUOTES")
    _check_open(db, row)
    wallet = row.source_kind == "EMBEDDED_WALLET"
    if wallet:
        check_signer(db, services, row, stamp)  # 401 now, not at approval
    amounts = [
        Money(row.total_sending, row.sending_currency),
        Money(row.total_receiving, row.receiving_currency),
    ]
    needs_approval = evaluate(
        agent.policy, amounts, source_account_id=str(row.source.get("accountId"))
    )
    limits = agent.policy["spendingLimits"]
    spend = next(m.amount for m in amounts if m.currency == limits["currency"])
    check_budget(db, agent, spend, services.clock.now())
    if wallet:
        try:
            claim_signature(db, services, row, stamp)
        except Refusal as refusal:
            if refusal.code != "QUOTE_ALREADY_EXECUTED":
                raise
            lock(db, row)  # the submission that used the stamp: what it decided
            _check_open(db, row)
            raise
    # One decision per quote at a time: of concurrent submissions (also through other
    # processes, or the platform executing it) the ones after the first are refused here.
    lock(db, row)
    _check_open(db, row)
    return _record(
        db,
        services,
        agent,
        needs_approval,
        spend,
        type="EXECUTE_QUOTE",
        quote_id=row.id,
        quote=quote_body(row),
        wallet_signature=stamp,
    )


def _customer_account(db: Session, agent: Agent, model: Any, account_id: str) -> Any:
    """An account of the agent's customer: 404 when unknown, 403 when someone else's."""
    account = db.get(model, account_id)
    if account is None:
        raise not_found("No account of this kind has this id.")
    if account.customer_id != agent.customer_id:
        raise _not_allowed("The accounts of a transfer must belong to the agent's customer.")
    return account


def submit_transfer(
    db: Session, services: Services, agent: Agent, kind: str, body: TransferIn | TransferOut
) -> dict[str, Any]:
    """A TRANSFER_OUT or TRANSFER_IN action (CREATE_TRANSFERS): APPROVED (executed) or
    PENDING_APPROVAL as the policy says."""
    check_active(agent)
    require_permission(agent.policy, "CREATE_TRANSFERS")
    outgoing = kind == "TRANSFER_OUT"
    internal_id = body.source.accountId if outgoing else body.destination.accountId
    external_id = body.destination.accountId if outgoing else body.source.accountId
    internal = _customer_account(db, agent, InternalAccount, internal_id)
    external = _customer_account(db, agent, ExternalAccount, external_id)
    if internal.currency != external.currency:
        raise invalid("Transfers are same-currency; use a quote to convert.", "CURRENCY_MISMATCH")
    if outgoing and internal.type == "EMBEDDED_WALLET":
        raise invalid(WALLET_PAYS_BY_QUOTE)
    needs_approval = evaluate(
        agent.policy,
        [Money(body.amount, internal.currency)],
        source_account_id=body.source.accountId,
    )
    return _record(
        db,
        services,
        agent,
        needs_approval,
        body.amount,
        type=kind,
        transfer_details={
            "amount": body.amount,
            "currency": internal.currency,
            "sourceAccountId": body.source.accountId,
            "destinationAccountId": body.destination.accountId,
        },
    )
