"""The groups of operations as types: one class per group, one annotation per operation, with
what it returns (the row's ``response_model``; a retry-signed operation's 202 challenge too) and,
for a list, its page and item. The operations themselves come from the table
(:data:`~._operations.OPERATIONS`) at run time; these classes let a type checker see them
(``client.quotes.get(...)`` is a ``QuoteOut``). The tests hold them to the table."""

from __future__ import annotations

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
from ..sandbox.models.crypto import EndUserTermsOut, WithdrawalFeeOut
from ..sandbox.models.customers import CustomerOut, InternalAccountList, InternalAccountOut
from ..sandbox.models.external_accounts import ExternalAccountList, ExternalAccountOut
from ..sandbox.models.invitations import InvitationOut
from ..sandbox.models.quotes import QuoteOut, ReceiverLookupOut
from ..sandbox.models.transactions import TransactionList, TransactionOut
from ..sandbox.models.verifications import VerificationList, VerificationOut
from ..sandbox.models.wallet import (
    AuthMethodList,
    AuthMethodWithBundle,
    CredentialChallengeOut,
    ExportOut,
    SessionList,
    SessionOut,
    SignedRequestChallengeOut,
)
from ._group_types_cards import (
    AsyncCardsOperations,
    AsyncSandboxCardSimulations,
    AsyncStablecoinsOperations,
    CardsOperations,
    SandboxCardSimulations,
    StablecoinsOperations,
)
from ._groups import (
    AsyncGroup,
    AsyncListOperation,
    AsyncOperation,
    SyncGroup,
    SyncListOperation,
    SyncOperation,
)

__all__ = [
    "ASYNC_GROUPS",
    "SYNC_GROUPS",
    "AgentOperations",
    "AgentsOperations",
    "AsyncAgentOperations",
    "AsyncAgentsOperations",
    "AsyncAuthOperations",
    "AsyncCardsOperations",
    "AsyncConfigOperations",
    "AsyncCustomersOperations",
    "AsyncExternalAccountsOperations",
    "AsyncInternalAccountsOperations",
    "AsyncInvitationsOperations",
    "AsyncQuotesOperations",
    "AsyncSandboxOperations",
    "AsyncStablecoinsOperations",
    "AsyncTransactionsOperations",
    "AsyncTransfersOperations",
    "AsyncVerificationsOperations",
    "AuthOperations",
    "CardsOperations",
    "ConfigOperations",
    "CustomersOperations",
    "ExternalAccountsOperations",
    "InternalAccountsOperations",
    "InvitationsOperations",
    "QuotesOperations",
    "SandboxOperations",
    "StablecoinsOperations",
    "TransactionsOperations",
    "TransfersOperations",
    "VerificationsOperations",
]


class ConfigOperations(SyncGroup):
    """Platform Configuration."""

    get: SyncOperation[ConfigOut]
    update: SyncOperation[ConfigOut]


class CustomersOperations(SyncGroup):
    """Customers."""

    create: SyncOperation[CustomerOut]
    end_user_terms: SyncOperation[EndUserTermsOut]


class InternalAccountsOperations(SyncGroup):
    """Internal Accounts."""

    list: SyncListOperation[InternalAccountList, InternalAccountOut]
    export: SyncOperation[ExportOut | SignedRequestChallengeOut]


class ExternalAccountsOperations(SyncGroup):
    """External Accounts."""

    create_for_customer: SyncOperation[ExternalAccountOut]
    list_for_customer: SyncListOperation[ExternalAccountList, ExternalAccountOut]
    get_for_customer: SyncOperation[ExternalAccountOut]
    create_for_platform: SyncOperation[ExternalAccountOut]
    list_for_platform: SyncListOperation[ExternalAccountList, ExternalAccountOut]
    get_for_platform: SyncOperation[ExternalAccountOut]


class TransfersOperations(SyncGroup):
    """Same-Currency Transfers."""

    transfer_in: SyncOperation[TransactionOut]
    transfer_out: SyncOperation[TransactionOut]


class QuotesOperations(SyncGroup):
    """Cross-Currency Transfers."""

    create: SyncOperation[QuoteOut]
    get: SyncOperation[QuoteOut]
    execute: SyncOperation[QuoteOut]
    lookup_uma: SyncOperation[ReceiverLookupOut]
    lookup_external_account: SyncOperation[ReceiverLookupOut]
    estimate_withdrawal_fee: SyncOperation[WithdrawalFeeOut]


class TransactionsOperations(SyncGroup):
    """Transactions."""

    list: SyncListOperation[TransactionList, TransactionOut]
    get: SyncOperation[TransactionOut]
    approve: SyncOperation[TransactionOut]


