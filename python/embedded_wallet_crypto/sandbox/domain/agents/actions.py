"""The AgentAction state machine: every row of the interface's table, as (state, trigger) ->
next state, and the three triggers that run it (an agent's submission, the platform's approval
or rejection). Pure rules: the work an approved action runs is given as a
:class:`QuoteExecution`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..errors import Refusal

__all__ = [
    "ACTION_STATUSES",
    "ACTION_TYPES",
    "TRANSITIONS",
    "ExecutionFailed",
    "Outcome",
    "QuoteExecution",
    "approve",
    "reject",
    "submit",
    "transition",
]

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
