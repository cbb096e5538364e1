"""The sandbox's agent rules as plain functions: policy checks and evaluation, the AgentAction
state machine (every row of the interface's table), device codes and tokens. The list queries
are ``test_list_queries``, the KYB/KYC tables and invitations ``test_kyc_and_invitation_rules``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from embedded_wallet_crypto.sandbox.domain import errors
from embedded_wallet_crypto.sandbox.domain.agents import actions, tokens
from embedded_wallet_crypto.sandbox.domain.agents import policy as policies
from hypothesis import given
from hypothesis import strategies as st

from ._rules import refusal

POLICY = {
    "permissions": ["EXECUTE_QUOTES", "VIEW_TRANSACTIONS"],
    "defaultExecutionMode": "AUTO",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 50_000},
    "approvalThresholds": {"currency": "USD", "amount": 10_000},
}


# --- policies ----------------------------------------------------------------------------------


def test_validate_policy_normalises() -> None:
    policy = policies.validate_policy(POLICY)
    assert policy["permissions"] == ["VIEW_TRANSACTIONS", "EXECUTE_QUOTES"]
    assert policy["spendingLimits"] == {
        "currency": "USD",
        "perTransactionLimit": 50_000,
        "dailyLimit": None,
        "monthlyLimit": None,
    }
    assert policy["approvalThresholds"] == {"currency": "USD", "amount": 10_000}


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {**POLICY, "permissions": ["FLY"]},
        {**POLICY, "permissions": "EXECUTE_QUOTES"},
        {**POLICY, "defaultExecutionMode": "MAYBE"},
        {**POLICY, "spendingLimits": {"currency": "usd", "perTransactionLimit": 1}},
        {**POLICY, "spendingLimits": {"currency": "USD", "perTransactionLimit": -1}},
        {**POLICY, "spendingLimits": {"currency": "USD", "perTransactionLimit": True}},
        {**POLICY, "spendingLimits": {"currency": "USD", "perTransactionLimit": 1.5}},
        {**POLICY, "spendingLimits": {"currency": "USD", "perTransactionLimit": 10**17}},
        {**POLICY, "approvalThresholds": {"amount": 5}},
        {**POLICY, "accountRestrictions": {"allowedAccountIds": "x"}},
        {**POLICY, "accountRestrictions": {"accountRules": [{"executionMode": "AUTO"}]}},
        {k: v for k, v in POLICY.items() if k != "spendingLimits"},
    ],
)
def test_validate_policy_refuses(bad: Any) -> None:
    with pytest.raises(errors.Refusal) as excinfo:
        policies.validate_policy(bad)
    assert refusal(excinfo) == (400, "INVALID_INPUT")


def test_update_policy_is_partial() -> None:
    policy = policies.validate_policy(POLICY)
    updated = policies.update_policy(
        policy, {"spendingLimits": {"dailyLimit": 7}, "defaultExecutionMode": "APPROVAL_REQUIRED"}
    )
    assert updated["spendingLimits"]["perTransactionLimit"] == 50_000
    assert updated["spendingLimits"]["dailyLimit"] == 7
    assert updated["defaultExecutionMode"] == "APPROVAL_REQUIRED"
    assert updated["permissions"] == policy["permissions"]
    assert policy["defaultExecutionMode"] == "AUTO"  # the input is not changed


def test_require_permission() -> None:
    policy = policies.validate_policy(POLICY)
    policies.require_permission(policy, "EXECUTE_QUOTES")
    with pytest.raises(errors.Refusal) as excinfo:
        policies.require_permission(policy, "CREATE_TRANSFERS")
    assert refusal(excinfo) == (403, "POLICY_PERMISSION_DENIED")


USD = "USD"


@pytest.mark.parametrize(
    ("amount", "needs_approval"), [(0, False), (10_000, False), (10_001, True), (50_000, True)]
)
def test_threshold_decides_approval(amount: int, needs_approval: bool) -> None:
    policy = policies.validate_policy(POLICY)
    assert policies.evaluate(policy, [policies.Money(amount, USD)]) is needs_approval


def test_per_transaction_limit_refuses() -> None:
    policy = policies.validate_policy(POLICY)
    with pytest.raises(errors.Refusal) as excinfo:
        policies.evaluate(policy, [policies.Money(50_001, USD)])
    assert refusal(excinfo) == (403, "POLICY_LIMIT_EXCEEDED")


def test_approval_required_mode_always_needs_approval() -> None:
    policy = policies.validate_policy({**POLICY, "defaultExecutionMode": "APPROVAL_REQUIRED"})
    assert policies.evaluate(policy, [policies.Money(1, USD)]) is True


def test_no_threshold_means_auto() -> None:
    policy = policies.validate_policy(
        {k: v for k, v in POLICY.items() if k != "approvalThresholds"}
    )
    assert policies.evaluate(policy, [policies.Money(50_000, USD)]) is False


def test_account_rules_and_restrictions() -> None:
    policy = policies.validate_policy(
        {
            **POLICY,
            "accountRestrictions": {
                "allowedAccountIds": ["InternalAccount:a", "InternalAccount:b"],
                "accountRules": [
                    {"accountId": "InternalAccount:b", "executionMode": "APPROVAL_REQUIRED"},
                    {"accountId": "InternalAccount:a", "perTransactionLimit": 5},
                ],
            },
        }
    )
    assert policies.evaluate(
        policy, [policies.Money(1, USD)], source_account_id="InternalAccount:b"
    )
    assert not policies.evaluate(
        policy, [policies.Money(5, USD)], source_account_id="InternalAccount:a"
    )
    with pytest.raises(errors.Refusal) as excinfo:
        policies.evaluate(policy, [policies.Money(6, USD)], source_account_id="InternalAccount:a")
    assert refusal(excinfo) == (403, "POLICY_LIMIT_EXCEEDED")
    with pytest.raises(errors.Refusal) as excinfo:
        policies.evaluate(policy, [policies.Money(1, USD)], source_account_id="InternalAccount:c")
    assert refusal(excinfo) == (403, "POLICY_ACCOUNT_NOT_ALLOWED")


def test_other_currencies_use_the_matching_side_or_the_converter() -> None:
    policy = policies.validate_policy(POLICY)
    # A quote: 9,000 USD cents sent, 45,000 MXN centavos received: the USD side is compared.
    assert not policies.evaluate(
        policy, [policies.Money(45_000, "MXN"), policies.Money(9_000, USD)]
    )

    def convert(money: policies.Money, currency: str) -> int | None:
        return money.amount * 2 if (money.currency, currency) == ("EUR", USD) else None

    assert policies.evaluate(policy, [policies.Money(6_000, "EUR")], convert=convert)
    with pytest.raises(errors.Refusal) as excinfo:
        policies.evaluate(policy, [policies.Money(1, "BRL")], convert=convert)
    assert refusal(excinfo) == (400, "POLICY_CURRENCY_UNSUPPORTED")


@given(amount=st.integers(0, 50_000), threshold=st.integers(0, 50_000))
def test_threshold_property(amount: int, threshold: int) -> None:
    policy = policies.validate_policy(
        {**POLICY, "approvalThresholds": {"currency": USD, "amount": threshold}}
    )
    assert policies.evaluate(policy, [policies.Money(amount, USD)]) is (amount > threshold)


# --- the state machine: every row of the table -------------------------------------------------


class Work:
    """A QuoteExecution double for the pure state machine (the HTTP suite runs the real one)."""

    def __init__(self, *, expired: bool = False, fails: bool = False) -> None:
        self.is_expired = expired
        self.fails = fails
        self.runs = 0

    def execution(self) -> actions.QuoteExecution:
        return actions.QuoteExecution(expired=lambda: self.is_expired, execute=self.execute)

    def execute(self) -> Mapping[str, Any]:
        self.runs += 1
        if self.fails:
            raise actions.ExecutionFailed("QUOTE_EXECUTION_FAILED", {"status": "FAILED"})
        return {"id": "Transaction:1", "status": "PENDING"}


def test_none_to_pending_approval_runs_nothing() -> None:
    work = Work()
    outcome = actions.submit(True, work.execution())
    assert (outcome.status, outcome.transaction, work.runs) == ("PENDING_APPROVAL", None, 0)


def test_none_to_approved_populates_the_transaction() -> None:
    work = Work()
    outcome = actions.submit(False, work.execution())
    assert outcome.status == "APPROVED"
    assert outcome.transaction == {"id": "Transaction:1", "status": "PENDING"}
    assert work.runs == 1


def test_pending_to_approved_on_approve() -> None:
    work = Work()
    outcome = actions.approve("PENDING_APPROVAL", work.execution())
    assert (outcome.status, work.runs) == ("APPROVED", 1)
    assert outcome.transaction is not None


def test_pending_to_failed_when_the_quote_expired_meanwhile() -> None:
    work = Work(expired=True)
    outcome = actions.approve("PENDING_APPROVAL", work.execution())
    assert (outcome.status, outcome.failure, work.runs) == ("FAILED", "QUOTE_EXPIRED", 0)


def test_pending_to_rejected() -> None:
    assert actions.reject("PENDING_APPROVAL").status == "REJECTED"


def test_approved_to_failed_when_execution_fails() -> None:
    work = Work(fails=True)
    auto = actions.submit(False, work.execution())
    approved = actions.approve("PENDING_APPROVAL", work.execution())
    for outcome in (auto, approved):
        assert outcome.status == "FAILED"
        assert outcome.failure == "QUOTE_EXECUTION_FAILED"
        assert outcome.transaction == {"status": "FAILED"}


@pytest.mark.parametrize("state", ["APPROVED", "REJECTED", "FAILED"])
def test_only_pending_actions_take_a_decision(state: str) -> None:
    for decide in (
        lambda: actions.approve(state, Work().execution()),
        lambda: actions.reject(state),
    ):
        with pytest.raises(errors.Refusal) as excinfo:
            decide()
        assert refusal(excinfo) == (409, "ACTION_NOT_PENDING")


def test_the_table_has_exactly_the_interface_rows() -> None:
    assert set(actions.TRANSITIONS.items()) == {
        ((None, "submit_needs_approval"), "PENDING_APPROVAL"),
        ((None, "submit_auto"), "APPROVED"),
        (("PENDING_APPROVAL", "approve"), "APPROVED"),
        (("PENDING_APPROVAL", "approve_quote_expired"), "FAILED"),
        (("PENDING_APPROVAL", "reject"), "REJECTED"),
        (("APPROVED", "execution_failed"), "FAILED"),
    }


# --- device codes and tokens -------------------------------------------------------------------


def test_codes_and_tokens() -> None:
    code = tokens.new_device_code()
    assert len(code) == len("AGENT-XXXX-XXXX") and code.startswith("AGENT-")
    token = tokens.new_access_token()
    assert token.startswith("gat_") and len(token) == 44
    assert tokens.new_access_token() != token
    stored = tokens.token_hash(token)
    assert token not in stored and len(stored) == 64
    assert tokens.same_hash(stored, tokens.token_hash(token))
    assert not tokens.same_hash(stored, tokens.token_hash(token + "x"))
    assert tokens.token_hash("\udcff") != tokens.token_hash("")  # a lone surrogate hashes, no raise
