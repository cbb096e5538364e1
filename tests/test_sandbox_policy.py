"""One sandbox policy (ewc.policy) behind every magic value of the interface (rule 9).

For each magic value: in production (the default, ``sandbox=False``, or
``Environment.PRODUCTION``) it is refused with exactly the error (class, code, status) of another
wrong value of the same shape; in sandbox it is accepted, both per call (``sandbox=True`` or
``Environment.SANDBOX``) and through ``set_default_environment(Environment.SANDBOX)``, where an
explicit per-call ``False`` still wins; a ``sandbox`` that is not a bool, an Environment or None
(``"false"``, ``1``) is a TypeError, never a truthy yes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _oidc_helpers import AUDIENCE, CLIENT_PUBLIC_KEY, JWKS, NOW, OTHER_ES_LABEL, claims, es256
from _sandbox_magic import MORE_MAGIC_VALUES
from embedded_wallet_crypto import Environment
from embedded_wallet_crypto.signed_retry import Operation, SignedRetry
from embedded_wallet_crypto.vectors.generate._jwt_mint import b64url

Sandbox = Any  # what a caller passes as ``sandbox=``; deliberately loose for the TypeError cases


@dataclass(frozen=True)
class Magic:
    """One sandbox behaviour: ``attempt(value, sandbox)`` runs the public call with the magic
    value (``magic=True``) or with another wrong value of the same shape (``magic=False``)."""

    name: str
    attempt: Callable[[bool, Sandbox], Any]
    accepted: Callable[[Any], bool]
    #: A value the sandbox still refuses (default: the other wrong value).
    refused_in_sandbox: Callable[[Sandbox], Any] | None = None


@pytest.fixture(autouse=True)
def production_default() -> Iterator[None]:
    ewc.set_default_environment(Environment.PRODUCTION)
    try:
        yield
    finally:
        ewc.set_default_environment(Environment.PRODUCTION)


# --- the stamp ``sandbox-valid-signature`` -----------------------------------------------------

PAYLOAD = b'{"organizationId":"org-1","parameters":{},"type":"ACTIVITY_TYPE_DELETE_API_KEYS"}'


def _stamp(magic: bool, sandbox: Sandbox) -> Any:
    value = "sandbox-valid-signature" if magic else "sandbox-valid-signaturf"
    return ewc.verify_stamp(value, PAYLOAD, sandbox=sandbox)


SESSION = ewc.hpke.derive_key_pair(b"sandbox policy session key ikm!!")


def _signed_retry(magic: bool, sandbox: Sandbox) -> Any:
    retry = SignedRetry(sandbox=sandbox)
    challenge = retry.issue(
        account_id="InternalAccount:a1",
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": ["Session:9"], "userId": "u1"},
        organization_id="org-1",
    )
    return retry.verify(
        request_id=challenge.request_id,
        stamp="sandbox-valid-signature" if magic else "sandbox-valid-signaturf",
        account_session_keys=[SESSION.public_key_hex()],
    )


# --- OIDC: ``sandbox-valid-oidc-token`` on verify, the skipped signature on create -----------


def _oidc_verify(magic: bool, sandbox: Sandbox) -> Any:
    token = ewc.oidc.SANDBOX_TOKEN if magic else "sandbox-valid-oidc-tokem"
    return ewc.oidc.verify_id_token(
        token,
        jwks=JWKS,
        audience=AUDIENCE,
        now=NOW,
        client_public_key=CLIENT_PUBLIC_KEY,
        sandbox=sandbox,
    )


CREATE_CLAIMS = claims(nonce=None)
# The magic: a token whose signature is not checked at all (here: not a signature). The other
# wrong value: a real signature by a key that is not the issuer's.
UNSIGNED_CREATE_TOKEN = es256(CREATE_CLAIMS).rsplit(".", 1)[0] + "." + b64url(b"\0" * 64)
FORGED_CREATE_TOKEN = es256(CREATE_CLAIMS, label=OTHER_ES_LABEL)


def _oidc_create(magic: bool, sandbox: Sandbox) -> Any:
    token = UNSIGNED_CREATE_TOKEN if magic else FORGED_CREATE_TOKEN
    return ewc.oidc.verify_create_token(
        token, jwks=JWKS, audience=AUDIENCE, now=NOW, sandbox=sandbox
    )


def _oidc_create_unknown_issuer(sandbox: Sandbox) -> Any:
    """Skipping the signature is all the sandbox does: the shape and iss still count."""
    token = es256(claims(iss="https://evil.example"))
    return ewc.oidc.verify_create_token(
        token, jwks=JWKS, audience=AUDIENCE, now=NOW, sandbox=sandbox
    )


MAGIC_VALUES = [
    Magic("stamp sandbox-valid-signature", _stamp, lambda s: s.scheme == "SANDBOX"),
    Magic("signed retry sandbox-valid-signature", _signed_retry, lambda v: v.request_id != ""),
    Magic("OIDC verify sandbox-valid-oidc-token", _oidc_verify, lambda i: i.sandbox),
    Magic(
        "OIDC create, signature skipped",
        _oidc_create,
        lambda i: i.sandbox and i.subject == CREATE_CLAIMS["sub"] and i.email is not None,
        _oidc_create_unknown_issuer,
    ),
    *(Magic(*more) for more in MORE_MAGIC_VALUES),
]
IDS = [m.name for m in MAGIC_VALUES]


def _error(call: Callable[[], Any]) -> ewc.WalletCryptoError:
    with pytest.raises(ewc.WalletCryptoError) as raised:
        call()
    return raised.value


@pytest.mark.parametrize("magic", MAGIC_VALUES, ids=IDS)
@pytest.mark.parametrize("production", [None, False, Environment.PRODUCTION])
def test_refused_in_production_like_any_other_wrong_value(magic: Magic, production: Any) -> None:
    refused = _error(lambda: magic.attempt(True, production))
    other = _error(lambda: magic.attempt(False, production))
    assert type(refused) is type(other)
    assert (refused.code, refused.status) == (other.code, other.status), (refused, other)


@pytest.mark.parametrize("magic", MAGIC_VALUES, ids=IDS)
@pytest.mark.parametrize("sandbox", [True, Environment.SANDBOX])
def test_accepted_in_sandbox_per_call(magic: Magic, sandbox: Any) -> None:
    assert magic.accepted(magic.attempt(True, sandbox))


@pytest.mark.parametrize("magic", MAGIC_VALUES, ids=IDS)
def test_accepted_in_sandbox_by_process_default(magic: Magic) -> None:
    ewc.set_default_environment(Environment.SANDBOX)
    assert magic.accepted(magic.attempt(True, None))
    # An explicit per-call production still refuses, with the error of any wrong value.
    refused = _error(lambda: magic.attempt(True, False))
    other = _error(lambda: magic.attempt(False, False))
    assert (type(refused), refused.code) == (type(other), other.code)


@pytest.mark.parametrize("magic", MAGIC_VALUES, ids=IDS)
def test_only_the_magic_value_is_accepted_in_sandbox(magic: Magic) -> None:
    refuse = magic.refused_in_sandbox or (lambda sandbox: magic.attempt(False, sandbox))
    _error(lambda: refuse(True))


@pytest.mark.parametrize("magic", MAGIC_VALUES, ids=IDS)
@pytest.mark.parametrize("not_a_bool", ["false", "true", "sandbox", 1, 0, [True], "SANDBOX"])
def test_non_bool_sandbox_is_a_type_error(magic: Magic, not_a_bool: Any) -> None:
    with pytest.raises(TypeError):
        magic.attempt(True, not_a_bool)


EVERY_CALL = [pytest.param(m, id=m.name) for m in MAGIC_VALUES]


@pytest.mark.parametrize("magic", EVERY_CALL)
def test_non_bool_sandbox_fails_every_call_not_only_the_magic_one(magic: Magic) -> None:
    """A misconfigured ``sandbox="false"`` shows on the first request, not on the first
    request that happens to carry the magic value."""
    with pytest.raises(TypeError):
        magic.attempt(False, "false")


def test_process_default_is_production_and_only_takes_an_environment() -> None:
    assert ewc.default_environment() is Environment.PRODUCTION
    for value in (True, "sandbox", None):
        with pytest.raises(TypeError):
            ewc.set_default_environment(value)  # type: ignore[arg-type]
    assert ewc.policy.sandbox_allowed(None) is False
