"""The typed results of the client's flows, and the protocols of what a caller plugs in.

The secrets in them (a session key, an exported wallet, an agent's token) never show in a
``repr``; they leave the process only when the caller reads them on purpose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from ..keys import Ed25519KeyPair, KeyPair, Secp256k1KeyPair
from ..stamps import StampSigner
from ._errors import ClientError

#: What stamps: the library's key types, or any ``ewc.StampSigner`` (an HSM or KMS key).
Signer = KeyPair | Secp256k1KeyPair | Ed25519KeyPair | StampSigner

__all__ = [
    "AgentCredentials",
    "ExportedWallet",
    "PasskeyAuthenticator",
    "PasskeyRegistrar",
    "Signer",
    "WalletSession",
]


def _text(data: Mapping[str, Any], name: str, what: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise ClientError(f"the service's {what} has no {name}", "RESPONSE_INVALID")
    return value


def parse_time(value: str, what: str) -> datetime:
    """An ISO 8601 time of the service (``Z`` or an offset) as an aware datetime."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ClientError(
            f"the service's {what} is not an ISO 8601 time", "RESPONSE_INVALID"
        ) from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


@dataclass(frozen=True, repr=False)
class WalletSession:
    """A verified session of an embedded wallet, with its signing key.

    Attributes:
        id: the session's id (``DELETE /auth/sessions/{id}`` revokes it).
        account_id: the wallet's internal account.
        expires_at: when the service stops accepting its stamps.
        signer: the session key (an ``ewc.KeyPair``): it stamps every signed retry, and it
            never leaves the process unless you read it out (``signer.private_key_bytes()``).
        credential_type: ``EMAIL_OTP``, ``SMS_OTP``, ``OAUTH`` or ``PASSKEY``.
        data: the service's Session body as it came (without the sealed key).
    """

    id: str
    account_id: str
    expires_at: datetime
    signer: Signer
    credential_type: str
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_body(cls, body: Any, signer: Signer) -> WalletSession:
        if not isinstance(body, dict):
            raise ClientError("the service's Session is not a JSON object", "RESPONSE_INVALID")
        kept = {key: value for key, value in body.items() if key != "encryptedSessionSigningKey"}
        return cls(
            id=_text(body, "id", "Session"),
            account_id=_text(body, "accountId", "Session"),
            expires_at=parse_time(_text(body, "expiresAt", "Session"), "Session expiresAt"),
            signer=signer,
            credential_type=_text(body, "type", "Session"),
            data=kept,
        )

    def expired(self, now: datetime | None = None) -> bool:
        """Whether the session has expired (at ``now``, default the current time)."""
        return (now or datetime.now(timezone.utc)) >= self.expires_at

    def __repr__(self) -> str:
        return (
            f"WalletSession(id={self.id!r}, account_id={self.account_id!r}, "
            f"credential_type={self.credential_type!r}, expires_at={self.expires_at.isoformat()!r})"
        )


@dataclass(frozen=True, repr=False)
class ExportedWallet:
    """An exported wallet, opened: the envelope's signer was checked against the pinned key
    (or, with ``sandbox=True``, the envelope was the sandbox's unsigned one) before it was
    decrypted with the export's one-time key.

    Attributes:
        account_id: the wallet's internal account.
        mnemonic: the BIP-39 mnemonic (checked) of a wallet export, else None.
        private_key: the private key's lowercase hex of a key export, else None.
        signed: False only for an unsigned sandbox envelope.
    """

    account_id: str
    mnemonic: str | None
    private_key: str | None
    signed: bool

    def __repr__(self) -> str:
        kind = "mnemonic" if self.mnemonic is not None else "private_key"
        return f"ExportedWallet(account_id={self.account_id!r}, {kind}=[REDACTED])"


@dataclass(frozen=True, repr=False)
class AgentCredentials:
    """What redeeming a device code gives an agent.

    Attributes:
        agent_id: the agent's id.
        agent_name: its name.
        access_token: the Bearer token of ``/agents/me`` (shown once by the service).
        policy: the agent's policy.
    """

    agent_id: str
    agent_name: str
    access_token: str
    policy: Mapping[str, Any]

    @classmethod
    def from_body(cls, body: Any) -> AgentCredentials:
        if not isinstance(body, dict):
            raise ClientError("the redemption answer is not a JSON object", "RESPONSE_INVALID")
        policy = body.get("policy")
        return cls(
            agent_id=_text(body, "agentId", "redemption answer"),
            agent_name=str(body.get("agentName", "")),
            access_token=_text(body, "accessToken", "redemption answer"),
            policy=policy if isinstance(policy, dict) else {},
        )

    def __repr__(self) -> str:
        return (
            f"AgentCredentials(agent_id={self.agent_id!r}, agent_name={self.agent_name!r}, "
            "access_token=[REDACTED])"
        )


class PasskeyAuthenticator(Protocol):
    """Signs a WebAuthn login challenge: ``ewc.passkeys.SoftwareAuthenticator``, or an
    adapter to a real one (a browser, a platform authenticator). It returns the interface's
    assertion object (``credentialId``, ``clientDataJson``, ``authenticatorData``,
    ``signature``, ``userHandle``; base64url values). An ``AsyncClient`` also awaits it."""

    def authenticate(self, *, rp_id: str, origin: str, challenge: bytes) -> Any: ...


class PasskeyRegistrar(Protocol):
    """Creates a WebAuthn credential: returns the interface's attestation object
    (``credentialId``, ``clientDataJson``, ``attestationObject``, ``transports``)."""

    def register(self, *, rp_id: str, origin: str, challenge: bytes) -> Any: ...
