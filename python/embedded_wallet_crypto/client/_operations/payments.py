"""The operations of the table: payments: same-currency transfers, quotes and transactions."""

from __future__ import annotations

from ...sandbox.models.cards import CardTransactionOut
from ...sandbox.models.crypto import WithdrawalFeeOut
from ...sandbox.models.quotes import QuoteOut, ReceiverLookupOut
from ...sandbox.models.transactions import TransactionListWithCards, TransactionOut
from ._row import Operation, Signing

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "transfers": "Same-Currency Transfers",
    "quotes": "Cross-Currency Transfers",
    "transactions": "Transactions",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("transfers",          "transfer_in",             "POST",   "/transfer-in",                                "createTransferIn",                 False, response_model=TransactionOut),
    _("transfers",          "transfer_out",            "POST",   "/transfer-out",                               "createTransferOut",                False, response_model=TransactionOut),
    _("quotes",             "create",                  "POST",   "/quotes",                                     "createQuote",                      False, response_model=QuoteOut),
    _("quotes",             "get",                     "GET",    "/quotes/{quoteId}",                           "getQuoteById",                     True, response_model=QuoteOut),
    _("quotes",             "execute",                 "POST",   "/quotes/{quoteId}/execute",                   "executeQuote",                     False, signing=P, payload_from="quotes.get", response_model=QuoteOut),
    _("quotes",             "lookup_uma",              "GET",    "/receiver/uma/{receiverUmaAddress}",          "lookupUma",                        True, response_model=ReceiverLookupOut),
    _("quotes",             "lookup_external_account", "GET",    "/receiver/external-account/{accountId}",      "lookupExternalAccount",            True, response_model=ReceiverLookupOut),
    _("transactions",       "list",                    "GET",    "/transactions",                               "listTransactions",                 True, paginated=PAGES, response_model=TransactionListWithCards),
    _("transactions",       "get",                     "GET",    "/transactions/{transactionId}",               "getTransactionById",               True, response_model=TransactionOut | CardTransactionOut),
    _("transactions",       "approve",                 "POST",   "/transactions/{transactionId}/approve",       "approvePendingPayment",            False, response_model=TransactionOut),
    _("transactions",       "reject",                  "POST",   "/transactions/{transactionId}/reject",        "rejectPendingPayment",             False, response_model=TransactionOut),
    _("transactions",       "cancel",                  "POST",   "/transactions/{transactionId}/cancel",        "cancelTransaction",                False, response_model=TransactionOut),
    _("transactions",       "confirm",                 "POST",   "/transactions/{transactionId}/confirm",       "confirmReceiptDelivery",           False, response_model=TransactionOut),
    _("quotes",             "estimate_withdrawal_fee", "POST",   "/crypto/estimate-withdrawal-fee",             "estimateCryptoWithdrawalFee",      False, response_model=WithdrawalFeeOut),
)
# fmt: on
del _, P, PAGES