class InvitationsOperations(SyncGroup):
    """Invitations."""

    create: SyncOperation[InvitationOut]
    get: SyncOperation[InvitationOut]
    claim: SyncOperation[InvitationOut]
    cancel: SyncOperation[InvitationOut]


class VerificationsOperations(SyncGroup):
    """KYC/KYB Verifications."""

    create: SyncOperation[VerificationOut]
    get: SyncOperation[VerificationOut]
    list: SyncListOperation[VerificationList, VerificationOut]


class AuthOperations(SyncGroup):
    """Embedded Wallet Auth."""

    create_credential: SyncOperation[AuthMethodWithBundle | SignedRequestChallengeOut]
    list_credentials: SyncOperation[AuthMethodList]
    challenge: SyncOperation[CredentialChallengeOut]
    verify: SyncOperation[SessionOut | SignedRequestChallengeOut]
    revoke_credential: SyncOperation[SignedRequestChallengeOut | None]
    list_sessions: SyncOperation[SessionList]
    revoke_session: SyncOperation[SignedRequestChallengeOut | None]


class AgentsOperations(SyncGroup):
    """Agent Management."""

    create: SyncOperation[AgentCreated]
    list: SyncListOperation[AgentList, AgentOut]
    list_approvals: SyncListOperation[AgentActionList, AgentActionOut]
    get: SyncOperation[AgentOut]
    update: SyncOperation[AgentOut]
    delete: SyncOperation[None]
    update_policy: SyncOperation[AgentOut]
    regenerate_device_code: SyncOperation[DeviceCodeOut]
    approve_action: SyncOperation[AgentActionOut]
    reject_action: SyncOperation[AgentActionOut]
    device_code_status: SyncOperation[DeviceCodeStatusOut]
    redeem_device_code: SyncOperation[RedeemedDeviceCodeOut]


class AgentOperations(SyncGroup):
    """Agent Operations."""

    me: SyncOperation[AgentOut]
    list_actions: SyncListOperation[AgentActionList, AgentActionOut]
    get_action: SyncOperation[AgentActionOut]
    create_quote: SyncOperation[QuoteOut]
    get_quote: SyncOperation[QuoteOut]
    execute_quote: SyncOperation[AgentActionOut]
    list_transactions: SyncListOperation[TransactionList, TransactionOut]
    get_transaction: SyncOperation[TransactionOut]
    transfer_in: SyncOperation[AgentActionOut]
    transfer_out: SyncOperation[AgentActionOut]


class SandboxOperations(SandboxCardSimulations):
    """Sandbox."""

    fund: SyncOperation[InternalAccountOut]
    send: SyncOperation[TransactionOut]
    receive_uma: SyncOperation[TransactionOut]
    webhook_public_key: SyncOperation[str]


class AsyncConfigOperations(AsyncGroup):
    """Platform Configuration."""

    get: AsyncOperation[ConfigOut]
    update: AsyncOperation[ConfigOut]


class AsyncCustomersOperations(AsyncGroup):
    """Customers."""

    create: AsyncOperation[CustomerOut]
    end_user_terms: AsyncOperation[EndUserTermsOut]


class AsyncInternalAccountsOperations(AsyncGroup):
    """Internal Accounts."""

    list: AsyncListOperation[InternalAccountList, InternalAccountOut]
    export: AsyncOperation[ExportOut | SignedRequestChallengeOut]


class AsyncExternalAccountsOperations(AsyncGroup):
    """External Accounts."""

    create_for_customer: AsyncOperation[ExternalAccountOut]
    list_for_customer: AsyncListOperation[ExternalAccountList, ExternalAccountOut]
    get_for_customer: AsyncOperation[ExternalAccountOut]
    create_for_platform: AsyncOperation[ExternalAccountOut]
    list_for_platform: AsyncListOperation[ExternalAccountList, ExternalAccountOut]
    get_for_platform: AsyncOperation[ExternalAccountOut]


class AsyncTransfersOperations(AsyncGroup):
    """Same-Currency Transfers."""

    transfer_in: AsyncOperation[TransactionOut]
    transfer_out: AsyncOperation[TransactionOut]


class AsyncQuotesOperations(AsyncGroup):
    """Cross-Currency Transfers."""

    create: AsyncOperation[QuoteOut]
    get: AsyncOperation[QuoteOut]
    execute: AsyncOperation[QuoteOut]
    lookup_uma: AsyncOperation[ReceiverLookupOut]
    lookup_external_account: AsyncOperation[ReceiverLookupOut]
    estimate_withdrawal_fee: AsyncOperation[WithdrawalFeeOut]


