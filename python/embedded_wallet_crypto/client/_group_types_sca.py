"""The typed groups of strong customer authentication and contact verification (see
``_group_types``, which lists them with the others)."""

from __future__ import annotations

from ..sandbox.models.customers import CustomerOut
from ..sandbox.models.quotes import QuoteOut
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
from ._groups import AsyncGroup, AsyncOperation, SyncGroup, SyncOperation

__all__ = [
    "AsyncContactVerificationOperations",
    "AsyncScaOperations",
    "ContactVerificationOperations",
    "ScaOperations",
]


class ScaOperations(SyncGroup):
    """Strong Customer Authentication."""

    list_factors: SyncOperation[ScaFactorList]
    start_enrollment: SyncOperation[EnrollStartOut]
    confirm_enrollment: SyncOperation[EnrollConfirmOut]
    delete_factor: SyncOperation[None]
    start_login: SyncOperation[ScaLoginStartOut]
    complete_login: SyncOperation[ScaLoginCompleteOut]
    record_event: SyncOperation[RecordEventOut]
    start_reset: SyncOperation[ResetStartOut]
    get_reset: SyncOperation[ResetStatusOut]
    complete_reset: SyncOperation[None]
    trust: SyncOperation[BeneficiaryTrustStart]
    confirm_trust: SyncOperation[TrustConfirmOut]
    untrust: SyncOperation[BeneficiaryTrustStart]
    confirm_untrust: SyncOperation[TrustConfirmOut]
    authorize_quote: SyncOperation[QuoteOut]
    resend_quote_code: SyncOperation[None]


class ContactVerificationOperations(SyncGroup):
    """Contact Verification."""

    send_email_code: SyncOperation[None]
    confirm_email: SyncOperation[CustomerOut]
    send_phone_code: SyncOperation[None]
    confirm_phone: SyncOperation[CustomerOut]


class AsyncScaOperations(AsyncGroup):
    """Strong Customer Authentication."""

    list_factors: AsyncOperation[ScaFactorList]
    start_enrollment: AsyncOperation[EnrollStartOut]
    confirm_enrollment: AsyncOperation[EnrollConfirmOut]
    delete_factor: AsyncOperation[None]
    start_login: AsyncOperation[ScaLoginStartOut]
    complete_login: AsyncOperation[ScaLoginCompleteOut]
    record_event: AsyncOperation[RecordEventOut]
    start_reset: AsyncOperation[ResetStartOut]
    get_reset: AsyncOperation[ResetStatusOut]
    complete_reset: AsyncOperation[None]
    trust: AsyncOperation[BeneficiaryTrustStart]
    confirm_trust: AsyncOperation[TrustConfirmOut]
    untrust: AsyncOperation[BeneficiaryTrustStart]
    confirm_untrust: AsyncOperation[TrustConfirmOut]
    authorize_quote: AsyncOperation[QuoteOut]
    resend_quote_code: AsyncOperation[None]


class AsyncContactVerificationOperations(AsyncGroup):
    """Contact Verification."""

    send_email_code: AsyncOperation[None]
    confirm_email: AsyncOperation[CustomerOut]
    send_phone_code: AsyncOperation[None]
    confirm_phone: AsyncOperation[CustomerOut]
