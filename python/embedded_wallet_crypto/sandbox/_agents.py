"""The sandbox's agent rules, with no web or storage code: agent policies and their evaluation,
the AgentAction state machine, device codes and access tokens, the list filters of the agent
endpoints, and the KYB/KYC outcome tables of ``POST /verifications``.

The routes (``routes/agents.py``, ``routes/verifications.py``) persist what these functions
decide; every refusal is a :class:`Refusal` carrying the HTTP status, the error code and a
one-sentence reason, turned into the service's error body by the route.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from ._errors import ApiError

UTC = timezone.utc

# --- refusals ------------------------------------------------------------------------------------


class Refusal(ApiError):
    """A request the agent rules refuse: ``status`` (HTTP), ``code`` (UPPER_CASE), ``reason``;
    answered in the service's error shape like any :class:`ApiError`."""


def _bad(reason: str, code: str = "INVALID_INPUT") -> Refusal:
    return Refusal(400, code, reason)


# --- policies ------------------------------------------------------------------------------------

PERMISSIONS: Final = (
    "VIEW_TRANSACTIONS",
    "CREATE_TRANSFERS",
    "CREATE_QUOTES",
    "EXECUTE_QUOTES",
    "MANAGE_EXTERNAL_ACCOUNTS",
)
EXECUTION_MODES: Final = ("AUTO", "APPROVAL_REQUIRED")
#: The largest amount a policy or an action may name (the interface's lockedCurrencyAmount cap).
MAX_AMOUNT: Final = 9_000_000_000_000_000


