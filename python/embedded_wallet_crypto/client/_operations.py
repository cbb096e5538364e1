"""The operation table: every operation of the service, one line each, grouped as the
service's published document groups them (its tags).

A row names the group (the client attribute: ``client.quotes``), the method's name in it
(``execute``), the HTTP method and path template (relative to the base URL, which ends with the
version segment), the published document's ``operationId``, and whether the operation is
idempotent. A non-idempotent operation carries an ``Idempotency-Key`` that the client
generates once per call and reuses across its retries. The options say who authenticates
(``platform``: HTTP Basic; ``agent``: the agent's Bearer token; ``none``), how it is signed
(``retry``: the 202 signed retry; ``payload``: a ``Service-Wallet-Signature`` over the
``payloadToSign`` of the resource ``payload_from`` reads), whether it lists pages, which path
parameters are secrets (kept out of logs), which body key a signed payload must bind, and the
model its answer is read into: the service's own response model (``ewc.sandbox.models``, on
pydantic alone), the one its routes declare, so that the two cannot drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from ..sandbox.models.agents import (
    AgentActionList,
    AgentActionOut,
    AgentCreated,
    AgentList,
    AgentOut,
    DeviceCodeOut,
    DeviceCodeStatusOut,
    RedeemedDeviceCodeOut,
)
from ..sandbox.models.cards import CardList, CardOut, CardRevealOut, SimulationOut
from ..sandbox.models.config import ConfigOut
from ..sandbox.models.crypto import EndUserTermsOut, WithdrawalFeeOut
from ..sandbox.models.customers import CustomerOut, InternalAccountList, InternalAccountOut
from ..sandbox.models.external_accounts import ExternalAccountList, ExternalAccountOut
from ..sandbox.models.invitations import InvitationOut
from ..sandbox.models.quotes import QuoteOut, ReceiverLookupOut
from ..sandbox.models.stablecoins import (
    ProviderAccountList,
    ProviderAccountOut,
    StablecoinList,
    StablecoinOperationList,
    StablecoinOperationOut,
    StablecoinOut,
)
from ..sandbox.models.transactions import TransactionList, TransactionOut
from ..sandbox.models.verifications import VerificationList, VerificationOut
from ..sandbox.models.wallet import (
    AuthMethodList,
    AuthMethodWithBundle,
    CredentialChallengeOut,
    ExportOut,
    SessionList,
    SessionOut,
)
from ._errors import ClientError

__all__ = ["GROUPS", "OPERATIONS", "Operation", "operation"]

Auth = Literal["platform", "agent", "none"]
Signing = Literal["none", "retry", "payload"]

_PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Operation:
    """One operation of the service (one row of :data:`OPERATIONS`).

    Attributes:
        group: the client attribute of its group (``quotes``).
        name: its method's name in the group (``execute``).
        method: the HTTP method.
        path: the path template under the base URL (``/quotes/{quoteId}/execute``).
        operation_id: the published document's ``operationId`` (the sandbox's own
            operations have one of the same style).
        idempotent: False when a repeat could act twice: the call carries an
            ``Idempotency-Key``, one per call, the same on every retry.
        auth: ``platform`` (HTTP Basic), ``agent`` (Bearer) or ``none``.
        signing: ``none``, ``retry`` (202 SignedRequestChallenge, then the stamped retry with
            ``Request-Id``) or ``payload`` (the stamp of the ``payloadToSign`` that the
            operation ``payload_from`` reads, sent with the request).
        paginated: a list envelope ``{data, hasMore, nextCursor}`` read page by page.
        secret_params: path parameters that are secrets (a device code): never logged.
        payload_from: for ``payload`` signing, the operation (``group.name``) whose answer
            holds the ``payloadToSign``.
        binds_key: for ``retry`` signing, the body field with a key that the ``payloadToSign``
            must bind (``parameters.targetPublicKey``) before the client stamps it: an export
            is refused if it would go to another key.
        response_model: the type the answer is read into (a pydantic model, a union of
            them, ``str``), validated by pydantic; None for an operation that answers 204.
            A retry-signed operation's 202 is read into ``SignedRequestChallengeOut``.
    """

    group: str
    name: str
    method: str
    path: str
    operation_id: str
    idempotent: bool
    auth: Auth = "platform"
    signing: Signing = "none"
    paginated: bool = False
    secret_params: tuple[str, ...] = ()
    payload_from: str | None = None
    binds_key: str | None = None
    response_model: Any = None

    @property
    def qualified_name(self) -> str:
        """``group.name``, as the client spells it."""
        return f"{self.group}.{self.name}"

    @property
    def path_params(self) -> tuple[str, ...]:
        """The path template's parameters, in order."""
        return tuple(_PARAMETER.findall(self.path))

    def render(self, args: tuple[object, ...]) -> str:
        """The path with ``args`` (percent-encoded) in the template's parameters.

        Raises:
            TypeError: the wrong number of arguments, or one that is not a ``str``.
            ClientError: ``INVALID_ARGUMENT`` for an empty one.
        """
        names = self.path_params
        if len(args) != len(names):
            raise TypeError(
                f"{self.qualified_name}() takes {len(names)} path argument(s) "
                f"({', '.join(names) or 'none'}), not {len(args)}"
            )
        values = iter(args)

        def fill(match: re.Match[str]) -> str:
            value = next(values)
            if not isinstance(value, str):
                raise TypeError(f"{match.group(1)} must be a str, not {type(value).__name__}")
            if not value:
                raise ClientError(f"{match.group(1)} must not be empty", "INVALID_ARGUMENT")
            return quote(value, safe=":@$")

        return _PARAMETER.sub(fill, self.path)

    def secret_values(self, args: tuple[object, ...]) -> tuple[str, ...]:
        """The values of ``args`` that are secrets (to keep out of logs)."""
        return tuple(
            value
            for name, value in zip(self.path_params, args, strict=False)
            if name in self.secret_params and isinstance(value, str)
        )


