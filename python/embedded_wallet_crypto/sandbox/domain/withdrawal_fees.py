"""``POST /crypto/estimate-withdrawal-fee``: the fees of a crypto withdrawal, from a fixed table
(no chain is asked; the same answer every time, in both environments).

Checked for real: the account exists (404) and holds ``currency`` (400 ``INVALID_CURRENCY``);
the destination address has its network's form (400 ``INVALID_INPUT``): ``0x`` and 40 hex
digits on the EVM networks, 32 bytes of base58 on Solana, base58 or bech32 characters on
Bitcoin and Tron, and up to 200 printable ASCII characters elsewhere; the amount covers the fee
(400 ``AMOUNT_OUT_OF_RANGE``). The application fee is 0.
"""

from __future__ import annotations

import re
from typing import Any, Final

from sqlalchemy.orm import Session

from ... import b58decode
from ...errors import DecodeError
from ..db.tables_wallet import InternalAccount
from ..models.crypto import WithdrawalFeeRequest
from .currencies import currency
from .errors import invalid, not_found

__all__ = ["NETWORK_FEES", "estimate_fee"]

#: Network -> (its fee in the network's asset, that asset, the fee in millionths of a dollar).
NETWORK_FEES: Final[dict[str, tuple[int, str, int]]] = {
    "SOLANA": (5_000, "SOL", 1_000),
    "ETHEREUM": (420_000_000_000_000, "ETH", 1_500_000),
    "BASE": (2_100_000_000_000, "ETH", 10_000),
    "POLYGON": (10_500_000_000_000_000, "POL", 5_000),
    "PLASMA": (0, "XPL", 0),
    "TRON": (1_100_000, "TRX", 300_000),
    "BITCOIN": (1_410, "BTC", 1_400_000),
    "SPARK": (0, "BTC", 0),
    "LIGHTNING": (3, "BTC", 3_000),
}
_EVM = re.compile(r"0x[0-9a-fA-F]{40}")
_WORD = re.compile(r"[A-Za-z0-9]{20,100}")
_PRINTABLE = re.compile(r"[\x21-\x7e]{1,200}")


def _address_ok(network: str, address: str) -> bool:
    if network in ("ETHEREUM", "BASE", "POLYGON", "PLASMA"):
        return _EVM.fullmatch(address) is not None
    if network == "SOLANA":
        try:
            return len(b58decode(address)) == 32
        except DecodeError:
            return False
    if network in ("BITCOIN", "TRON"):
        return _WORD.fullmatch(address) is not None
    return _PRINTABLE.fullmatch(address) is not None


def estimate_fee(db: Session, body: WithdrawalFeeRequest) -> dict[str, Any]:
    account = db.get(InternalAccount, body.internalAccountId)
    if account is None:
        raise not_found("No internal account has this id.")
    if account.currency != body.currency:
        raise invalid(f"The account holds {account.currency}.", "INVALID_CURRENCY")
    if not _address_ok(body.cryptoNetwork, body.destinationAddress):
        raise invalid(f"destinationAddress is not an address of the {body.cryptoNetwork} network.")
    network_fee, asset, micro_dollars = NETWORK_FEES[body.cryptoNetwork]
    decimals = int(currency(body.currency)["decimals"])
    fee = micro_dollars * 10**decimals // 1_000_000
    if micro_dollars and fee == 0:
        fee = 1
    if body.amount <= fee:
        raise invalid("The amount does not cover the fee.", "AMOUNT_OUT_OF_RANGE")
    return {
        "networkFee": network_fee,
        "networkFeeAsset": asset,
        "applicationFee": 0,
        "totalFee": fee,
        "netAmount": body.amount - fee,
    }
