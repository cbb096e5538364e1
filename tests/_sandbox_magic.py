"""The magic values of issues 4, 5 and 25 for test_sandbox_policy.py, each as
``(name, attempt(magic, sandbox), accepted(result))``: the OTP ``000000``, the TOTP ``123456``,
the passkey signature ``sandbox-valid-passkey-signature`` and the unsigned envelope (export, and
the OTP target bundle). ``attempt(False, ...)`` uses another wrong value of the same shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc

Attempt = Callable[[bool, Any], Any]

# --- OTP ``000000`` (EMAIL_OTP verify) ---------------------------------------------------------

_OTP_KEY = b"sandbox policy otp hash key!"


def _otp(magic: bool, sandbox: Any) -> Any:
    codes = ewc.otp.OneTimeCodes(hash_key=_OTP_KEY, sandbox=sandbox)
    issued = codes.issue("AuthMethod:otp")
    wrong = next(
        f"{n:06d}" for n in range(1, 4) if f"{n:06d}" != issued.code
    )  # a wrong code that is not 000000 either
    if magic and issued.code == "000000":  # one in a million: the magic value is the real code
        return _otp(magic, sandbox)
    return codes.verify("AuthMethod:otp", "000000" if magic else wrong)


# --- passkey ``sandbox-valid-passkey-signature`` -----------------------------------------------

_RP_ID, _ORIGIN = "wallet.example", "https://wallet.example"
_CHALLENGE = b"0" * 64


def _passkey(magic: bool, sandbox: Any) -> Any:
    authenticator = ewc.passkeys.SoftwareAuthenticator(
        ewc.hpke.derive_key_pair(b"sandbox policy passkey key ikm!!")
    )
    assertion = authenticator.authenticate(rp_id=_RP_ID, origin=_ORIGIN, challenge=_CHALLENGE)
    signature = ewc.passkeys.SANDBOX_PASSKEY_SIGNATURE
    assertion["signature"] = signature if magic else signature[:-1] + "f"
    return ewc.passkeys.verify_assertion(
        assertion,
        credential_public_key=authenticator.public_key,
        expected_challenge=_CHALLENGE,
        rp_id=_RP_ID,
        origin=_ORIGIN,
        current_sign_count=0,
        sandbox=sandbox,
    )


# --- unsigned export envelope (dataSignature and enclaveQuorumPublic empty) -------------------

_CLIENT = ewc.hpke.derive_key_pair(b"sandbox policy export client key")
_MNEMONIC = "abandon " * 11 + "about"
_UNSIGNED = ewc.export.seal_export_bundle(
    _CLIENT.public_key_hex(), _MNEMONIC, organization_id="org-1", signer=None
)


def _export(magic: bool, sandbox: Any) -> Any:
    envelope = json.loads(_UNSIGNED)
    if not magic:  # another wrong value of the same shape: a signature, but no signer key
        envelope["dataSignature"] = "3006020101020101"
    return ewc.export.open_export_bundle(
        json.dumps(envelope), _CLIENT, organization_id="org-1", sandbox=sandbox
    )


_TARGET = ewc.hpke.derive_key_pair(b"sandbox policy otp target key ik")
_UNSIGNED_TARGET = ewc.otp.seal_target_bundle(
    _TARGET.public_key_hex(), organization_id="org-1", user_id="user-1", signer=None
)


def _otp_target(magic: bool, sandbox: Any) -> Any:
    """The same envelope as the OTP target bundle (formats.md section 9)."""
    envelope = json.loads(_UNSIGNED_TARGET)
    if not magic:
        envelope["dataSignature"] = "3006020101020101"
    return ewc.otp.encrypt_otp_code(
        json.dumps(envelope), "123456", _CLIENT.public_key_hex(), sandbox=sandbox
    )


def _opens_to_the_target(bundle: str) -> bool:
    return ewc.otp.decrypt_otp_bundle(bundle, _TARGET).otp_code == "123456"


# --- TOTP ``123456`` (SCA login and factor confirmation) ------------------------------------

_TOTP_SECRET = ewc.totp.TotpSecret(b"sandbox policy totp secret 0123")
_TOTP_NOW = 1_700_000_000


def _totp(magic: bool, sandbox: Any) -> Any:
    verifier = ewc.totp.Totp(issuer="Sandbox policy", sandbox=sandbox)
    window = {verifier.code_at(_TOTP_SECRET, _TOTP_NOW + 30 * k) for k in (-1, 0, 1)}
    assert not window & {"123456", "123457"}  # neither is a real code of this window
    return verifier.verify(
        "Factor:sandbox", _TOTP_SECRET, "123456" if magic else "123457", now=_TOTP_NOW
    )


MORE_MAGIC_VALUES: list[tuple[str, Attempt, Callable[[Any], bool]]] = [
    ("TOTP 123456", _totp, lambda verified: verified.sandbox is True and verified.step is None),
    ("OTP 000000", _otp, lambda verified: verified.sandbox is True),
    (
        "passkey sandbox-valid-passkey-signature",
        _passkey,
        lambda verified: verified.new_sign_count == 1,
    ),
    ("unsigned export envelope", _export, lambda plaintext: plaintext == _MNEMONIC.encode()),
    ("unsigned OTP target bundle", _otp_target, _opens_to_the_target),
]
