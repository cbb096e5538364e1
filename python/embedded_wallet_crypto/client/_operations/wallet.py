"""The operations of the table: the embedded wallet's credentials, sessions and delegated keys."""

from __future__ import annotations

from ...sandbox.models.delegated_keys import DelegatedKeyList, DelegatedKeyOut
from ...sandbox.models.wallet import (
    AuthMethodList,
    AuthMethodWithBundle,
    CredentialChallengeOut,
    SessionList,
    SessionOut,
)
from ._row import Operation, Signing

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "auth": "Embedded Wallet Auth",
}

_ = Operation
P: Signing = "payload"
PAGES = True
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
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
)
# fmt: on
del _, P, PAGES