class AsyncTransactionsOperations(AsyncGroup):
    """Transactions."""

    list: AsyncListOperation[TransactionList, TransactionOut]
    get: AsyncOperation[TransactionOut]
    approve: AsyncOperation[TransactionOut]


class AsyncInvitationsOperations(AsyncGroup):
    """Invitations."""

    create: AsyncOperation[InvitationOut]
    get: AsyncOperation[InvitationOut]
    claim: AsyncOperation[InvitationOut]
    cancel: AsyncOperation[InvitationOut]


class AsyncVerificationsOperations(AsyncGroup):
    """KYC/KYB Verifications."""

    create: AsyncOperation[VerificationOut]
    get: AsyncOperation[VerificationOut]
    list: AsyncListOperation[VerificationList, VerificationOut]


class AsyncAuthOperations(AsyncGroup):
    """Embedded Wallet Auth."""

    create_credential: AsyncOperation[AuthMethodWithBundle | SignedRequestChallengeOut]
    list_credentials: AsyncOperation[AuthMethodList]
    challenge: AsyncOperation[CredentialChallengeOut]
    verify: AsyncOperation[SessionOut | SignedRequestChallengeOut]
    revoke_credential: AsyncOperation[SignedRequestChallengeOut | None]
    list_sessions: AsyncOperation[SessionList]
    revoke_session: AsyncOperation[SignedRequestChallengeOut | None]


class AsyncAgentsOperations(AsyncGroup):
    """Agent Management."""

    create: AsyncOperation[AgentCreated]
    list: AsyncListOperation[AgentList, AgentOut]
    list_approvals: AsyncListOperation[AgentActionList, AgentActionOut]
    get: AsyncOperation[AgentOut]
    update: AsyncOperation[AgentOut]
    delete: AsyncOperation[None]
    update_policy: AsyncOperation[AgentOut]
    regenerate_device_code: AsyncOperation[DeviceCodeOut]
    approve_action: AsyncOperation[AgentActionOut]
    reject_action: AsyncOperation[AgentActionOut]
    device_code_status: AsyncOperation[DeviceCodeStatusOut]
    redeem_device_code: AsyncOperation[RedeemedDeviceCodeOut]


class AsyncAgentOperations(AsyncGroup):
    """Agent Operations."""

    me: AsyncOperation[AgentOut]
    list_actions: AsyncListOperation[AgentActionList, AgentActionOut]
    get_action: AsyncOperation[AgentActionOut]
    create_quote: AsyncOperation[QuoteOut]
    get_quote: AsyncOperation[QuoteOut]
    execute_quote: AsyncOperation[AgentActionOut]
    list_transactions: AsyncListOperation[TransactionList, TransactionOut]
    get_transaction: AsyncOperation[TransactionOut]
    transfer_in: AsyncOperation[AgentActionOut]
    transfer_out: AsyncOperation[AgentActionOut]


class AsyncSandboxOperations(AsyncSandboxCardSimulations):
    """Sandbox."""

    fund: AsyncOperation[InternalAccountOut]
    send: AsyncOperation[TransactionOut]
    receive_uma: AsyncOperation[TransactionOut]
    webhook_public_key: AsyncOperation[str]


#: Group attribute -> its class in a ``Client``.
SYNC_GROUPS: dict[str, type[SyncGroup]] = {
    "config": ConfigOperations,
    "customers": CustomersOperations,
    "internal_accounts": InternalAccountsOperations,
    "external_accounts": ExternalAccountsOperations,
    "transfers": TransfersOperations,
    "quotes": QuotesOperations,
    "transactions": TransactionsOperations,
    "invitations": InvitationsOperations,
    "verifications": VerificationsOperations,
    "auth": AuthOperations,
    "agents": AgentsOperations,
    "agent": AgentOperations,
    "sandbox": SandboxOperations,
    "cards": CardsOperations,
    "stablecoins": StablecoinsOperations,
}
#: Group attribute -> its class in an ``AsyncClient``.
ASYNC_GROUPS: dict[str, type[AsyncGroup]] = {
    "config": AsyncConfigOperations,
    "customers": AsyncCustomersOperations,
    "internal_accounts": AsyncInternalAccountsOperations,
    "external_accounts": AsyncExternalAccountsOperations,
    "transfers": AsyncTransfersOperations,
    "quotes": AsyncQuotesOperations,
    "transactions": AsyncTransactionsOperations,
    "invitations": AsyncInvitationsOperations,
    "verifications": AsyncVerificationsOperations,
    "auth": AsyncAuthOperations,
    "agents": AsyncAgentsOperations,
    "agent": AsyncAgentOperations,
    "sandbox": AsyncSandboxOperations,
    "cards": AsyncCardsOperations,
    "stablecoins": AsyncStablecoinsOperations,
}
