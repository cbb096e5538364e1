"""Stamps: the ``Service-Wallet-Signature`` header (formats.md sections 4 and 15),
rust/core/src/stamp.rs.

A stamp is ``base64url(JSON {publicKey, scheme, signature})``: a DER ECDSA P-256 / SHA-256
signature by the session key over the payload bytes exactly as received, or, in the other two
schemes, DER ECDSA secp256k1 / SHA-256 or Ed25519. Verifiers accept P-256 only unless they opt
in with ``schemes=``. Verification of one stamp or of many (on every core, without the GIL) runs
in the core; parsed public keys are cached there, so a key that stamps many requests is parsed
once. A key held elsewhere (an HSM, a cloud KMS, a secure enclave) stamps through the
:class:`StampSigner` protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from . import _native
from . import _strict_json as strict_json
from ._contract import buffer_bytes
from ._types import BytesLike, KeyLike
from .errors import DecodeError, StampError
from .keys import Ed25519KeyPair, KeyPair, Secp256k1KeyPair, parse_public_key, same_public_key
from .policy import Environment, sandbox_allowed

__all__ = [
    "SANDBOX_STAMP",
    "SCHEME",
    "STAMP_SCHEME_ED25519",
    "STAMP_SCHEME_P256",
    "STAMP_SCHEME_SECP256K1",
    "Stamp",
    "StampSigner",
    "check_payload_binding",
    "create_stamp",
    "verify_stamp",
    "verify_stamps",
]

SCHEME: str = _native.STAMP_SCHEME
#: ``SIGNATURE_SCHEME_TK_API_P256``: DER ECDSA P-256 / SHA-256 (formats.md section 4).
STAMP_SCHEME_P256: str = _native.STAMP_SCHEME
#: ``SIGNATURE_SCHEME_TK_API_SECP256K1``: DER ECDSA secp256k1 / SHA-256 (formats.md section 15).
STAMP_SCHEME_SECP256K1: str = _native.STAMP_SCHEME_SECP256K1
#: ``SIGNATURE_SCHEME_TK_API_ED25519``: Ed25519 over the raw payload (formats.md section 15).
STAMP_SCHEME_ED25519: str = _native.STAMP_SCHEME_ED25519
_SCHEMES = (STAMP_SCHEME_P256, STAMP_SCHEME_SECP256K1, STAMP_SCHEME_ED25519)
#: The interface's sandbox value, accepted only with ``sandbox=True``.
SANDBOX_STAMP = "sandbox-valid-signature"

Payload = str | BytesLike


_Candidate = TypeVar("_Candidate", str, bytes, bytearray, memoryview)


@dataclass(frozen=True)
class Stamp:
    """A stamp that verified: the signer's public key (hex, as the stamp carries it: compressed
    SEC1 for P-256 and secp256k1, 32 bytes for Ed25519), the scheme, and the signature bytes (DER
    for ECDSA, 64 bytes for Ed25519)."""

    public_key: str
    scheme: str
    signature: bytes

    def signer_among(self, candidate_public_keys: Iterable[_Candidate]) -> _Candidate | None:
        """Which of ``candidate_public_keys`` (an account's session keys, say) made this stamp.

        A candidate is the signer when it is the same key, whatever its encoding: for P-256,
        SEC1 compressed or uncompressed, hex in either case, or bytes (as
        ``keys.same_public_key`` decides); for secp256k1 and Ed25519, the stamp's own form
        (compressed SEC1, 32 bytes), hex in either case, or bytes. A malformed candidate is
        never the signer, and neither is any key for the sandbox stamp, which names none.

        Returns:
            The first matching candidate, exactly as given; None when none matches.

        Raises:
            TypeError: ``candidate_public_keys`` is a single key (text or bytes) rather than an
                iterable of keys, or a candidate is neither text nor bytes-like.
        """
        if isinstance(candidate_public_keys, (str, bytes, bytearray, memoryview)):
            raise TypeError("candidate_public_keys must be an iterable of keys, not one key")
        if self.scheme not in _SCHEMES:
            return None  # the sandbox stamp names no key
        signer = bytes.fromhex(self.public_key)
        for candidate in candidate_public_keys:
            if not isinstance(candidate, (str, bytes, bytearray, memoryview)):
                raise TypeError(
                    f"a candidate key must be text or bytes, not {type(candidate).__name__}"
                )
            if self.scheme == STAMP_SCHEME_P256:
                if same_public_key(self.public_key, candidate):
                    return candidate
            elif _key_bytes(candidate) == signer:
                return candidate
        return None


def _key_bytes(key: str | BytesLike) -> bytes | None:
    """A key's bytes (hex in either case, or bytes); None for text that is not strict hex."""
    if not isinstance(key, str):
        return buffer_bytes(key, "a candidate key")
    if not (key.isascii() and key.isalnum()):  # bytes.fromhex alone would skip whitespace
        return None
    try:
        return bytes.fromhex(key)
    except ValueError:
        return None


@runtime_checkable
class StampSigner(Protocol):
    """Anything that signs stamps without the library holding the secret (formats.md section 15).

    An HSM, a cloud KMS or a secure enclave wrapped in a small class: ``scheme`` is one of
    :data:`STAMP_SCHEME_P256`, :data:`STAMP_SCHEME_SECP256K1` and :data:`STAMP_SCHEME_ED25519`;
    ``public_key_hex()`` is the key as the stamp carries it (compressed SEC1, 66 hex, for the
    ECDSA schemes; 64 hex for Ed25519); ``sign(message)`` signs the payload bytes exactly as
    given: DER ECDSA over SHA-256 of them, or the 64-byte Ed25519 signature of them.
    :class:`Secp256k1KeyPair` and :class:`Ed25519KeyPair` are StampSigners too.
    """

    @property
    def scheme(self) -> str:
        """The stamp scheme's name."""
        ...

    def public_key_hex(self) -> str:
        """The public key in the stamp's form, as hex."""
        ...

    def sign(self, message: bytes) -> bytes:
        """The signature over ``message`` (DER for ECDSA, 64 raw bytes for Ed25519)."""
        ...


def _signer_failed(step: str, error: Exception) -> StampError:
    return StampError(
        f"the stamp signer's {step} raised {type(error).__name__}", "STAMP_SIGNER_FAILED", 500
    )


def _malformed(reason: str) -> StampError:
    return StampError(reason, "WALLET_SIGNATURE_MALFORMED")


def _signer_stamp(payload: Payload, signer: StampSigner) -> str:
    """Ask ``signer`` for its key and signature, check both, and write the stamp."""
    if isinstance(payload, str):
        try:
            message = payload.encode("utf-8")
        except UnicodeEncodeError:  # the error the native calls give
            raise DecodeError(
                "payload is not valid Unicode text (it cannot be encoded as UTF-8)", "INVALID_TEXT"
            ) from None
    else:
        message = buffer_bytes(payload, "payload")
    try:
        scheme = signer.scheme
    except AttributeError:
        raise TypeError(f"{type(signer).__name__} has no scheme: not a StampSigner") from None
    except Exception as error:
        raise _signer_failed("scheme", error) from error
    if not isinstance(scheme, str) or scheme not in _SCHEMES:
        raise StampError(
            "the stamp signer's scheme is not a stamp scheme this library writes",
            "WALLET_SIGNATURE_SCHEME_UNSUPPORTED",
        )
    try:
        public_key = signer.public_key_hex()
    except Exception as error:
        raise _signer_failed("public_key_hex()", error) from error
    if not isinstance(public_key, str):
        raise _malformed(
            f"the stamp signer's public_key_hex() returned {type(public_key).__name__}"
        )
    try:
        signature = signer.sign(message)
    except Exception as error:
        raise _signer_failed("sign()", error) from error
    if not isinstance(signature, (bytes, bytearray, memoryview)):
        raise _malformed(
            f"the stamp signer's sign() returned {type(signature).__name__}, not bytes"
        )
    try:
        return _native.assemble_stamp(message, scheme, public_key, signature)
    except TypeError:  # a released memoryview
        raise _malformed(
            "the stamp signer's sign() returned a buffer that cannot be read"
        ) from None


def create_stamp(
    payload: Payload, key: KeyPair | Secp256k1KeyPair | Ed25519KeyPair | StampSigner
) -> str:
    """Sign ``payload`` (a ``str`` means its UTF-8 bytes) and return the stamp.

    Args:
        payload: the ``payloadToSign`` exactly as the server issued it.
        key: a :class:`KeyPair` (the P-256 session key), a :class:`Secp256k1KeyPair`, an
            :class:`Ed25519KeyPair`, or any :class:`StampSigner` (a key the library never sees).

    Raises:
        TypeError: ``key`` is none of these.
        StampError: for a StampSigner: ``WALLET_SIGNATURE_SCHEME_UNSUPPORTED`` (its scheme),
            ``WALLET_SIGNATURE_MALFORMED`` (a key or signature not of the scheme's form),
            ``WALLET_SIGNATURE_INVALID`` (the signature does not verify over the payload with
            that key) or ``STAMP_SIGNER_FAILED`` (the signer raised; the cause is chained).
            No stamp is returned unless it verifies.
    """
    if isinstance(key, (KeyPair, Secp256k1KeyPair, Ed25519KeyPair)):
        return _native.create_stamp(payload, key)
    # Not isinstance(key, StampSigner): that reads ``scheme``, and a signer's property may raise.
    if all(callable(getattr(type(key), name, None)) for name in ("public_key_hex", "sign")):
        return _signer_stamp(payload, key)
    raise TypeError(
        "key must be a KeyPair, Secp256k1KeyPair, Ed25519KeyPair or StampSigner, "
        f"not {type(key).__name__}"
    )


def verify_stamp(
    stamp: str | None,
    payload: Payload,
    *,
    expected_public_key: KeyLike | None = None,
    sandbox: bool | Environment | None = None,
    schemes: Iterable[str] = (STAMP_SCHEME_P256,),
) -> Stamp:
    """Verify a stamp over the exact payload bytes.

    Args:
        stamp: the header value (padded or unpadded base64url).
        payload: the ``payloadToSign`` exactly as the server issued it.
        expected_public_key: the key that must have signed: SEC1 compressed or not (P-256,
            secp256k1) or 32 bytes (Ed25519), hex or bytes.
        sandbox: also accept the literal ``sandbox-valid-signature`` (see ``ewc.policy``;
            None means the process default, PRODUCTION unless set).
        schemes: the stamp schemes accepted (formats.md section 15); P-256 only by default.

    Returns:
        The verified :class:`Stamp`.

    Raises:
        StampError: ``WALLET_SIGNATURE_MISSING``, ``WALLET_SIGNATURE_MALFORMED`` (base64url,
            JSON, scheme, key or signature form), ``WALLET_SIGNATURE_SCHEME_UNSUPPORTED`` (a
            well-formed stamp of a scheme outside ``schemes``), ``WALLET_SIGNATURE_INVALID``
            (wrong signature or payload) or ``WALLET_SIGNATURE_KEY_MISMATCH`` (valid, but not
            the expected key).
        InvalidKey: ``expected_public_key`` itself is malformed (not a key of any scheme in
            ``schemes``).
        WalletCryptoError: ``UNSUPPORTED_ALGORITHM``: ``schemes`` names an unknown scheme.
    """
    if sandbox_allowed(sandbox) and stamp == SANDBOX_STAMP:  # a bad sandbox fails every call
        return Stamp(public_key="", scheme="SANDBOX", signature=b"")
    text = "" if stamp is None or (isinstance(stamp, (str, bytes)) and not stamp) else stamp
    public_key, scheme, signature = _native.verify_stamp(
        text, payload, expected_public_key, schemes
    )
    return Stamp(public_key=public_key, scheme=scheme, signature=signature)


def verify_stamps(
    stamps: Sequence[str],
    payloads: Sequence[Payload],
    expected_public_keys: Iterable[KeyLike | None] | None = None,
    *,
    schemes: Iterable[str] = (STAMP_SCHEME_P256,),
) -> list[bool]:
    """Verify many stamps at once on every core, without the GIL.

    Returns one verdict per stamp: True exactly where :func:`verify_stamp` would succeed with
    the same ``schemes`` (P-256 only by default; any mix of the three schemes when allowed).

    Raises:
        DecodeError: the sequences differ in length.
        InvalidKey: an expected public key is malformed.
        WalletCryptoError: ``UNSUPPORTED_ALGORITHM``: ``schemes`` names an unknown scheme.
    """
    for name, value in (("stamps", stamps), ("payloads", payloads), ("keys", expected_public_keys)):
        if isinstance(value, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"{name} must be a sequence, not {type(value).__name__}")
    if sandbox_allowed(None):  # read an iterable once: the verdicts and the sandbox check share it
        stamps = stamps if isinstance(stamps, (list, tuple)) else list(stamps)
    verdicts = _native.verify_stamps(stamps, payloads, expected_public_keys, schemes)
    if sandbox_allowed(None):  # the process default is SANDBOX: as verify_stamp would decide
        verdicts = [
            ok or stamp == SANDBOX_STAMP for ok, stamp in zip(verdicts, stamps, strict=True)
        ]
    return verdicts


def _payload_malformed(reason: str) -> StampError:
    return StampError(reason, "PAYLOAD_MALFORMED", 400)


def check_payload_binding(payload_to_sign: Payload, client_public_key: KeyLike) -> None:
    """Client-side key-swap check before stamping an export or refresh payload.

    The payload's ``parameters.targetPublicKey`` must be the key this client sent (formats.md
    section 5); otherwise a server could have the client authorize an export to another key.

    Raises:
        InvalidKey: ``client_public_key`` itself is malformed (checked first).
        StampError: code ``PAYLOAD_MALFORMED`` when the payload is not the expected JSON, or
            ``PAYLOAD_KEY_MISMATCH`` when the target key is absent, malformed or another key.
    """
    parse_public_key(client_public_key)  # the caller's own key: InvalidKey before other work
    raw = (
        payload_to_sign
        if isinstance(payload_to_sign, str)
        else buffer_bytes(payload_to_sign, "payload_to_sign")
    )
    body = strict_json.json_object(raw, what="payloadToSign", error=_payload_malformed)
    parameters = body.get("parameters")
    if not isinstance(parameters, dict):
        raise StampError("payloadToSign has no parameters object", "PAYLOAD_MALFORMED", 400)
    target = parameters.get("targetPublicKey")
    if not isinstance(target, str):
        raise StampError(
            "payloadToSign does not bind a targetPublicKey", "PAYLOAD_KEY_MISMATCH", 400
        )
    if not same_public_key(target, client_public_key):
        raise StampError(
            "payloadToSign's targetPublicKey is not the clientPublicKey this client sent",
            "PAYLOAD_KEY_MISMATCH",
            400,
        )
