"""The typed groups of cards and stablecoins, and the sandbox's card simulations (a base of the
``sandbox`` group's classes): see ``_group_types``."""

from __future__ import annotations

from ..sandbox.models.cards import CardList, CardOut, CardRevealOut, SimulationOut
from ..sandbox.models.stablecoins import (
    ProviderAccountList,
    ProviderAccountOut,
    StablecoinList,
    StablecoinOperationList,
    StablecoinOperationOut,
    StablecoinOut,
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
    "AsyncCardsOperations",
    "AsyncSandboxCardSimulations",
    "AsyncStablecoinsOperations",
    "CardsOperations",
    "SandboxCardSimulations",
    "StablecoinsOperations",
]


class CardsOperations(SyncGroup):
    """Cards."""

    create: SyncOperation[CardOut]
    list: SyncListOperation[CardList, CardOut]
    get: SyncOperation[CardOut]
    update: SyncOperation[CardOut]
    reveal: SyncOperation[CardRevealOut]


class StablecoinsOperations(SyncGroup):
    """Stablecoins."""

    register: SyncOperation[StablecoinOut]
    list: SyncListOperation[StablecoinList, StablecoinOut]
    get: SyncOperation[StablecoinOut]
    mint: SyncOperation[StablecoinOperationOut]
    burn: SyncOperation[StablecoinOperationOut]
    list_operations: SyncListOperation[StablecoinOperationList, StablecoinOperationOut]
    get_operation: SyncOperation[StablecoinOperationOut]
    link_provider_account: SyncOperation[ProviderAccountOut]
    list_provider_accounts: SyncListOperation[ProviderAccountList, ProviderAccountOut]
    get_provider_account: SyncOperation[ProviderAccountOut]


class SandboxCardSimulations(SyncGroup):
    """The sandbox group's card simulations."""

    simulate_card_authorization: SyncOperation[SimulationOut]
    simulate_card_authorization_advice: SyncOperation[SimulationOut]
    simulate_card_balance_inquiry: SyncOperation[SimulationOut]
    simulate_card_clearing: SyncOperation[SimulationOut]
    simulate_card_credit_authorization: SyncOperation[SimulationOut]
    simulate_card_credit_authorization_advice: SyncOperation[SimulationOut]
    simulate_card_financial_authorization: SyncOperation[SimulationOut]
    simulate_card_financial_credit_authorization: SyncOperation[SimulationOut]
    simulate_card_return: SyncOperation[SimulationOut]
    simulate_card_return_reversal: SyncOperation[SimulationOut]


class AsyncCardsOperations(AsyncGroup):
    """Cards."""

    create: AsyncOperation[CardOut]
    list: AsyncListOperation[CardList, CardOut]
    get: AsyncOperation[CardOut]
    update: AsyncOperation[CardOut]
    reveal: AsyncOperation[CardRevealOut]


class AsyncStablecoinsOperations(AsyncGroup):
    """Stablecoins."""

    register: AsyncOperation[StablecoinOut]
    list: AsyncListOperation[StablecoinList, StablecoinOut]
    get: AsyncOperation[StablecoinOut]
    mint: AsyncOperation[StablecoinOperationOut]
    burn: AsyncOperation[StablecoinOperationOut]
    list_operations: AsyncListOperation[StablecoinOperationList, StablecoinOperationOut]
    get_operation: AsyncOperation[StablecoinOperationOut]
    link_provider_account: AsyncOperation[ProviderAccountOut]
    list_provider_accounts: AsyncListOperation[ProviderAccountList, ProviderAccountOut]
    get_provider_account: AsyncOperation[ProviderAccountOut]


class AsyncSandboxCardSimulations(AsyncGroup):
    """The sandbox group's card simulations."""

    simulate_card_authorization: AsyncOperation[SimulationOut]
    simulate_card_authorization_advice: AsyncOperation[SimulationOut]
    simulate_card_balance_inquiry: AsyncOperation[SimulationOut]
    simulate_card_clearing: AsyncOperation[SimulationOut]
    simulate_card_credit_authorization: AsyncOperation[SimulationOut]
    simulate_card_credit_authorization_advice: AsyncOperation[SimulationOut]
    simulate_card_financial_authorization: AsyncOperation[SimulationOut]
    simulate_card_financial_credit_authorization: AsyncOperation[SimulationOut]
    simulate_card_return: AsyncOperation[SimulationOut]
    simulate_card_return_reversal: AsyncOperation[SimulationOut]
