"""Sample resources for ``POST /sandbox/events/trigger`` (``ewc trigger``): for each published
webhook type the service can send, a resource of the published shape that the type's ``data``
carries, with fresh ids and the current time. Nothing is stored but the event."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from ..clock import iso
from ..ids import new_id
from .currencies import currency

__all__ = ["sample"]

_OUTGOING_STATUS: Final = {
    "PENDING": ("PENDING", None),
    "PENDING_AUTHORIZATION": ("PENDING_AUTHORIZATION", None),
    "PROCESSING": ("PROCESSING", None),
    "COMPLETED": ("COMPLETED", None),
    "FAILED": ("FAILED", "QUOTE_EXECUTION_FAILED"),
    "EXPIRED": ("EXPIRED", "QUOTE_EXPIRED"),
    "REFUND_PENDING": ("FAILED", "PAYOUT_RETURNED"),
    "REFUND_COMPLETED": ("FAILED", "PAYOUT_RETURNED"),
    "REFUND_FAILED": ("FAILED", "PAYOUT_RETURNED"),
}
_INCOMING_STATUS: Final = {
    "PENDING": ("PENDING", None),
    "COMPLETED": ("COMPLETED", None),
    "FAILED": ("FAILED", "OFFRAMP_FAILED"),
    "REFUND_PENDING": ("FAILED", "OFFRAMP_FAILED"),
    "REFUND_COMPLETED": ("FAILED", "OFFRAMP_FAILED"),
    "REFUND_FAILED": ("FAILED", "OFFRAMP_FAILED"),
}
_REFUND_STATUS: Final = {"REFUND_PENDING": "PENDING", "REFUND_FAILED": "FAILED"}


def _amount(value: int, code: str = "USD") -> dict[str, Any]:
    return {"amount": value, "currency": currency(code)}


def _transaction(event: str, now: datetime, incoming: bool) -> dict[str, Any]:
    status, reason = (_INCOMING_STATUS if incoming else _OUTGOING_STATUS)[event]
    stamp = iso(now)
    body: dict[str, Any] = {
        "id": new_id("Transaction"),
        "status": status,
        "type": "INCOMING" if incoming else "OUTGOING",
        "direction": "CREDIT" if incoming else "DEBIT",
        "customerId": new_id("Customer"),
        "platformCustomerId": "sandbox-customer",
        "receivedAmount": _amount(10_000),
        "createdAt": stamp,
        "updatedAt": stamp,
        "reconciliationInstructions": {"reference": "SBX-TRIGGERED"},
    }
    if incoming:
        body["source"] = {"sourceType": "UMA_ADDRESS", "umaAddress": "$sender@sandbox.invalid"}
        body["destination"] = {"destinationType": "ACCOUNT", "accountId": new_id("InternalAccount")}
        if status == "PENDING":
            body["counterpartyInformation"] = {"FULL_NAME": "Sandbox Sender"}
            body["requestedReceiverCustomerInfoFields"] = [{"name": "FULL_NAME", "mandatory": True}]
    else:
        body["source"] = {"sourceType": "ACCOUNT", "accountId": new_id("InternalAccount")}
        body["destination"] = {"destinationType": "ACCOUNT", "accountId": new_id("ExternalAccount")}
        body["sentAmount"] = _amount(10_000)
        body["quoteId"] = new_id("Quote")
    if status == "COMPLETED":
        body["settledAt"] = stamp
    if reason is not None:
        body["failureReason"] = reason
    if event.startswith("REFUND_"):
        body["refund"] = {
            "reference": "SBX-TRIGGERED-REFUND",
            "initiatedAt": stamp,
            "status": _REFUND_STATUS.get(event, "COMPLETED"),
            "reason": "TRANSACTION_FAILED",
        }
        if event == "REFUND_COMPLETED":
            body["refund"]["settledAt"] = stamp
    return body


def _customer(event: str, now: datetime) -> dict[str, Any]:
    check, status = event.split("_", 1)  # KYC_APPROVED -> KYC, APPROVED
    body: dict[str, Any] = {
        "id": new_id("Customer"),
        "platformCustomerId": "sandbox-customer",
        "region": "US",
        "currencies": ["USD"],
        "umaAddress": "$customer@sandbox.invalid",
        "createdAt": iso(now),
        "updatedAt": iso(now),
        "isDeleted": False,
    }
    if check == "KYC":
        body.update(customerType="INDIVIDUAL", kycStatus=status, fullName="Jane Sandbox")
    else:
        body.update(
            customerType="BUSINESS",
            kybStatus=status,
            businessInfo={"legalName": "Sandbox Business LLC"},
        )
    return body


def _verification(event: str, now: datetime) -> dict[str, Any]:
    errors = []
    if event == "RESOLVE_ERRORS":
        errors = [
            {
                "resourceId": new_id("Customer"),
                "type": "MISSING_FIELD",
                "field": "customer.address",
                "reason": "The customer's address is required.",
            }
        ]
    return {
        "id": new_id("Verification"),
        "customerId": new_id("Customer"),
        "verificationStatus": event,
        "errors": errors,
        "createdAt": iso(now),
        "updatedAt": iso(now),
    }


def _internal_account(event: str, now: datetime) -> dict[str, Any]:
    del event
    return {
        "id": new_id("InternalAccount"),
        "customerId": new_id("Customer"),
        "type": "INTERNAL_FIAT",
        "status": "ACTIVE",
        "balance": _amount(10_000),
        "totalBalance": _amount(10_000),
        "fundingPaymentInstructions": [],
        "createdAt": iso(now),
        "updatedAt": iso(now),
    }


def _external_account(event: str, now: datetime) -> dict[str, Any]:
    del event, now
    return {
        "id": new_id("ExternalAccount"),
        "customerId": new_id("Customer"),
        "status": "ACTIVE",
        "currency": "USDC",
        "ownershipType": "FIRST_PARTY",
        "accountInfo": {
            "accountType": "ETHEREUM_WALLET",
            "address": "0x000000000000000000000000000000000000dEaD",
        },
    }


def _invitation(event: str, now: datetime) -> dict[str, Any]:
    del event
    code = new_id("Invitation").split(":", 1)[1][:8]
    return {
        "code": code,
        "createdAt": iso(now),
        "claimedAt": iso(now),
        "inviterUma": "$inviter@sandbox.invalid",
        "inviteeUma": "$invitee@sandbox.invalid",
        "status": "CLAIMED",
        "url": f"https://sandbox.invalid/i/{code}",
    }


def _bulk_upload(event: str, now: datetime) -> dict[str, Any]:
    del now
    failed = event == "FAILED"
    body: dict[str, Any] = {
        "id": new_id("Job"),
        "status": event,
        "progress": {
            "total": 1,
            "processed": 1,
            "successful": 0 if failed else 1,
            "failed": 1 if failed else 0,
        },
        "errors": [],
    }
    if failed:
        body["errors"] = [
            {
                "correlationId": "row_1",
                "error": {"code": "invalid_csv_format", "message": "Invalid CSV format"},
            }
        ]
    return body


def _agent_action(event: str, now: datetime) -> dict[str, Any]:
    del event
    return {
        "id": new_id("AgentAction"),
        "agentId": new_id("Agent"),
        "customerId": new_id("Customer"),
        "platformCustomerId": "sandbox-customer",
        "status": "PENDING_APPROVAL",
        "type": "TRANSFER_OUT",
        "createdAt": iso(now),
        "updatedAt": iso(now),
    }


_BUILDERS: Final[dict[str, Callable[[str, datetime], dict[str, Any]]]] = {
    "OUTGOING_PAYMENT": lambda event, now: _transaction(event, now, incoming=False),
    "INCOMING_PAYMENT": lambda event, now: _transaction(event, now, incoming=True),
    "CUSTOMER": _customer,
    "VERIFICATION": _verification,
    "INTERNAL_ACCOUNT": _internal_account,
    "EXTERNAL_ACCOUNT": _external_account,
    "INVITATION": _invitation,
    "BULK_UPLOAD": _bulk_upload,
    "AGENT_ACTION": _agent_action,
    "TEST": lambda event, now: {},
}


def sample(event_type: str, now: datetime) -> dict[str, Any] | None:
    """The sample ``data`` of a published webhook type; None for the types of resources the
    sandbox does not have (cards)."""
    resource, _, event = event_type.partition(".")
    builder = _BUILDERS.get(resource)
    return None if builder is None else builder(event, now)
