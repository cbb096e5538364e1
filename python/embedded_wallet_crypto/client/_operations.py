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
from ..sandbox.models.config import ConfigOut
from ..sandbox.models.customers import CustomerOut, InternalAccountList, InternalAccountOut
from ..sandbox.models.delegated_keys import DelegatedKeyList, DelegatedKeyOut
from ..sandbox.models.external_accounts import ExternalAccountList, ExternalAccountOut
from ..sandbox.models.invitations import InvitationOut
from ..sandbox.models.quotes import QuoteOut, ReceiverLookupOut
from ..sandbox.models.sca import (
    BeneficiaryTrustStart,
    EnrollConfirmOut,
    EnrollStartOut,
    RecordEventOut,
    ResetStartOut,
    ResetStatusOut,
    ScaFactorList,
    ScaLoginCompleteOut,
    ScaLoginStartOut,
    TrustConfirmOut,
)
from ..sandbox.models.transactions import TransactionList, TransactionOut
from ..sandbox.models.verifications import VerificationOut
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
    "sca": "Strong Customer Authentication",
    "contact_verification": "Contact Verification",
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
    _("auth",               "refresh_session",         "POST",   "/auth/sessions/{id}/refresh",                 "refreshAuthSession",               False, signing="retry", binds_key="clientPublicKey", response_model=SessionOut),
    _("auth",               "create_delegated_key",    "POST",   "/auth/delegated-keys",                        "createDelegatedKey",               False, signing="retry", response_model=DelegatedKeyOut),
    _("auth",               "list_delegated_keys",     "GET",    "/auth/delegated-keys",                        "listDelegatedKeys",                True, response_model=DelegatedKeyList),
    _("auth",               "get_delegated_key",       "GET",    "/auth/delegated-keys/{id}",                   "getDelegatedKeyById",              True, response_model=DelegatedKeyOut),
    _("auth",               "revoke_delegated_key",    "DELETE", "/auth/delegated-keys/{id}",                   "revokeDelegatedKey",               True),
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
    _("sca",                "list_factors",            "GET",    "/sca/factors",                                "listScaFactors",                   True, response_model=ScaFactorList),
    _("sca",                "start_enrollment",        "POST",   "/sca/factors",                                "startScaFactorEnrollment",         False, response_model=EnrollStartOut),
    _("sca",                "confirm_enrollment",      "POST",   "/sca/factors/confirm",                        "confirmScaFactorEnrollment",       False, response_model=EnrollConfirmOut),
    _("sca",                "delete_factor",           "DELETE", "/sca/factors/{credentialId}",                 "deleteScaFactor",                  True),
    _("sca",                "start_login",             "POST",   "/sca/login/start",                            "startScaLogin",                    False, response_model=ScaLoginStartOut),
    _("sca",                "complete_login",          "POST",   "/sca/login/complete",                         "completeScaLogin",                 False, response_model=ScaLoginCompleteOut),
    _("sca",                "record_event",            "POST",   "/sca/record-event",                           "recordSecurityEvent",              False, response_model=RecordEventOut),
    _("sca",                "start_reset",             "POST",   "/sca/factors/reset",                          "startTwoFactorReset",              False, response_model=ResetStartOut),
    _("sca",                "get_reset",               "GET",    "/sca/factors/reset/{resetId}",                "getTwoFactorResetStatus",          True, response_model=ResetStatusOut),
    _("sca",                "complete_reset",          "POST",   "/sca/factors/reset/{resetId}/complete",       "completeTwoFactorReset",           False),
    _("sca",                "trust",                   "POST",   "/customers/external-accounts/{externalAccountId}/trust", "startBeneficiaryTrust", False, response_model=BeneficiaryTrustStart),
    _("sca",                "confirm_trust",           "POST",   "/customers/external-accounts/{externalAccountId}/trust/confirm", "confirmBeneficiaryTrust", False, response_model=TrustConfirmOut),
    _("sca",                "untrust",                 "POST",   "/customers/external-accounts/{externalAccountId}/untrust", "startBeneficiaryUntrust", False, response_model=BeneficiaryTrustStart),
    _("sca",                "confirm_untrust",         "POST",   "/customers/external-accounts/{externalAccountId}/untrust/confirm", "confirmBeneficiaryUntrust", False, response_model=TrustConfirmOut),
    _("sca",                "authorize_quote",         "POST",   "/quotes/{quoteId}/authorize",                 "authorizeQuote",                   False, response_model=QuoteOut),
    _("sca",                "resend_quote_code",       "POST",   "/quotes/{quoteId}/authorize/resend",          "resendQuoteScaCode",               False),
    _("contact_verification", "send_email_code",       "POST",   "/customers/{customerId}/verify-email",        "sendCustomerEmailVerification",    False),
    _("contact_verification", "confirm_email",         "POST",   "/customers/{customerId}/verify-email/confirm", "confirmCustomerEmailVerification", False, response_model=CustomerOut),
    _("contact_verification", "send_phone_code",       "POST",   "/customers/{customerId}/verify-phone",        "sendCustomerPhoneVerification",    False),
    _("contact_verification", "confirm_phone",         "POST",   "/customers/{customerId}/verify-phone/confirm", "confirmCustomerPhoneVerification", False, response_model=CustomerOut),
    _("sandbox",            "fund",                    "POST",   "/sandbox/internal-accounts/{accountId}/fund", "sandboxFundInternalAccount",       False, response_model=InternalAccountOut),
    _("sandbox",            "send",                    "POST",   "/sandbox/send",                               "sandboxSend",                      False, response_model=TransactionOut),
    _("sandbox",            "receive_uma",             "POST",   "/sandbox/uma/receive",                        "sandboxReceive",                   False, response_model=TransactionOut),
    _("sandbox",            "webhook_public_key",      "GET",    "/sandbox/webhook-public-key",                 "sandboxWebhookPublicKey",          True, response_model=str),
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
