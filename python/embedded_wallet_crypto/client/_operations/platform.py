"""The operations of the table: the platform's configuration, API tokens and read-only directories."""

from __future__ import annotations

from ...sandbox.models.api_tokens import ApiTokenList, ApiTokenOut
from ...sandbox.models.config import ConfigOut
from ...sandbox.models.directory import DiscoveryList, ExchangeRateList, UmaProviderList, VaspList
from ._row import Operation, Signing

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "config": "Platform Configuration",
    "tokens": "API Tokens",
    "exchange_rates": "Exchange Rates",
    "uma_providers": "Available UMA Providers",
    "vasps": "VASPs",
    "discoveries": "Discoveries",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("config",             "get",                     "GET",    "/config",                                     "getPlatformConfig",                True, response_model=ConfigOut),
    _("config",             "update",                  "PATCH",  "/config",                                     "updatePlatformConfig",             True, response_model=ConfigOut),
    _("tokens",             "create",                  "POST",   "/tokens",                                     "createToken",                      False, response_model=ApiTokenOut),
    _("tokens",             "list",                    "GET",    "/tokens",                                     "listTokens",                       True, paginated=PAGES, response_model=ApiTokenList),
    _("tokens",             "get",                     "GET",    "/tokens/{tokenId}",                           "getTokenById",                     True, response_model=ApiTokenOut),
    _("tokens",             "delete",                  "DELETE", "/tokens/{tokenId}",                           "deleteTokenById",                  True),
    _("exchange_rates",     "list",                    "GET",    "/exchange-rates",                             "getExchangeRates",                 True, response_model=ExchangeRateList),
    _("uma_providers",      "list",                    "GET",    "/uma-providers",                              "getAvailableUmaProviders",         True, paginated=PAGES, response_model=UmaProviderList),
    _("vasps",              "list",                    "GET",    "/vasps",                                      "listVasps",                        True, paginated=PAGES, response_model=VaspList),
    _("discoveries",        "list",                    "GET",    "/discoveries",                                "getDiscoveries",                   True, response_model=DiscoveryList),
)
# fmt: on
del _, P, PAGES
