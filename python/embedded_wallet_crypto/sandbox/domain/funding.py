"""Funding instructions of internal accounts (deterministic per account: the same account always
shows the same sandbox bank details)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from ..db.tables_wallet import InternalAccount

__all__ = ["account_details", "funding_instructions"]


def _iban(country: str, bban: str) -> str:
    """An IBAN with valid check digits (ISO 13616: mod 97 of the rearranged digits is 1)."""
    letters = "".join(str(int(char, 36)) for char in country + "00")
    return f"{country}{98 - int(bban + letters) % 97:02d}{bban}"


#: The published account details of each fiat currency the sandbox names, from 40 digits.
_FIAT: dict[str, Callable[[str], dict[str, Any]]] = {
    "EUR": lambda n: {"iban": _iban("DE", n[:18]), "paymentRails": ["SEPA", "SEPA_INSTANT"]},
    "GBP": lambda n: {
        "sortCode": n[:6],
        "accountNumber": n[6:14],
        "paymentRails": ["FASTER_PAYMENTS"],
    },
    "MXN": lambda n: {"clabeNumber": n[:18], "paymentRails": ["SPEI"]},
    "BRL": lambda n: {"qrCode": "sandbox-pix-" + n[:32]},
    "CAD": lambda n: {
        "bankCode": n[:3],
        "branchCode": n[3:8],
        "accountNumber": n[8:18],
        "paymentRails": ["BANK_TRANSFER"],
    },
    "INR": lambda n: {
        "accountNumber": n[:12],
        "ifsc": "SBIN0" + n[12:18],
        "paymentRails": ["NEFT"],
    },
    "NGN": lambda n: {
        "accountNumber": n[:10],
        "bankName": "Sandbox Bank",
        "paymentRails": ["BANK_TRANSFER"],
    },
    "PHP": lambda n: {
        "accountNumber": n[:12],
        "bankName": "Sandbox Bank",
        "paymentRails": ["BANK_TRANSFER"],
    },
}


def account_details(
    currency: str, seed: str, reference: str, *, wallet: bool = False
) -> dict[str, Any]:
    """The published ``accountOrWalletInfo`` of sandbox bank (or wallet) details in
    ``currency``, derived from ``seed`` (hex digits): an internal account's funding details and
    a realtime-funded quote's payment instructions are the same shapes."""
    digits = str(int(seed[:16], 16))[-10:].rjust(10, "0")
    if wallet or currency in ("USDC", "USDT", "BTC"):
        return {
            "accountType": "SPARK_WALLET",
            "assetType": currency,
            "address": "spark1sandbox" + seed[:40],
        }
    if currency == "USD":
        return {
            "accountType": "USD_ACCOUNT",
            "paymentRails": ["ACH", "WIRE", "RTP"],
            "accountNumber": digits,
            "routingNumber": "021000021",
            "bankName": "Sandbox Bank",
            "reference": reference,
        }
    if currency in _FIAT:
        return {
            "accountType": f"{currency}_ACCOUNT",
            **_FIAT[currency](str(int(seed[16:48], 16)).rjust(40, "0")),
            "reference": reference,
        }
    return {  # a currency without sandbox bank details: a SWIFT wire (the published generic)
        "accountType": "SWIFT_ACCOUNT",
        "country": "US",
        "swiftCode": "SBXBUS33",
        "bankName": "Sandbox Bank",
        "accountNumber": digits,
        "accountHolderName": "Sandbox Platform",
        "paymentRails": ["SWIFT"],
        "reference": reference,
    }


def funding_instructions(account: InternalAccount) -> list[dict[str, Any]]:
    """Where money for ``account`` can be sent (sandbox details; ``/sandbox/internal-accounts/
    {id}/fund`` simulates a deposit)."""
    digest = hashlib.sha256(account.id.encode("utf-8", "surrogatepass")).hexdigest()
    reference = "SBX-" + digest[:10].upper()
    info = account_details(
        account.currency, digest, reference, wallet=account.type == "EMBEDDED_WALLET"
    )
    return [
        {
            "accountOrWalletInfo": info,
            "instructionsNotes": f"Include the reference {reference}."
            if "reference" in info
            else "Send to this address.",
            "isPlatformAccount": False,
        }
    ]
