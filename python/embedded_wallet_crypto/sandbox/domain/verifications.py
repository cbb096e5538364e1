"""``POST /verifications`` (KYC of an individual, KYB of a business and KYC of its beneficial
owners) and ``GET /verifications/{id}``.

Sandbox outcomes: the last 3 characters of the business's ``registrationNumber`` select the KYB
status, those of a person's ``lastName`` the KYC status: 001 PENDING, 002 REJECTED, anything
else APPROVED. The verification is REJECTED if any status is, PENDING_MANUAL_REVIEW if any is
PENDING, APPROVED otherwise; a missing value gives RESOLVE_ERRORS with a MISSING_FIELD error.
In production no outcome is simulated: every complete verification is PENDING_MANUAL_REVIEW.

The values come from the request (``businessInfo.registrationNumber``, ``personalInfo.lastName``,
``beneficialOwners[].personalInfo.lastName``), else from the customer: its ``businessInfo`` and,
for an individual, the last word of its ``fullName``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.pages import PageRequest, page
from ..db.tables_agents import Verification
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.verifications import VerificationCreate
from ..services import Services
from .customers import customer_body
from .errors import not_found
from .values import check_text
from .webhooks import emit

__all__ = [
    "create_verification",
    "get_verification",
    "kyb_status",
    "kyc_status",
    "list_verifications",
    "verification_body",
    "verification_status",
]

# --- the outcome tables ------------------------------------------------------------------------

_SUFFIX_STATUS: Final = {"001": "PENDING", "002": "REJECTED"}
#: A customer's own KYC/KYB result -> the event it sends (``CUSTOMER.KYC_APPROVED``, ...).
_CUSTOMER_EVENTS: Final = {"APPROVED": "APPROVED", "REJECTED": "REJECTED", "PENDING": "PENDING"}


def kyb_status(registration_number: str, *, sandbox: bool) -> str:
    """KYB outcome by the last 3 characters of registrationNumber (sandbox): 001 PENDING, 002
    REJECTED, else APPROVED. In production no outcome is simulated: PENDING (manual review)."""
    if not sandbox:
        return "PENDING"
    return _SUFFIX_STATUS.get(registration_number[-3:], "APPROVED")


def kyc_status(last_name: str, *, sandbox: bool) -> str:
    """KYC outcome by the last 3 characters of lastName (sandbox): 001 PENDING, 002 REJECTED,
    else APPROVED. In production no outcome is simulated: PENDING (manual review)."""
    if not sandbox:
        return "PENDING"
    return _SUFFIX_STATUS.get(last_name[-3:], "APPROVED")


def verification_status(statuses: Iterable[str]) -> str:
    """A Verification's status from its KYB/KYC results: any REJECTED gives REJECTED, else any
    PENDING gives PENDING_MANUAL_REVIEW, else APPROVED."""
    seen = set(statuses)
    if "REJECTED" in seen:
        return "REJECTED"
    if "PENDING" in seen:
        return "PENDING_MANUAL_REVIEW"
    return "APPROVED"


# --- the verifications -------------------------------------------------------------------------


def verification_body(row: Verification) -> dict[str, Any]:
    """The real service's Verification, with the sandbox's kybStatus / kycStatus results."""
    body: dict[str, Any] = {
        "id": row.id,
        "customerId": row.customer_id,
        "verificationStatus": row.status,
        "errors": list(row.errors),
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    body.update(row.details)
    return body


def _text(value: str | None, where: str) -> str | None:
    return None if value is None else check_text(value, where)


def _missing(resource: str, field: str, reason: str) -> dict[str, Any]:
    return {"resourceId": resource, "type": "MISSING_FIELD", "field": field, "reason": reason}


def _evaluate(
    customer: Customer, body: VerificationCreate, sandbox: bool
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    errors: list[dict[str, Any]] = []
    details: dict[str, Any] = {}
    statuses: list[str] = []
    stored: dict[str, Any] = customer.details or {}
    if customer.customer_type == "BUSINESS":
        number = _text(
            body.businessInfo.registrationNumber if body.businessInfo else None,
            "businessInfo.registrationNumber",
        )
        if number is None:
            info = stored.get("businessInfo")
            value = info.get("registrationNumber") if isinstance(info, dict) else None
            number = value if isinstance(value, str) and value else None
        if number is None:
            errors.append(
                _missing(
                    customer.id,
                    "customer.businessInfo.registrationNumber",
                    "The business registration number is required.",
                )
            )
        else:
            details["kybStatus"] = kyb_status(number, sandbox=sandbox)
            statuses.append(details["kybStatus"])
        owners = []
        for index, owner in enumerate(body.beneficialOwners or []):
            last = _text(owner.personalInfo.lastName, "beneficialOwners[].personalInfo.lastName")
            if last is None:
                errors.append(
                    _missing(
                        customer.id,
                        f"beneficialOwners[{index}].personalInfo.lastName",
                        "The beneficial owner's last name is required.",
                    )
                )
                continue
            status = kyc_status(last, sandbox=sandbox)
            owners.append({"lastName": last, "kycStatus": status})
            statuses.append(status)
        if owners:
            details["beneficialOwners"] = owners
    else:
        last = _text(
            body.personalInfo.lastName if body.personalInfo else None, "personalInfo.lastName"
        )
        if last is None:
            full = stored.get("fullName")
            last = full.split()[-1] if isinstance(full, str) and full.split() else None
        if last is None:
            errors.append(
                _missing(customer.id, "customer.lastName", "The customer's last name is required.")
            )
        else:
            details["kycStatus"] = kyc_status(last, sandbox=sandbox)
            statuses.append(details["kycStatus"])
    return errors, details, statuses


def create_verification(
    db: Session, services: Services, body: VerificationCreate
) -> dict[str, Any]:
    """Verify a customer (KYC for an individual, KYB and owners' KYC for a business)."""
    customer = db.get(Customer, body.customerId)
    if customer is None:
        raise not_found("No customer has this id.", "CUSTOMER_NOT_FOUND")
    errors, details, statuses = _evaluate(customer, body, services.sandbox)
    status = "RESOLVE_ERRORS" if errors else verification_status(statuses)
    now = services.clock.now()
    row = Verification(
        id=new_id("Verification"),
        customer_id=customer.id,
        status=status,
        errors=errors,
        details=details,
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    made = verification_body(row)
    emit(db, f"VERIFICATION.{status}", made)
    check = details.get("kybStatus") or details.get("kycStatus")
    if check in _CUSTOMER_EVENTS:
        prefix = "KYB" if "kybStatus" in details else "KYC"
        emit(
            db,
            f"CUSTOMER.{prefix}_{_CUSTOMER_EVENTS[check]}",
            {**customer_body(customer), f"{prefix.lower()}Status": check},
        )
    return made


def get_verification(db: Session, verification_id: str) -> dict[str, Any]:
    """One verification."""
    row = db.get(Verification, verification_id)
    if row is None:
        raise not_found("No verification has this id.", "VERIFICATION_NOT_FOUND")
    return verification_body(row)


def list_verifications(
    db: Session,
    request: PageRequest,
    customer_id: str | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    """Verifications, oldest first; the filters combine."""
    query = select(Verification)
    if customer_id is not None:
        query = query.where(Verification.customer_id == customer_id)
    if status is not None:
        query = query.where(Verification.status == status)
    return page(db, query, Verification, verification_body, request)
