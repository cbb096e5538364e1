"""The operations of the table: the embedded wallet's credentials and sessions."""

from __future__ import annotations

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
)
# fmt: on
del _, P, PAGES
