"""The operations of the table: strong customer authentication (factors, logins, resets,
trusted beneficiaries, quote authorization) and the verification of a customer's contacts."""

from __future__ import annotations

from ...sandbox.models.customers import CustomerOut
from ...sandbox.models.quotes import QuoteOut
from ...sandbox.models.sca import (
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
from ._row import Operation

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "sca": "Strong Customer Authentication",
    "contact_verification": "Contact Verification",
}

_ = Operation
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
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
)
# fmt: on
del _
