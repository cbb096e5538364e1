"""The sandbox's fixed money tables: exchange rates, fees, and the outcomes selected by the last
three digits of an external account's identifier, as schedules of status steps.

Everything here is pure (no database, no clock): a schedule is a list of :class:`Step`, each at a
number of *simulated* seconds after the start; the caller scales them by ``--time-scale``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from ..models.fields import MAX_AMOUNT

__all__ = [
    "BALANCE_CEILING",
    "MAX_LOCKED_AMOUNT",
    "QUOTE_LIFETIME_SECONDS",
    "RATES_PER_USD",
    "Conversion",
    "Step",
    "beneficiary_status",
    "convert",
    "decimals_of",
    "fee_table",
    "quote_outcome",
    "suffix_of",
    "transfer_outcome",
    "uma_receiver_outcome",
]

#: The ceiling of every balance, in smallest units: the interface's largest amount (its
#: ``lockedCurrencyAmount`` limit). Below 2**53, so every balance and amount is an exact number
#: in any JSON reader (JavaScript's included); and a balance plus an amount stays far below
#: 2**63 - 1, so no sum the database computes overflows its 64-bit integers.
BALANCE_CEILING = MAX_AMOUNT
#: The largest amount of any request (``lockedCurrencyAmount``, ``amount``): the same number.
MAX_LOCKED_AMOUNT = BALANCE_CEILING
#: How long a quote can be executed, in simulated seconds (the interface says 1 to 5 minutes).
QUOTE_LIFETIME_SECONDS = 5 * 60

#: Units of each currency one US dollar buys (fixed sandbox rates, major units).
RATES_PER_USD: dict[str, Decimal] = {
    "USD": Decimal("1"),
    "EUR": Decimal("0.92"),
    "GBP": Decimal("0.79"),
    "MXN": Decimal("17.50"),
    "BRL": Decimal("5.00"),
    "AED": Decimal("3.6725"),
    "CAD": Decimal("1.36"),
    "INR": Decimal("83.00"),
    "NGN": Decimal("1500"),
    "PHP": Decimal("56.00"),
    "USDC": Decimal("1"),
    "USDT": Decimal("1"),
    "BTC": Decimal("0.000016"),
}

#: The fixed fee, in US cents (converted to the sending currency), and the variable fee rate.
FIXED_FEE_USD_CENTS = 10
VARIABLE_FEE_RATE = Decimal("0.005")

_DECIMALS = {"BTC": 8, "USDC": 6, "USDT": 6}


def decimals_of(code: str) -> int:
    """The digits after the point of ``code``'s smallest unit (2 for fiat here)."""
    return _DECIMALS.get(code, 2)


def _major(amount: int | Decimal, code: str) -> Decimal:
    return Decimal(amount).scaleb(-decimals_of(code))


def _minor(amount: Decimal, code: str, rounding: str) -> int:
    return int(amount.scaleb(decimals_of(code)).to_integral_value(rounding=rounding))


def fee_table(code: str) -> tuple[int, Decimal]:
    """The fixed fee (smallest units of ``code``, at least 1) and the variable fee rate."""
    fixed = _major(FIXED_FEE_USD_CENTS, "USD") * RATES_PER_USD[code]
    return max(1, _minor(fixed, code, ROUND_CEILING)), VARIABLE_FEE_RATE


@dataclass(frozen=True)
class Conversion:
    """A priced conversion: amounts in smallest units."""

    total_sending: int
    total_receiving: int
    fees: int
    fixed_fee: int
    variable_fee: int
    exchange_rate: float  # sending major units per receiving major unit

    def rate_details(self) -> dict[str, Any]:
        return {
            "counterpartyMultiplier": 1.0,
            "counterpartyFixedFee": 0,
            "serviceApiMultiplier": 1.0 / self.exchange_rate,
            "serviceApiFixedFee": self.fixed_fee,
            "serviceApiVariableFeeRate": float(VARIABLE_FEE_RATE),
            "serviceApiVariableFeeAmount": self.variable_fee,
        }


def convert(sending: str, receiving: str, locked_side: str, amount: int) -> Conversion | None:
    """Price a conversion with the fixed tables; None when the amount does not cover the fees
    or converts to nothing.

    ``locked_side`` SENDING: ``amount`` is the total sent, fees included; RECEIVING: ``amount``
    is what arrives and the fees come on top.
    """
    rate = RATES_PER_USD[receiving] / RATES_PER_USD[sending]  # receiving major per sending major
    fixed, variable_rate = fee_table(sending)
    if locked_side == "SENDING":
        total = amount
        net = int(
            ((Decimal(total - fixed)) / (1 + variable_rate)).to_integral_value(rounding=ROUND_FLOOR)
        )
        receiving_amount = _minor(_major(net, sending) * rate, receiving, ROUND_FLOOR)
    else:
        receiving_amount = amount
        net = _minor(_major(amount, receiving) / rate, sending, ROUND_CEILING)
        total = net + fixed + int((net * variable_rate).to_integral_value(rounding=ROUND_FLOOR))
    if net <= 0 or receiving_amount <= 0:
        return None
    fees = total - net
    return Conversion(
        total_sending=total,
        total_receiving=receiving_amount,
        fees=fees,
        fixed_fee=fixed,
        variable_fee=fees - fixed,
        exchange_rate=float(1 / rate),
    )