#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "config": "Platform Configuration",
    "customers": "Customers",
    "internal_accounts": "Internal Accounts",
    "external_accounts": "External Accounts",
    "transfers": "Same-Currency Transfers",
    "quotes": "Cross-Currency Transfers",
    "transactions": "Transactions",
    "invitations": "Invitations",
    "verifications": "KYC/KYB Verifications",
    "auth": "Embedded Wallet Auth",
    "agents": "Agent Management",
    "agent": "Agent Operations",
    "sandbox": "Sandbox",
    "cards": "Cards",
    "stablecoins": "Stablecoins",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
#: Every operation the service serves; a new one is one more row.
OPERATIONS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("config",             "get",                     "GET",    "/config",                                     "getPlatformConfig",                True, response_model=ConfigOut),
    _("config",             "update",                  "PATCH",  "/config",                                     "updatePlatformConfig",             True, response_model=ConfigOut),
    _("customers",          "create",                  "POST",   "/customers",                                  "createCustomer",                   False, response_model=CustomerOut),
    _("internal_accounts",  "list",                    "GET",    "/customers/internal-accounts",                "listCustomerInternalAccounts",     True, paginated=PAGES, response_model=InternalAccountList),
    _("internal_accounts",  "export",                  "POST",   "/internal-accounts/{id}/export",              "exportInternalAccount",            False, signing="retry", binds_key="clientPublicKey", response_model=ExportOut),
    _("external_accounts",  "create_for_customer",     "POST",   "/customers/external-accounts",                "createCustomerExternalAccount",    False, response_model=ExternalAccountOut),
    _("external_accounts",  "list_for_customer",       "GET",    "/customers/external-accounts",                "listCustomerExternalAccounts",     True, paginated=PAGES, response_model=ExternalAccountList),
    _("external_accounts",  "get_for_customer",        "GET",    "/customers/external-accounts/{externalAccountId}", "getCustomerExternalAccountById", True, response_model=ExternalAccountOut),
    _("external_accounts",  "create_for_platform",     "POST",   "/platform/external-accounts",                 "createPlatformExternalAccount",    False, response_model=ExternalAccountOut),
    _("external_accounts",  "list_for_platform",       "GET",    "/platform/external-accounts",                 "listPlatformExternalAccounts",     True, paginated=PAGES, response_model=ExternalAccountList),
    _("external_accounts",  "get_for_platform",        "GET",    "/platform/external-accounts/{externalAccountId}", "getPlatformExternalAccountById", True, response_model=ExternalAccountOut),
    _("transfers",          "transfer_in",             "POST",   "/transfer-in",                                "createTransferIn",                 False, response_model=TransactionOut),
    _("transfers",          "transfer_out",            "POST",   "/transfer-out",                               "createTransferOut",                False, response_model=TransactionOut),
    _("quotes",             "create",                  "POST",   "/quotes",                                     "createQuote",                      False, response_model=QuoteOut),
    _("quotes",             "get",                     "GET",    "/quotes/{quoteId}",                           "getQuoteById",                     True, response_model=QuoteOut),
    _("quotes",             "execute",                 "POST",   "/quotes/{quoteId}/execute",                   "executeQuote",                     False, signing=P, payload_from="quotes.get", response_model=QuoteOut),
    _("quotes",             "lookup_uma",              "GET",    "/receiver/uma/{receiverUmaAddress}",          "lookupUma",                        True, response_model=ReceiverLookupOut),
    _("quotes",             "lookup_external_account", "GET",    "/receiver/external-account/{accountId}",      "lookupExternalAccount",            True, response_model=ReceiverLookupOut),
    _("transactions",       "list",                    "GET",    "/transactions",                               "listTransactions",                 True, paginated=PAGES, response_model=TransactionList),
    _("transactions",       "get",                     "GET",    "/transactions/{transactionId}",               "getTransactionById",               True, response_model=TransactionOut),
    _("transactions",       "approve",                 "POST",   "/transactions/{transactionId}/approve",       "approvePendingPayment",            False, response_model=TransactionOut),
    _("invitations",        "create",                  "POST",   "/invitations",                                "createInvitation",                 False, response_model=InvitationOut),
    _("invitations",        "get",                     "GET",    "/invitations/{invitationCode}",               "getInvitation",                    True, response_model=InvitationOut),
    _("invitations",        "claim",                   "POST",   "/invitations/{invitationCode}/claim",         "claimInvitation",                  False, response_model=InvitationOut),
    _("invitations",        "cancel",                  "POST",   "/invitations/{invitationCode}/cancel",        "cancelInvitation",                 False, response_model=InvitationOut),
    _("verifications",      "create",                  "POST",   "/verifications",                              "createVerification",               False, response_model=VerificationOut),
    _("verifications",      "get",                     "GET",    "/verifications/{verificationId}",             "getVerification",                  True, response_model=VerificationOut),
    _("auth",               "create_credential",       "POST",   "/auth/credentials",                           "createAuthCredential",             False, signing="retry", response_model=AuthMethodWithBundle),
    _("auth",               "list_credentials",        "GET",    "/auth/credentials",                           "listAuthCredentials",              True, response_model=AuthMethodList),
    _("auth",               "challenge",               "POST",   "/auth/credentials/{id}/challenge",            "challengeAuthCredential",          False, response_model=CredentialChallengeOut),
    _("auth",               "verify",                  "POST",   "/auth/credentials/{id}/verify",               "verifyAuthCredential",             False, signing="retry", response_model=SessionOut),
    _("auth",               "revoke_credential",       "DELETE", "/auth/credentials/{id}",                      "revokeAuthCredential",             True, signing="retry"),
    _("auth",               "list_sessions",           "GET",    "/auth/sessions",                              "listAuthSessions",                 True, response_model=SessionList),
    _("auth",               "revoke_session",          "DELETE", "/auth/sessions/{id}",                         "revokeAuthSession",                True, signing="retry"),
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
    _("sandbox",            "fund",                    "POST",   "/sandbox/internal-accounts/{accountId}/fund", "sandboxFundInternalAccount",       False, response_model=InternalAccountOut),
    _("sandbox",            "send",                    "POST",   "/sandbox/send",                               "sandboxSend",                      False, response_model=TransactionOut),
    _("sandbox",            "receive_uma",             "POST",   "/sandbox/uma/receive",                        "sandboxReceive",                   False, response_model=TransactionOut),
    _("sandbox",            "webhook_public_key",      "GET",    "/sandbox/webhook-public-key",                 "sandboxWebhookPublicKey",          True, response_model=str),
    _("customers",          "end_user_terms",          "GET",    "/customers/end-user-terms",                   "getEndUserTerms",                  True, response_model=EndUserTermsOut),
    _("quotes",             "estimate_withdrawal_fee", "POST",   "/crypto/estimate-withdrawal-fee",             "estimateCryptoWithdrawalFee",      False, response_model=WithdrawalFeeOut),
    _("verifications",      "list",                    "GET",    "/verifications",                              "listVerifications",                True, paginated=PAGES, response_model=VerificationList),
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

_BY_NAME = {op.qualified_name: op for op in OPERATIONS}


def operation(qualified_name: str) -> Operation:
    """The operation ``group.name`` of the table.

    Raises:
        KeyError: there is none.
    """
    return _BY_NAME[qualified_name]


def operations_of(group: str) -> tuple[Operation, ...]:
    """The rows of one group, in table order."""
    return tuple(op for op in OPERATIONS if op.group == group)
