"""The operations of the table: cards (issue, list, read, update, reveal) and stablecoins
(provider accounts, registration, mints, burns and their operations)."""

from __future__ import annotations

from ...sandbox.models.cards import CardList, CardOut, CardRevealOut
from ...sandbox.models.stablecoins import (
    ProviderAccountList,
    ProviderAccountOut,
    StablecoinList,
    StablecoinOperationList,
    StablecoinOperationOut,
    StablecoinOut,
)
from ._row import Operation

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "cards": "Cards",
    "stablecoins": "Stablecoins",
}

_ = Operation
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("cards",              "create",                  "POST",   "/cards",                                      "createCard",                       False, response_model=CardOut),
    _("cards",              "list",                    "GET",    "/cards",                                      "listCards",                        True, paginated=PAGES, response_model=CardList),
    _("cards",              "get",                     "GET",    "/cards/{id}",                                 "getCardById",                      True, response_model=CardOut),
    _("cards",              "update",                  "PATCH",  "/cards/{id}",                                 "updateCardById",                   True, response_model=CardOut),
    _("cards",              "reveal",                  "POST",   "/cards/{id}/reveal",                          "revealCard",                       False, response_model=CardRevealOut),
    _("stablecoins",        "register",                "POST",   "/stablecoins",                                "registerStablecoin",               False, response_model=StablecoinOut),
    _("stablecoins",        "list",                    "GET",    "/stablecoins",                                "listStablecoins",                  True, paginated=PAGES, response_model=StablecoinList),
    _("stablecoins",        "get",                     "GET",    "/stablecoins/{stablecoinId}",                 "getStablecoin",                    True, response_model=StablecoinOut),
    _("stablecoins",        "mint",                    "POST",   "/stablecoins/{stablecoinId}/mints",           "createStablecoinMint",             False, response_model=StablecoinOperationOut),
    _("stablecoins",        "burn",                    "POST",   "/stablecoins/{stablecoinId}/burns",           "createStablecoinBurn",             False, response_model=StablecoinOperationOut),
    _("stablecoins",        "list_operations",         "GET",    "/stablecoins/{stablecoinId}/operations",      "listStablecoinOperations",         True, paginated=PAGES, response_model=StablecoinOperationList),
    _("stablecoins",        "get_operation",           "GET",    "/stablecoin-operations/{stablecoinOperationId}", "getStablecoinOperation",        True, response_model=StablecoinOperationOut),
    _("stablecoins",        "link_provider_account",   "POST",   "/stablecoin-provider-accounts",               "linkStablecoinProviderAccount",    False, response_model=ProviderAccountOut),
    _("stablecoins",        "list_provider_accounts",  "GET",    "/stablecoin-provider-accounts",               "listStablecoinProviderAccounts",   True, paginated=PAGES, response_model=ProviderAccountList),
    _("stablecoins",        "get_provider_account",    "GET",    "/stablecoin-provider-accounts/{stablecoinProviderAccountId}", "getStablecoinProviderAccount", True, response_model=ProviderAccountOut),
)
# fmt: on
del _, PAGES
