"""Agent policies: checked and normalised when an agent is made or its policy patched, and
evaluated for each action (which permission, which account, which limits, whether the platform
must approve it). Pure rules: no storage, no web framework; a refusal is a
:class:`~..errors.Refusal` (400 for a bad policy, 403 for an action it refuses)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ...models.fields import MAX_AMOUNT
from ..errors import Refusal, invalid
from ..values import check_text

__all__ = [
    "EXECUTION_MODES",
    "MAX_AMOUNT",
    "PERMISSIONS",
    "Converter",
    "Money",
    "evaluate",
    "require_permission",
    "update_policy",
    "validate_policy",
]

PERMISSIONS: Final = (
    "VIEW_TRANSACTIONS",
    "CREATE_TRANSFERS",
    "CREATE_QUOTES",
    "EXECUTE_QUOTES",
    "MANAGE_EXTERNAL_ACCOUNTS",
)
EXECUTION_MODES: Final = ("AUTO", "APPROVAL_REQUIRED")


def _currency(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) != 3 or not value.isascii() or not value.isupper():
        raise invalid(f"{where} must be an ISO 4217 currency code such as USD.")
    return value


def _amount(value: Any, where: str, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        raise invalid(f"{where} must be an integer from 0 to {MAX_AMOUNT}.")
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise invalid(f"{where} must be a JSON object.")
    return value


def _spending_limits(value: Any, old: Mapping[str, Any] | None) -> dict[str, Any]:
    raw = _object(value, "policy.spendingLimits")
    out: dict[str, Any] = dict(old or {})
    out.setdefault("dailyLimit", None)
    out.setdefault("monthlyLimit", None)
    if "currency" in raw or old is None:
        out["currency"] = _currency(raw.get("currency"), "policy.spendingLimits.currency")
    if "perTransactionLimit" in raw or old is None:
        out["perTransactionLimit"] = _amount(
            raw.get("perTransactionLimit"), "policy.spendingLimits.perTransactionLimit"
        )
    for name in ("dailyLimit", "monthlyLimit"):
        if name in raw:
            out[name] = _amount(raw[name], f"policy.spendingLimits.{name}", nullable=True)
    if "dailyTransactionLimit" in raw:
        out["dailyTransactionLimit"] = _amount(
            raw["dailyTransactionLimit"], "policy.spendingLimits.dailyTransactionLimit"
        )
    return out


def _thresholds(value: Any) -> dict[str, Any]:
    raw = _object(value, "policy.approvalThresholds")
    amount = _amount(raw.get("amount"), "policy.approvalThresholds.amount", nullable=True)
    out: dict[str, Any] = {"amount": amount}
    if amount is not None or raw.get("currency") is not None:
        out["currency"] = _currency(raw.get("currency"), "policy.approvalThresholds.currency")
    return out


def _restrictions(value: Any) -> dict[str, Any]:
    raw = _object(value, "policy.accountRestrictions")
    out: dict[str, Any] = {}
    allowed = raw.get("allowedAccountIds")
    if allowed is not None:
        if not isinstance(allowed, list) or len(allowed) > 100:
            raise invalid("policy.accountRestrictions.allowedAccountIds must be a list of ids.")
        out["allowedAccountIds"] = [
            check_text(a, "policy.accountRestrictions.allowedAccountIds[]") for a in allowed
        ]
    else:
        out["allowedAccountIds"] = None
    rules = raw.get("accountRules", [])
    if not isinstance(rules, list) or len(rules) > 100:
        raise invalid("policy.accountRestrictions.accountRules must be a list.")
    out["accountRules"] = []
    for rule in rules:
        r = _object(rule, "policy.accountRestrictions.accountRules[]")
        entry: dict[str, Any] = {
            "accountId": check_text(r.get("accountId"), "accountRules[].accountId")
        }
        if "executionMode" in r:
            entry["executionMode"] = _mode(r["executionMode"], "accountRules[].executionMode")
        if "perTransactionLimit" in r:
            entry["perTransactionLimit"] = _amount(
                r["perTransactionLimit"], "accountRules[].perTransactionLimit", nullable=True
            )
        out["accountRules"].append(entry)
    return out


def _mode(value: Any, where: str) -> str:
    if value not in EXECUTION_MODES:
        raise invalid(f"{where} must be one of {', '.join(EXECUTION_MODES)}.")
    return str(value)


def _permissions(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(p in PERMISSIONS for p in value):
        raise invalid(f"policy.permissions must be a list of {', '.join(PERMISSIONS)}.")
    return sorted(set(value), key=PERMISSIONS.index)


def validate_policy(value: Any) -> dict[str, Any]:
    """A full AgentPolicy (agent creation) checked and normalised, or a 400 :class:`Refusal`."""
    raw = _object(value, "policy")
    for name in ("permissions", "defaultExecutionMode", "spendingLimits"):
        if name not in raw:
            raise invalid(f"policy.{name} is required.")
    policy: dict[str, Any] = {
        "permissions": _permissions(raw["permissions"]),
        "defaultExecutionMode": _mode(raw["defaultExecutionMode"], "policy.defaultExecutionMode"),
        "spendingLimits": _spending_limits(raw["spendingLimits"], None),
    }
    if raw.get("accountRestrictions") is not None:
        policy["accountRestrictions"] = _restrictions(raw["accountRestrictions"])
    if raw.get("approvalThresholds") is not None:
        policy["approvalThresholds"] = _thresholds(raw["approvalThresholds"])
    return policy


def update_policy(policy: Mapping[str, Any], patch: Any) -> dict[str, Any]:
    """The policy after a partial update (``PATCH /agents/{id}/policy``): given fields replace."""
    raw = _object(patch, "body")
    out = dict(policy)
    if "permissions" in raw:
        out["permissions"] = _permissions(raw["permissions"])
    if "defaultExecutionMode" in raw:
        out["defaultExecutionMode"] = _mode(
            raw["defaultExecutionMode"], "policy.defaultExecutionMode"
        )
    if "spendingLimits" in raw:
        out["spendingLimits"] = _spending_limits(raw["spendingLimits"], policy["spendingLimits"])
    if "accountRestrictions" in raw:
        out["accountRestrictions"] = _restrictions(raw["accountRestrictions"])
    if "approvalThresholds" in raw:
        out["approvalThresholds"] = _thresholds(raw["approvalThresholds"])
    return out


def require_permission(policy: Mapping[str, Any], permission: str) -> None:
    """403 POLICY_PERMISSION_DENIED unless the policy grants ``permission``."""
    if permission not in policy.get("permissions", ()):
        raise Refusal(
            403,
            "POLICY_PERMISSION_DENIED",
            f"The agent's policy does not grant the {permission} permission.",
        )


@dataclass(frozen=True)
class Money:
    """An amount in the smallest unit of ``currency``."""

    amount: int
    currency: str


#: ``convert(money, currency)`` gives the same value in another currency, or None if unknown.
Converter = Callable[[Money, str], "int | None"]


def _in_currency(amounts: Sequence[Money], currency: str, convert: Converter | None) -> int:
    for money in amounts:
        if money.currency == currency:
            return money.amount
    if convert is not None:
        for money in amounts:
            converted = convert(money, currency)
            if converted is not None:
                return converted
    raise Refusal(
        400,
        "POLICY_CURRENCY_UNSUPPORTED",
        f"The amount cannot be expressed in {currency}, the currency of the agent's policy.",
    )


def evaluate(
    policy: Mapping[str, Any],
    amounts: Sequence[Money],
    *,
    source_account_id: str | None = None,
    convert: Converter | None = None,
) -> bool:
    """Whether an action needs the platform's approval (True) or runs at once (False).

    ``amounts`` names the action's value in one or more currencies (a quote: its sending and
    receiving amounts); a limit in another currency is compared after ``convert``. Refusals:
    403 POLICY_ACCOUNT_NOT_ALLOWED (source outside ``allowedAccountIds``), 403
    POLICY_LIMIT_EXCEEDED (above the per-transaction limit, an account rule's limit first).
    Approval is needed when the execution mode (an account rule's first, then
    ``defaultExecutionMode``) is APPROVAL_REQUIRED, or the amount is above
    ``approvalThresholds.amount``.
    """
    restrictions = policy.get("accountRestrictions") or {}
    allowed = restrictions.get("allowedAccountIds")
    if allowed is not None and source_account_id not in allowed:
        raise Refusal(
            403, "POLICY_ACCOUNT_NOT_ALLOWED", "The agent's policy does not allow this account."
        )
    rule: Mapping[str, Any] = next(
        (
            r
            for r in restrictions.get("accountRules", ())
            if r.get("accountId") == source_account_id
        ),
        {},
    )
    limits = policy["spendingLimits"]
    limit = rule.get("perTransactionLimit")
    if limit is None:
        limit = limits["perTransactionLimit"]
    if _in_currency(amounts, limits["currency"], convert) > limit:
        raise Refusal(
            403,
            "POLICY_LIMIT_EXCEEDED",
            "The amount is above the agent's per-transaction spending limit.",
        )
    mode = rule.get("executionMode") or policy["defaultExecutionMode"]
    if mode == "APPROVAL_REQUIRED":
        return True
    thresholds = policy.get("approvalThresholds") or {}
    if thresholds.get("amount") is not None:
        return bool(_in_currency(amounts, thresholds["currency"], convert) > thresholds["amount"])
    return False
