"""Funding instructions of internal accounts (deterministic per account: the same account always
shows the same sandbox bank details)."""

from __future__ import annotations

import hashlib
from typing import Any

from ._models import InternalAccount

__all__ = ["funding_instructions"]


def funding_instructions(account: InternalAccount) -> list[dict[str, Any]]:
    """Where money for ``account`` can be sent (sandbox details; ``/sandbox/internal-accounts/
    {id}/fund`` simulates a deposit)."""
    digest = hashlib.sha256(account.id.encode("utf-8", "surrogatepass")).hexdigest()
    digits = str(int(digest[:16], 16))[-10:].rjust(10, "0")
    reference = "SBX-" + digest[:10].upper()
    if account.type == "EMBEDDED_WALLET" or account.currency in ("USDC", "USDT", "BTC"):
        info: dict[str, Any] = {
            "accountType": "SPARK_WALLET",
            "assetType": account.currency,
            "address": "spark1sandbox" + digest[:40],
        }
    elif account.currency == "USD":
        info = {
            "accountType": "USD_ACCOUNT",
            "paymentRails": ["ACH", "WIRE", "RTP"],
            "accountNumber": digits,
            "routingNumber": "021000021",
            "bankName": "Sandbox Bank",
            "reference": reference,
        }
    else:
        info = {
            "accountType": f"{account.currency}_ACCOUNT",
            "accountNumber": digits,
            "bankName": "Sandbox Bank",
            "reference": reference,
        }
    return [
        {
            "accountOrWalletInfo": info,
            "instructionsNotes": f"Include the reference {reference}."
            if "reference" in info
            else "Send to this address.",
            "isPlatformAccount": False,
        }
    ]
