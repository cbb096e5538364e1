"""The sandbox's fixed directories: exchange rates (from the quote tables), UMA providers,
VASPs and the receiving institutions of ``/discoveries``. Nothing here is stored; every answer
is the same for every platform, except that the exchange rates' amount limits follow the
platform's ``supportedCurrencies``."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Final

from sqlalchemy.orm import Session

from ..clock import iso
from ..db.pages import PageRequest, page_of
from .currencies import currency, is_currency_code
from .errors import invalid
from .payment_tables import MAX_LOCKED_AMOUNT, RATES_PER_USD, convert, fee_table
from .platform_config import load_config

__all__ = [
    "DEFAULT_SENDING_AMOUNT",
    "PAYMENT_RAILS",
    "discoveries",
    "exchange_rates",
    "uma_providers",
    "vasps",
]

#: The sending amount of ``/exchange-rates`` without ``sendingAmount`` (the published default).
DEFAULT_SENDING_AMOUNT: Final = 10000
#: The rail of each destination currency that has one (crypto has none: not a destination).
PAYMENT_RAILS: Final = {
    "USD": "ACH",
    "EUR": "SEPA_INSTANT",
    "GBP": "FASTER_PAYMENTS",
    "MXN": "SPEI",
    "BRL": "PIX",
    "AED": "BANK_TRANSFER",
    "CAD": "BANK_TRANSFER",
    "INR": "UPI",
    "NGN": "BANK_TRANSFER",
    "PHP": "INSTAPAY",
}
#: The rates' refresh time: the start of the current five minutes (they are "cached for about
#: 5 minutes").
_REFRESH_SECONDS: Final = 300


def _code(value: str, name: str) -> str:
    if not is_currency_code(value):
        raise invalid(f"{name} must be a currency code such as USD.", "INVALID_CURRENCY")
    return value


def exchange_rates(
    db: Session,
    now: datetime,
    source: str | None,
    destinations: list[str],
    sending_amount: int,
) -> dict[str, Any]:
    """Every corridor of the fixed rates from ``source`` (any rated currency when None) to
    ``destinations`` (every fiat currency with a rail when empty), priced for
    ``sending_amount`` as a quote locked on the sending side would be."""
    if not 0 <= sending_amount <= MAX_LOCKED_AMOUNT:
        raise invalid(f"sendingAmount must be from 0 to {MAX_LOCKED_AMOUNT}.", "INVALID_AMOUNT")
    sources = [_code(source, "sourceCurrency")] if source is not None else list(RATES_PER_USD)
    wanted = [_code(code, "destinationCurrency") for code in destinations] or list(PAYMENT_RAILS)
    limits = {entry["currencyCode"]: entry for entry in load_config(db).supported_currencies}
    stamp = int(now.timestamp()) // _REFRESH_SECONDS * _REFRESH_SECONDS
    updated = iso(datetime.fromtimestamp(stamp, timezone.utc))
    data = []
    for sending in sources:
        if sending not in RATES_PER_USD:
            continue
        fixed, _ = fee_table(sending)
        entry = limits.get(sending, {})
        for receiving in dict.fromkeys(wanted):
            if receiving == sending or receiving not in PAYMENT_RAILS:
                continue
            priced = convert(sending, receiving, "SENDING", sending_amount)
            data.append(
                {
                    "sourceCurrency": currency(sending),
                    "sendingAmount": sending_amount,
                    "minSendingAmount": int(entry.get("minAmount") or fixed + 1),
                    "maxSendingAmount": int(entry.get("maxAmount") or MAX_LOCKED_AMOUNT),
                    "destinationCurrency": currency(receiving),
                    "destinationPaymentRail": PAYMENT_RAILS[receiving],
                    "receivingAmount": priced.total_receiving if priced else 0,
                    "exchangeRate": float(RATES_PER_USD[sending] / RATES_PER_USD[receiving]),
                    "fees": {
                        "fixed": fixed,
                        "total": priced.fees if priced else sending_amount,
                    },
                    "updatedAt": updated,
                }
            )
    return {"data": data}


def _provider(
    name: str, domain: str, regions: list[str], codes: list[str], lei: str, allowed: bool
) -> dict[str, Any]:
    return {
        "name": name,
        "supportedRegions": regions,
        "domain": domain,
        "logoUrl": f"https://{domain}/logo.png",
        "supportedCurrencies": [currency(code) for code in codes],
        "lei": lei,
        "allowListStatus": allowed,
    }


_PROVIDERS: Final = tuple(
    _provider(name, domain, regions, codes, f"5493000SANDBOX{number:06d}", allowed)
    for number, (name, domain, regions, codes, allowed) in enumerate(
        (
            ("Sandbox UMA", "sandbox.test", ["US"], ["USD", "USDC"], True),
            ("Euro Pay Sandbox", "europay.test", ["DE", "FR"], ["EUR"], True),
            ("Peso Wallet Sandbox", "pesowallet.test", ["MX"], ["MXN", "USD"], True),
            ("Naira Sandbox", "nairapay.test", ["NG"], ["NGN"], True),
            ("Blocked Sandbox VASP", "blocked.test", ["US", "GB"], ["USD", "GBP"], False),
        ),
        start=1,
    )
)


def _country(value: str, name: str) -> str:
    if not (len(value) == 2 and value.isascii() and value.isalpha() and value.isupper()):
        raise invalid(f"{name} must be an ISO 3166-1 alpha-2 code such as US.")
    return value


def uma_providers(
    request: PageRequest,
    country: str | None,
    code: str | None,
    include_blocked: bool,
) -> dict[str, Any]:
    """The sandbox's UMA providers (one not on the allow list), filtered (a country or
    currency no provider has, well formed or not, matches nothing: the published operation
    has no 400 for them); by name."""
    found = [
        (provider["name"], provider)
        for provider in _PROVIDERS
        if (country is None or country in provider["supportedRegions"])
        and (code is None or any(c["code"] == code for c in provider["supportedCurrencies"]))
        and (include_blocked or provider["allowListStatus"])
    ]
    return page_of(found, request)


_VASPS: Final = (
    ("Coinbase", "https://www.coinbase.com"),
    ("Kraken", "https://www.kraken.com"),
    ("Bitstamp", "https://www.bitstamp.net"),
    ("Gemini", "https://www.gemini.com"),
    ("Sandbox Exchange", None),
)


def vasps(request: PageRequest) -> dict[str, Any]:
    """The sandbox's VASP directory, by name."""
    items = [(name, {"vaspName": name, **({"url": url} if url else {})}) for name, url in _VASPS]
    return page_of(items, request)


_INSTITUTIONS: Final = (
    ("PH", "PHP", "BDO Unibank", "BDO Unibank"),
    ("PH", "PHP", "BPI", "Bank of the Philippine Islands"),
    ("MX", "MXN", "BBVA Mexico", "BBVA México"),
    ("MX", "MXN", "Banorte", "Banorte"),
    ("BR", "BRL", "Itau Unibanco", "Itaú Unibanco"),
    ("IN", "INR", "State Bank of India", "State Bank of India"),
    ("NG", "NGN", "Access Bank", "Access Bank"),
    ("GB", "GBP", "Barclays", "Barclays"),
    ("DE", "EUR", "Deutsche Bank", "Deutsche Bank"),
    ("US", "USD", "Sandbox Bank", "Sandbox Bank"),
)


def discoveries(country: str | None, code: str | None) -> dict[str, Any]:
    """The receiving institutions of the sandbox, filtered by country and currency."""
    if country is not None:
        _country(country, "country")
    if code is not None:
        _code(code, "currency")
    return {
        "data": [
            {"bankName": bank, "displayName": shown, "country": where, "currency": what}
            for where, what, bank, shown in _INSTITUTIONS
            if (country is None or where == country) and (code is None or what == code)
        ]
    }