@dataclass(frozen=True)
class Step:
    """At ``after`` simulated seconds from the start, the transaction becomes ``status``."""

    after: float
    status: str
    failure_reason: str | None = None
    refund: bool = False  # the source gets its money back
    credit: bool = False  # the destination (internal) is credited


#: A successful payment settles this many simulated seconds after execution.
SETTLE_SECONDS = 2.0
#: Suffix 003 of a quote execution completes after about six minutes.
SLOW_SETTLE_SECONDS = 6 * 60
#: Suffix 005 of a transfer stays pending about thirty seconds, then fails.
PENDING_FAIL_SECONDS = 30
#: Suffix 005 of a quote execution: completed, then returned by the receiving bank.
RETURN_SECONDS = 20


def suffix_of(identifier: str) -> str:
    """The last three characters of an identifier's username part (before any ``@``)."""
    return identifier.split("@", 1)[0][-3:]


def transfer_outcome(suffix: str) -> list[Step]:
    """Transfer in and transfer out, by suffix (the first step is the status at creation)."""
    if suffix == "002":  # insufficient funds
        return [Step(0, "FAILED", "FUNDING_AMOUNT_MISMATCH", refund=True)]
    if suffix == "003":  # account closed or invalid
        return [Step(0, "FAILED", "ACCOUNT_INVALID", refund=True)]
    if suffix == "004":  # the bank rejects the transfer
        return [
            Step(0, "PROCESSING"),
            Step(SETTLE_SECONDS, "REJECTED", "ACCOUNT_CANNOT_RECEIVE", refund=True),
        ]
    if suffix == "005":  # pending about 30 s, then fails
        return [
            Step(0, "PENDING"),
            Step(PENDING_FAIL_SECONDS, "FAILED", "COUNTERPARTY_POST_TX_FAILED", refund=True),
        ]
    return [Step(0, "PROCESSING"), Step(SETTLE_SECONDS, "COMPLETED", credit=True)]


def quote_outcome(suffix: str | None) -> list[Step]:
    """Quote execution to an external account, by suffix (None: an internal destination)."""
    if suffix == "002":
        return [Step(0, "FAILED", "QUOTE_EXECUTION_FAILED", refund=True)]
    if suffix == "003":
        return [Step(0, "PROCESSING"), Step(SLOW_SETTLE_SECONDS, "COMPLETED", credit=True)]
    if suffix == "004":  # counterparty delivery failed
        return [
            Step(0, "PROCESSING"),
            Step(SETTLE_SECONDS, "FAILED", "COUNTERPARTY_POST_TX_FAILED", refund=True),
        ]
    if suffix == "005":  # receiving bank returns the payment
        return [
            Step(0, "PROCESSING"),
            Step(SETTLE_SECONDS, "COMPLETED", credit=True),
            Step(RETURN_SECONDS, "FAILED", "PAYOUT_RETURNED", refund=True),
        ]
    if suffix == "006":  # user cancellation: refunded
        return [Step(0, "PROCESSING"), Step(SETTLE_SECONDS, "REFUNDED", refund=True)]
    if suffix == "007":  # payout and refund failed: the money is not returned
        return [
            Step(0, "PROCESSING"),
            Step(SETTLE_SECONDS, "FAILED", "COUNTERPARTY_POST_TX_FAILED"),
        ]
    return [Step(0, "PROCESSING"), Step(SETTLE_SECONDS, "COMPLETED", credit=True)]


#: A payment to ``$pending.long.usd@...`` stays processing this long (simulated seconds).
LONG_PENDING_SECONDS = 24 * 3600


def uma_receiver_outcome(address: str) -> list[Step] | None:
    """Payments to the sandbox UMA receivers; None for an address the table does not name."""
    user = address.split("@", 1)[0].lstrip("$").lower()
    if user in ("success.usd", "success.eur", "success.mxn"):
        return [Step(0, "PROCESSING"), Step(SETTLE_SECONDS, "COMPLETED")]
    if user == "pending.long.usd":
        return [Step(0, "PROCESSING"), Step(LONG_PENDING_SECONDS, "COMPLETED")]
    if user == "fail.compliance.usd":
        return [Step(0, "PROCESSING"), Step(SETTLE_SECONDS, "FAILED", "COMPLIANCE_REJECTED", True)]
    return None


def uma_receiver_currency(address: str) -> str | None:
    """The currency a sandbox UMA receiver address names (``$success.eur@...`` -> EUR)."""
    user = address.split("@", 1)[0].lstrip("$").lower()
    last = user.rsplit(".", 1)[-1]
    return last.upper() if last in ("usd", "eur", "mxn") else None


def beneficiary_status(suffix: str) -> str | None:
    """Beneficiary name verification by suffix; None for 105 (an invalid account: 400)."""
    return {
        "102": "NOT_MATCHED",
        "103": "PARTIAL_MATCH",
        "104": "PENDING",
        "105": None,
        "106": "UNSUPPORTED",
        "107": "CHECKED_BY_RECEIVING_FI",
    }.get(suffix, "MATCHED")
