"""The operations of the table: the sandbox's simulations."""

from __future__ import annotations

from ...sandbox.models.cards import SimulationOut
from ...sandbox.models.control import ClockOut, FaultList, FaultOut, RequestList
from ...sandbox.models.customers import InternalAccountOut
from ...sandbox.models.events import EventList, EventOut, TestWebhookOut
from ...sandbox.models.transactions import TransactionOut
from ._row import Operation, Signing

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "sandbox": "Sandbox",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("sandbox",            "fund",                    "POST",   "/sandbox/internal-accounts/{accountId}/fund", "sandboxFundInternalAccount",       False, response_model=InternalAccountOut),
    _("sandbox",            "send",                    "POST",   "/sandbox/send",                               "sandboxSend",                      False, response_model=TransactionOut),
    _("sandbox",            "receive_uma",             "POST",   "/sandbox/uma/receive",                        "sandboxReceive",                   False, response_model=TransactionOut),
    _("sandbox",            "webhook_public_key",      "GET",    "/sandbox/webhook-public-key",                 "sandboxWebhookPublicKey",          True, response_model=str),
    _("sandbox",            "send_test_webhook",       "POST",   "/sandbox/webhooks/test",                      "sendTestWebhook",                  False, response_model=TestWebhookOut),
    _("sandbox",            "list_events",             "GET",    "/sandbox/events",                             "sandboxListEvents",                True, paginated=PAGES, response_model=EventList),
    _("sandbox",            "resend_event",            "POST",   "/sandbox/events/{eventId}/resend",            "sandboxResendEvent",               False, response_model=EventOut),
    _("sandbox",            "trigger_event",           "POST",   "/sandbox/events/trigger",                     "sandboxTriggerEvent",              False, response_model=EventOut),
    _("sandbox",            "get_clock",               "GET",    "/sandbox/clock",                              "sandboxGetClock",                  True, response_model=ClockOut),
    _("sandbox",            "advance_clock",           "POST",   "/sandbox/clock/advance",                      "sandboxAdvanceClock",              False, response_model=ClockOut),
    _("sandbox",            "reset",                   "POST",   "/sandbox/reset",                              "sandboxReset",                     False),
    _("sandbox",            "list_requests",           "GET",    "/sandbox/requests",                           "sandboxListRequests",              True, response_model=RequestList),
    _("sandbox",            "add_fault",               "POST",   "/sandbox/faults",                             "sandboxAddFault",                  False, response_model=FaultOut),
    _("sandbox",            "list_faults",             "GET",    "/sandbox/faults",                             "sandboxListFaults",                True, response_model=FaultList),
    _("sandbox",            "clear_faults",            "DELETE", "/sandbox/faults",                             "sandboxClearFaults",               True),
    _("sandbox",            "simulate_card_authorization", "POST", "/sandbox/cards/{id}/simulate/authorization", "sandboxSimulateCardAuthorization", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_authorization_advice", "POST", "/sandbox/cards/{id}/simulate/authorization_advice", "sandboxSimulateCardAuthorizationAdvice", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_balance_inquiry", "POST", "/sandbox/cards/{id}/simulate/balance_inquiry", "sandboxSimulateCardBalanceInquiry", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_clearing", "POST", "/sandbox/cards/{id}/simulate/clearing", "sandboxSimulateCardClearing", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_credit_authorization", "POST", "/sandbox/cards/{id}/simulate/credit_authorization", "sandboxSimulateCardCreditAuthorization", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_credit_authorization_advice", "POST", "/sandbox/cards/{id}/simulate/credit_authorization_advice", "sandboxSimulateCardCreditAuthorizationAdvice", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_financial_authorization", "POST", "/sandbox/cards/{id}/simulate/financial_authorization", "sandboxSimulateCardFinancialAuthorization", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_financial_credit_authorization", "POST", "/sandbox/cards/{id}/simulate/financial_credit_authorization", "sandboxSimulateCardFinancialCreditAuthorization", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_return", "POST", "/sandbox/cards/{id}/simulate/return", "sandboxSimulateCardReturn", False, response_model=SimulationOut),
    _("sandbox",            "simulate_card_return_reversal", "POST", "/sandbox/cards/{id}/simulate/return_reversal", "sandboxSimulateCardReturnReversal", False, response_model=SimulationOut),
)
# fmt: on
del _, P, PAGES
