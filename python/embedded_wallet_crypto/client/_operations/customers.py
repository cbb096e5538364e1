"""The operations of the table: customers, their internal and external accounts, invitations,
KYC/KYB verifications, beneficial owners and documents."""

from __future__ import annotations

from ...sandbox.models.crypto import EndUserTermsOut
from ...sandbox.models.customer_ops import BulkJobAccepted, BulkJobOut, CustomerList, KycLinkOut
from ...sandbox.models.customers import CustomerOut, InternalAccountList, InternalAccountOut
from ...sandbox.models.directory import PlatformInternalAccountList
from ...sandbox.models.external_account_ops import OwnershipChallengeOut
from ...sandbox.models.external_accounts import ExternalAccountList, ExternalAccountOut
from ...sandbox.models.invitations import InvitationOut
from ...sandbox.models.kyc import BeneficialOwnerList, BeneficialOwnerOut, DocumentList, DocumentOut
from ...sandbox.models.verifications import VerificationList, VerificationOut
from ...sandbox.models.wallet import ExportOut
from ._row import Operation, Signing

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "customers": "Customers",
    "internal_accounts": "Internal Accounts",
    "external_accounts": "External Accounts",
    "invitations": "Invitations",
    "verifications": "KYC/KYB Verifications",
    "documents": "Documents",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("customers",          "create",                  "POST",   "/customers",                                  "createCustomer",                   False, response_model=CustomerOut),
    _("customers",          "list",                    "GET",    "/customers",                                  "listCustomers",                    True, paginated=PAGES, response_model=CustomerList),
    _("customers",          "get",                     "GET",    "/customers/{customerId}",                     "getCustomerById",                  True, response_model=CustomerOut),
    _("customers",          "update",                  "PATCH",  "/customers/{customerId}",                     "updateCustomerById",               True, response_model=CustomerOut),
    _("customers",          "delete",                  "DELETE", "/customers/{customerId}",                     "deleteCustomerById",               True, response_model=CustomerOut),
    _("customers",          "upload_csv",              "POST",   "/customers/bulk/csv",                         "uploadCustomersCsv",               False, multipart=True, response_model=BulkJobAccepted),
    _("customers",          "get_bulk_job",            "GET",    "/customers/bulk/jobs/{jobId}",                "getBulkCustomerImportJob",         True, response_model=BulkJobOut),
    _("internal_accounts",  "list",                    "GET",    "/customers/internal-accounts",                "listCustomerInternalAccounts",     True, paginated=PAGES, response_model=InternalAccountList),
    _("internal_accounts",  "export",                  "POST",   "/internal-accounts/{id}/export",              "exportInternalAccount",            False, signing="retry", binds_key="clientPublicKey", response_model=ExportOut),
    _("internal_accounts",  "update",                  "PATCH",  "/internal-accounts/{id}",                     "updateInternalAccount",            True, signing="retry", response_model=InternalAccountOut),
    _("internal_accounts",  "list_for_platform",       "GET",    "/platform/internal-accounts",                 "listPlatformInternalAccounts",     True, response_model=PlatformInternalAccountList),
    _("external_accounts",  "create_for_customer",     "POST",   "/customers/external-accounts",                "createCustomerExternalAccount",    False, response_model=ExternalAccountOut),
    _("external_accounts",  "list_for_customer",       "GET",    "/customers/external-accounts",                "listCustomerExternalAccounts",     True, paginated=PAGES, response_model=ExternalAccountList),
    _("external_accounts",  "get_for_customer",        "GET",    "/customers/external-accounts/{externalAccountId}", "getCustomerExternalAccountById", True, response_model=ExternalAccountOut),
    _("external_accounts",  "create_for_platform",     "POST",   "/platform/external-accounts",                 "createPlatformExternalAccount",    False, response_model=ExternalAccountOut),
    _("external_accounts",  "list_for_platform",       "GET",    "/platform/external-accounts",                 "listPlatformExternalAccounts",     True, paginated=PAGES, response_model=ExternalAccountList),
    _("external_accounts",  "get_for_platform",        "GET",    "/platform/external-accounts/{externalAccountId}", "getPlatformExternalAccountById", True, response_model=ExternalAccountOut),
    _("external_accounts",  "delete_for_customer",     "DELETE", "/customers/external-accounts/{externalAccountId}", "deleteCustomerExternalAccountById", True),
    _("external_accounts",  "challenge_for_customer",  "POST",   "/customers/external-accounts/{externalAccountId}/challenge", "createExternalAccountOwnershipChallenge", False, response_model=OwnershipChallengeOut),
    _("external_accounts",  "verify_for_customer",     "POST",   "/customers/external-accounts/{externalAccountId}/verify", "verifyExternalAccountOwnership", False, response_model=ExternalAccountOut),
    _("external_accounts",  "delete_for_platform",     "DELETE", "/platform/external-accounts/{externalAccountId}", "deletePlatformExternalAccountById", True),
    _("external_accounts",  "challenge_for_platform",  "POST",   "/platform/external-accounts/{externalAccountId}/challenge", "createPlatformExternalAccountOwnershipChallenge", False, response_model=OwnershipChallengeOut),
    _("external_accounts",  "verify_for_platform",     "POST",   "/platform/external-accounts/{externalAccountId}/verify", "verifyPlatformExternalAccountOwnership", False, response_model=ExternalAccountOut),
    _("invitations",        "create",                  "POST",   "/invitations",                                "createInvitation",                 False, response_model=InvitationOut),
    _("invitations",        "get",                     "GET",    "/invitations/{invitationCode}",               "getInvitation",                    True, response_model=InvitationOut),
    _("invitations",        "claim",                   "POST",   "/invitations/{invitationCode}/claim",         "claimInvitation",                  False, response_model=InvitationOut),
    _("invitations",        "cancel",                  "POST",   "/invitations/{invitationCode}/cancel",        "cancelInvitation",                 False, response_model=InvitationOut),
    _("verifications",      "create",                  "POST",   "/verifications",                              "createVerification",               False, response_model=VerificationOut),
    _("verifications",      "get",                     "GET",    "/verifications/{verificationId}",             "getVerification",                  True, response_model=VerificationOut),
    _("verifications",      "create_beneficial_owner", "POST",   "/beneficial-owners",                          "createBeneficialOwner",            False, response_model=BeneficialOwnerOut),
    _("verifications",      "list_beneficial_owners",  "GET",    "/beneficial-owners",                          "listBeneficialOwners",             True, paginated=PAGES, response_model=BeneficialOwnerList),
    _("verifications",      "get_beneficial_owner",    "GET",    "/beneficial-owners/{beneficialOwnerId}",      "getBeneficialOwner",               True, response_model=BeneficialOwnerOut),
    _("verifications",      "update_beneficial_owner", "PATCH",  "/beneficial-owners/{beneficialOwnerId}",      "updateBeneficialOwner",            True, response_model=BeneficialOwnerOut),
    _("verifications",      "create_kyc_link",         "POST",   "/customers/{customerId}/kyc-link",            "createCustomerKycLink",            False, response_model=KycLinkOut),
    _("documents",          "upload",                  "POST",   "/documents",                                  "uploadDocument",                   False, multipart=True, response_model=DocumentOut),
    _("documents",          "list",                    "GET",    "/documents",                                  "listDocuments",                    True, paginated=PAGES, response_model=DocumentList),
    _("documents",          "get",                     "GET",    "/documents/{documentId}",                     "getDocument",                      True, response_model=DocumentOut),
    _("documents",          "replace",                 "PUT",    "/documents/{documentId}",                     "replaceDocument",                  True, multipart=True, response_model=DocumentOut),
    _("documents",          "delete",                  "DELETE", "/documents/{documentId}",                     "deleteDocument",                   True),
    _("customers",          "end_user_terms",          "GET",    "/customers/end-user-terms",                   "getEndUserTerms",                  True, response_model=EndUserTermsOut),
    _("verifications",      "list",                    "GET",    "/verifications",                              "listVerifications",                True, paginated=PAGES, response_model=VerificationList),
)
# fmt: on
del _, P, PAGES
