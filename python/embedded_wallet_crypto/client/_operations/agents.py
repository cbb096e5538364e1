"""The operations of the table: agents: the platform's management of them and their own operations
(Bearer)."""

from __future__ import annotations

from ...sandbox.models.agents import (
    AgentActionList,
    AgentActionOut,
    AgentCreated,
    AgentList,
    AgentOut,
    DeviceCodeOut,
    DeviceCodeStatusOut,
    RedeemedDeviceCodeOut,
)
from ...sandbox.models.customers import InternalAccountList
from ...sandbox.models.external_accounts import ExternalAccountList, ExternalAccountOut
from ...sandbox.models.quotes import QuoteOut
from ...sandbox.models.transactions import TransactionList, TransactionOut
from ._row import Operation, Signing

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "agents": "Agent Management",
    "agent": "Agent Operations",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("agents",             "create",                  "POST",   "/agents",                                     "createAgent",                      False, response_model=AgentCreated),
    _("agents",             "list",                    "GET",    "/agents",                                     "listAgents",                       True, paginated=PAGES, response_model=AgentList),
    _("agents",             "list_approvals",          "GET",    "/agents/approvals",                           "listAgentApprovals",               True, paginated=PAGES, response_model=AgentActionList),
    _("agents",             "get",                     "GET",    "/agents/{agentId}",                           "getAgentById",                     True, response_model=AgentOut),
    _("agents",             "update",                  "PATCH",  "/agents/{agentId}",                           "updateAgent",                      True, response_model=AgentOut),
    _("agents",             "delete",                  "DELETE", "/agents/{agentId}",                           "deleteAgent",                      True),
    _("agents",             "update_policy",           "PATCH",  "/agents/{agentId}/policy",                    "updateAgentPolicy",                True, response_model=AgentOut),
    _("agents",             "regenerate_device_code",  "POST",   "/agents/{agentId}/device-codes",              "regenerateAgentDeviceCode",        False, response_model=DeviceCodeOut),
    _("agents",             "approve_action",          "POST",   "/agents/{agentId}/actions/{actionId}/approve", "approveAgentAction",              False, response_model=AgentActionOut),
    _("agents",             "reject_action",           "POST",   "/agents/{agentId}/actions/{actionId}/reject", "rejectAgentAction",                False, response_model=AgentActionOut),
    _("agents",             "device_code_status",      "GET",    "/agents/device-codes/{code}/status",          "getAgentDeviceCodeStatus",         True, secret_params=("code",), response_model=DeviceCodeStatusOut),
    _("agents",             "redeem_device_code",      "POST",   "/agents/device-codes/{code}/redeem",          "redeemAgentDeviceCode",            False, auth="none", secret_params=("code",), response_model=RedeemedDeviceCodeOut),
    _("agent",              "me",                      "GET",    "/agents/me",                                  "getAgentMe",                       True, auth="agent", response_model=AgentOut),
    _("agent",              "list_actions",            "GET",    "/agents/me/actions",                          "agentListActions",                 True, auth="agent", paginated=PAGES, response_model=AgentActionList),
    _("agent",              "get_action",              "GET",    "/agents/me/actions/{actionId}",               "agentGetAction",                   True, auth="agent", response_model=AgentActionOut),
    _("agent",              "create_quote",            "POST",   "/agents/me/quotes",                           "agentCreateQuote",                 False, auth="agent", response_model=QuoteOut),
    _("agent",              "get_quote",               "GET",    "/agents/me/quotes/{quoteId}",                 "agentGetQuote",                    True, auth="agent", response_model=QuoteOut),
    _("agent",              "execute_quote",           "POST",   "/agents/me/quotes/{quoteId}/execute",         "agentExecuteQuote",                False, auth="agent", signing=P, payload_from="agent.get_quote", response_model=AgentActionOut),
    _("agent",              "list_transactions",       "GET",    "/agents/me/transactions",                     "agentListTransactions",            True, auth="agent", paginated=PAGES, response_model=TransactionList),
    _("agent",              "get_transaction",         "GET",    "/agents/me/transactions/{transactionId}",     "agentGetTransaction",              True, auth="agent", response_model=TransactionOut),
    _("agent",              "transfer_in",             "POST",   "/agents/me/transfer-in",                      "agentCreateTransferIn",            False, auth="agent", response_model=AgentActionOut),
    _("agent",              "transfer_out",            "POST",   "/agents/me/transfer-out",                     "agentCreateTransferOut",           False, auth="agent", response_model=AgentActionOut),
    _("agent",              "list_internal_accounts",  "GET",    "/agents/me/internal-accounts",                "agentListInternalAccounts",        True, auth="agent", paginated=PAGES, response_model=InternalAccountList),
    _("agent",              "list_external_accounts",  "GET",    "/agents/me/external-accounts",                "agentListExternalAccounts",        True, auth="agent", paginated=PAGES, response_model=ExternalAccountList),
    _("agent",              "create_external_account", "POST",   "/agents/me/external-accounts",                "agentCreateExternalAccount",       False, auth="agent", response_model=ExternalAccountOut),
    _("agent",              "get_external_account",    "GET",    "/agents/me/external-accounts/{externalAccountId}", "agentGetExternalAccount",     True, auth="agent", response_model=ExternalAccountOut),
    _("agent",              "delete_external_account", "DELETE", "/agents/me/external-accounts/{externalAccountId}", "agentDeleteExternalAccount", True, auth="agent"),
)
# fmt: on
del _, P, PAGES