def check_text(value: Any, where: str, *, max_length: int = 200) -> str:
    """A storable string: 1 to ``max_length`` characters, valid Unicode (no lone surrogate), no
    NUL; or a 400 :class:`Refusal`."""
    if not isinstance(value, str) or not 1 <= len(value) <= max_length or "\x00" in value:
        raise _bad(f"{where} must be a string of 1 to {max_length} characters without NUL.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad(f"{where} is not valid Unicode.") from None
    return value


def _currency(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) != 3 or not value.isascii() or not value.isupper():
        raise _bad(f"{where} must be an ISO 4217 currency code such as USD.")
    return value


def _amount(value: Any, where: str, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        raise _bad(f"{where} must be an integer from 0 to {MAX_AMOUNT}.")
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _bad(f"{where} must be a JSON object.")
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
            raise _bad("policy.accountRestrictions.allowedAccountIds must be a list of ids.")
        out["allowedAccountIds"] = [
            check_text(a, "policy.accountRestrictions.allowedAccountIds[]") for a in allowed
        ]
    else:
        out["allowedAccountIds"] = None
    rules = raw.get("accountRules", [])
    if not isinstance(rules, list) or len(rules) > 100:
        raise _bad("policy.accountRestrictions.accountRules must be a list.")
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
        raise _bad(f"{where} must be one of {', '.join(EXECUTION_MODES)}.")
    return str(value)


def _permissions(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(p in PERMISSIONS for p in value):
        raise _bad(f"policy.permissions must be a list of {', '.join(PERMISSIONS)}.")
    return sorted(set(value), key=PERMISSIONS.index)


def validate_policy(value: Any) -> dict[str, Any]:
    """A full AgentPolicy (agent creation) checked and normalised, or a 400 :class:`Refusal`."""
    raw = _object(value, "policy")
    for name in ("permissions", "defaultExecutionMode", "spendingLimits"):
        if name not in raw:
            raise _bad(f"policy.{name} is required.")
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


# --- the AgentAction state machine ---------------------------------------------------------------

ACTION_STATUSES: Final = ("PENDING_APPROVAL", "APPROVED", "REJECTED", "FAILED")
ACTION_TYPES: Final = ("EXECUTE_QUOTE", "TRANSFER_OUT", "TRANSFER_IN")

#: Triggers of the state machine: (state, trigger) -> next state. ``None`` is "no action yet".
TRANSITIONS: Final[Mapping[tuple[str | None, str], str]] = {
    (None, "submit_needs_approval"): "PENDING_APPROVAL",
    (None, "submit_auto"): "APPROVED",
    ("PENDING_APPROVAL", "approve"): "APPROVED",
    ("PENDING_APPROVAL", "approve_quote_expired"): "FAILED",
    ("PENDING_APPROVAL", "reject"): "REJECTED",
    ("APPROVED", "execution_failed"): "FAILED",
}


def transition(state: str | None, trigger: str) -> str:
    """The next state, or 409 ACTION_NOT_PENDING for a trigger the state does not take."""
    try:
        return TRANSITIONS[(state, trigger)]
    except KeyError:
        if (None, trigger) in TRANSITIONS or state is None:
            raise ValueError(f"unknown trigger {trigger!r} from {state!r}") from None
        raise Refusal(
            409,
            "ACTION_NOT_PENDING",
            f"The action is {state} and can no longer be approved or rejected.",
        ) from None


class ExecutionFailed(Exception):
    """Raised by a :class:`QuoteExecution` when the underlying operation fails."""

    def __init__(self, reason: str, transaction: Mapping[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.transaction = transaction


@dataclass(frozen=True)
class Outcome:
    """What a trigger did: the action's new ``status`` and the ``transaction`` (if any)."""

    status: str
    transaction: Mapping[str, Any] | None = None
    failure: str | None = None


#: ``execute()`` runs the underlying operation and returns its transaction, or raises
#: :class:`ExecutionFailed`; ``expired()`` tells whether the quote expired before it ran.
@dataclass(frozen=True)
class QuoteExecution:
    """The small interface between the state machine and the quote engine."""

    expired: Callable[[], bool]
    execute: Callable[[], Mapping[str, Any]]


def _run(state: str, work: QuoteExecution) -> Outcome:
    try:
        transaction = work.execute()
    except ExecutionFailed as failed:
        return Outcome(transition(state, "execution_failed"), failed.transaction, failed.reason)
    return Outcome(state, transaction)


def submit(needs_approval: bool, work: QuoteExecution) -> Outcome:
    """An agent's submission: PENDING_APPROVAL (nothing runs) or APPROVED then executed."""
    if needs_approval:
        return Outcome(transition(None, "submit_needs_approval"))
    return _run(transition(None, "submit_auto"), work)


def approve(state: str, work: QuoteExecution) -> Outcome:
    """The platform's approval of a PENDING_APPROVAL action."""
    if state == "PENDING_APPROVAL" and work.expired():
        return Outcome(transition(state, "approve_quote_expired"), failure="QUOTE_EXPIRED")
    return _run(transition(state, "approve"), work)


def reject(state: str) -> Outcome:
    """The platform's rejection of a PENDING_APPROVAL action."""
    return Outcome(transition(state, "reject"))


# --- device codes and access tokens --------------------------------------------------------------

#: A device code lives 24 hours, an access token 30 days (both on the scaled clock).
DEVICE_CODE_LIFETIME: Final = timedelta(hours=24)
ACCESS_TOKEN_LIFETIME: Final = timedelta(days=30)
_CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def new_device_code() -> str:
    """A fresh human-readable device code, ``AGENT-XXXX-XXXX``."""
    groups = ("".join(secrets.choice(_CODE_ALPHABET) for _ in range(4)) for _ in range(2))
    return "AGENT-" + "-".join(groups)


def new_access_token() -> str:
    """A fresh agent access token: ``gat_`` and 40 hex digits (160 random bits)."""
    return "gat_" + secrets.token_hex(20)


def token_hash(token: str) -> str:
    """What the service stores for a device code or an access token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_hash(a: str, b: str) -> bool:
    """Constant-time comparison of two stored hashes."""
    return hmac.compare_digest(a.encode(), b.encode())


# --- list queries --------------------------------------------------------------------------------


def parse_datetime(value: str | None, name: str) -> datetime | None:
    """An ISO 8601 date-time query value (a bare date is its midnight UTC; no zone is UTC)."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except (ValueError, TypeError):
        raise _bad(f"{name} must be an ISO 8601 date-time.") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_limit(value: str | int | None) -> int:
    """The page size: 1 to 100, default 20."""
    if value is None:
        return 20
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if isinstance(value, bool) or not 1 <= limit <= 100 or str(limit) != str(value).strip():
        raise _bad("limit must be an integer from 1 to 100.")
    return limit


def parse_sort_order(value: str | None) -> str:
    """``asc`` or ``desc`` (the default)."""
    if value is None:
        return "desc"
    if value not in ("asc", "desc"):
        raise _bad("sortOrder must be asc or desc.")
    return value


def parse_enum(value: str | None, name: str, allowed: Sequence[str]) -> str | None:
    """An optional enum query value."""
    if value is not None and value not in allowed:
        raise _bad(f"{name} must be one of {', '.join(allowed)}.")
    return value


def as_datetime(value: Any) -> datetime:
    """A resource's timestamp (a datetime or its ISO string) as an aware datetime."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    parsed = parse_datetime(str(value), "timestamp")
    assert parsed is not None
    return parsed


def in_range(moment: Any, start: datetime | None, end: datetime | None) -> bool:
    """``start <= moment <= end`` (both inclusive, either may be absent)."""
    when = as_datetime(moment)
    return (start is None or when >= start) and (end is None or when <= end)


def _encode_cursor(created: datetime, ident: str) -> str:
    raw = json.dumps([created.isoformat(), ident], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, ident = json.loads(raw)
        when = datetime.fromisoformat(created)
        if not isinstance(ident, str) or when.tzinfo is None:
            raise ValueError
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise _bad("cursor is not a cursor this service returned.") from None
    return when, ident


def page(
    items: Iterable[Mapping[str, Any]],
    *,
    limit: int,
    cursor: str | None,
    sort_order: str,
) -> dict[str, Any]:
    """One page of the list envelope over resources ordered by (``createdAt``, ``id``).

    ``totalCount`` counts every match before pagination; ``nextCursor`` (only with ``hasMore``)
    names the last item of the page, so items created meanwhile never shift a page.
    """
    ordered = sorted(items, key=lambda i: (as_datetime(i["createdAt"]), str(i["id"])))
    if sort_order == "desc":
        ordered.reverse()
    total = len(ordered)
    if cursor is not None:
        after = _decode_cursor(cursor)
        if sort_order == "asc":
            ordered = [i for i in ordered if (as_datetime(i["createdAt"]), str(i["id"])) > after]
        else:
            ordered = [i for i in ordered if (as_datetime(i["createdAt"]), str(i["id"])) < after]
    chunk = ordered[:limit]
    body: dict[str, Any] = {"data": list(chunk), "hasMore": len(ordered) > limit}
    if body["hasMore"]:
        last = chunk[-1]
        body["nextCursor"] = _encode_cursor(as_datetime(last["createdAt"]), str(last["id"]))
    body["totalCount"] = total
    return body


# --- KYB and KYC outcomes ------------------------------------------------------------------------

_SUFFIX_STATUS: Final = {"001": "PENDING", "002": "REJECTED"}


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


# --- invitations -------------------------------------------------------------------------------

INVITATION_STATUSES: Final = ("PENDING", "CLAIMED", "EXPIRED", "CANCELLED")
_UMA_LOCAL: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-+")


def check_uma_address(value: Any, name: str) -> str:
    """An UMA address ``$user@domain`` (lower-case user part), or a 400 :class:`Refusal`."""
    if not isinstance(value, str) or not value.startswith("$") or value.count("@") != 1:
        raise _bad(f"{name} must be an UMA address such as $alice@example.com.")
    user, domain = value[1:].split("@")
    labels = domain.split(".")
    if (
        not 1 <= len(user) <= 64
        or not set(user) <= _UMA_LOCAL
        or len(labels) < 2
        or not all(label and label.replace("-", "").isalnum() for label in labels)
        or not domain.isascii()
    ):
        raise _bad(f"{name} must be an UMA address such as $alice@example.com.")
    return value


def invitation_status(stored: str, expires_at: datetime | None, now: datetime) -> str:
    """A PENDING invitation whose ``expiresAt`` has passed reads as EXPIRED."""
    if stored == "PENDING" and expires_at is not None and as_datetime(expires_at) <= now:
        return "EXPIRED"
    return stored


def check_claim(status: str, inviter_uma: str, invitee_uma: Any) -> str:
    """The invitee of a claim, or 400 INVITATION_NOT_PENDING / INVALID_INPUT."""
    invitee = check_uma_address(invitee_uma, "inviteeUma")
    if status != "PENDING":
        raise _bad(f"The invitation is {status} and cannot be claimed.", "INVITATION_NOT_PENDING")
    if invitee == inviter_uma:
        raise _bad("An invitation cannot be claimed by its inviter.")
    return invitee


def check_cancel(status: str) -> None:
    """400 INVITATION_NOT_PENDING unless the invitation can still be cancelled."""
    if status != "PENDING":
        raise _bad(f"The invitation is {status} and cannot be cancelled.", "INVITATION_NOT_PENDING")


def utc_now() -> datetime:
    """Wall-clock now, UTC (the routes use the service's scaled clock instead)."""
    return datetime.now(UTC)
