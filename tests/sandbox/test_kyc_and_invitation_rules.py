"""The sandbox's KYB/KYC outcome tables and invitation rules as plain functions: the sandbox's
magic values and production's PENDING, the verification's overall status, UMA addresses
accepted and refused, an invitation's status and its claims and cancellation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from embedded_wallet_crypto.sandbox.domain import errors, invitations, verifications

from ._rules import T0, refusal

# --- KYB/KYC -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "status"),
    [("5523001", "PENDING"), ("BRN-002", "REJECTED"), ("5523003", "APPROVED"), ("", "APPROVED")],
)
def test_kyb_table(value: str, status: str) -> None:
    assert verifications.kyb_status(value, sandbox=True) == status
    assert verifications.kyb_status(value, sandbox=False) == "PENDING"


@pytest.mark.parametrize(
    ("value", "status"), [("Smith001", "PENDING"), ("Smith002", "REJECTED"), ("Smith", "APPROVED")]
)
def test_kyc_table(value: str, status: str) -> None:
    assert verifications.kyc_status(value, sandbox=True) == status
    assert verifications.kyc_status(value, sandbox=False) == "PENDING"


def test_verification_status() -> None:
    assert verifications.verification_status(["APPROVED", "APPROVED"]) == "APPROVED"
    assert verifications.verification_status(["APPROVED", "PENDING"]) == "PENDING_MANUAL_REVIEW"
    assert verifications.verification_status(["PENDING", "REJECTED"]) == "REJECTED"


# --- invitations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "good", ["$alice@example.com", "$a.b-c_d+1@sub.example.org", "$bob@uma-test.dev"]
)
def test_uma_addresses(good: str) -> None:
    assert invitations.check_uma_address(good, "inviteeUma") == good


@pytest.mark.parametrize(
    "bad",
    [
        None,
        5,
        "",
        "alice@example.com",
        "$@example.com",
        "$Alice@example.com",
        "$a@b",
        "$a@@b.c",
        "$a@exa mple.com",
        "$a@.com",
        "$a\x00@example.com",
        "$a@ex\u00e4mple.com",
        "$\udcff@a.bc",
    ],
)
def test_uma_addresses_refused(bad: Any) -> None:
    with pytest.raises(errors.Refusal) as excinfo:
        invitations.check_uma_address(bad, "inviteeUma")
    assert refusal(excinfo) == (400, "INVALID_INPUT")


def test_invitation_status_and_claims() -> None:
    assert invitations.invitation_status("PENDING", None, T0) == "PENDING"
    assert invitations.invitation_status("PENDING", T0 + timedelta(seconds=1), T0) == "PENDING"
    assert invitations.invitation_status("PENDING", T0, T0) == "EXPIRED"
    assert invitations.invitation_status("CLAIMED", T0, T0 + timedelta(days=1)) == "CLAIMED"
    assert invitations.check_claim("PENDING", "$a@x.com", "$b@y.com") == "$b@y.com"
    for status in ("CLAIMED", "EXPIRED", "CANCELLED"):
        with pytest.raises(errors.Refusal) as excinfo:
            invitations.check_claim(status, "$a@x.com", "$b@y.com")
        assert refusal(excinfo) == (400, "INVITATION_NOT_PENDING")
        with pytest.raises(errors.Refusal):
            invitations.check_cancel(status)
    invitations.check_cancel("PENDING")
    with pytest.raises(errors.Refusal):
        invitations.check_claim("PENDING", "$a@x.com", "$a@x.com")
