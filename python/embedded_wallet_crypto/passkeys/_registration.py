"""``verify_registration``: the registration ceremony (WebAuthn Level 3, section 7.1).

The checks that decide who may register (type, challenge, origin, rpIdHash, UP, UV, credential
id, algorithm) run here, each with its own code. The attestation statement, in every format
py_webauthn 3.0.1 knows (none, packed, fido-u2f, tpm, apple, android-key, android-safetynet),
with its certificate chain, is py_webauthn's ``verify_registration_response``; its errors become
``PasskeyError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webauthn import verify_registration_response
from webauthn.helpers import decode_credential_public_key, decoded_public_key_to_cryptography
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.exceptions import (
    InvalidAttestationObjectStructure,
    InvalidAuthenticatorDataStructure,
    InvalidCBORData,
)
from webauthn.helpers.structs import (
    AttestationFormat,
    AuthenticatorAttestationResponse,
    RegistrationCredential,
)
from webauthn.registration.verify_registration_response import VerifiedRegistration

from .._contract import buffer_bytes
from ..errors import InvalidKey
from ..keys import parse_public_key
from ._checks import (
    allowed_origins,
    check_client_data,
    check_rp_and_user,
    parse_authenticator_data,
)
from ._codec import b64url_encode, cbor_map
from ._cose import es256_point
from ._errors import (
    ALGORITHM_UNSUPPORTED,
    ATTESTATION_INVALID,
    ATTESTATION_MALFORMED,
    AUTHENTICATOR_DATA_MALFORMED,
    CONFIG_INVALID,
    CREDENTIAL_ID_MISMATCH,
    FORMAT_UNSUPPORTED,
    PUBLIC_KEY_INVALID,
    fail,
)
from ._forms import read_attestation

__all__ = ["SUPPORTED_ALGORITHMS", "RegisteredPasskey", "verify_registration"]

#: Every COSE algorithm py_webauthn can verify (ES256, EdDSA, ES512, PS256/384/512,
#: RS256/384/512, RS1, ML-DSA-44/65/87). ES384 (-35) is not among them in py_webauthn 3.0.1.
SUPPORTED_ALGORITHMS: tuple[int, ...] = tuple(int(alg) for alg in COSEAlgorithmIdentifier)
_FORMATS = frozenset(fmt.value for fmt in AttestationFormat)
_MALFORMED_CAUSES = (
    InvalidAttestationObjectStructure,
    InvalidAuthenticatorDataStructure,
    InvalidCBORData,
)


@dataclass(frozen=True)
class RegisteredPasskey:
    """A verified registration: what the server stores for later assertions.

    ``public_key`` is the credential's COSE key (pass it to ``verify_assertion``),
    ``sign_count`` its initial counter, ``aaguid`` the authenticator model (UUID text).
    """

    credential_id: bytes
    public_key: bytes
    sign_count: int
    fmt: str
    aaguid: str
    transports: tuple[str, ...]
    user_verified: bool
    backed_up: bool


def _attestation_object(raw: bytes) -> tuple[str, bytes]:
    """``fmt`` and ``authData`` of the attestation object (a CBOR map, section 6.5)."""
    obj = cbor_map(raw, "attestationObject", ATTESTATION_MALFORMED)
    fmt, att_stmt, auth_data = obj.get("fmt"), obj.get("attStmt"), obj.get("authData")
    if not isinstance(fmt, str) or not isinstance(auth_data, bytes):
        raise fail(ATTESTATION_MALFORMED, "attestationObject needs a text fmt and bytes authData")
    if att_stmt is not None and not isinstance(att_stmt, dict):
        raise fail(ATTESTATION_MALFORMED, "attestationObject attStmt is not a map")
    return fmt, auth_data


def _check_public_key(cose_key: bytes, supported: Iterable[int]) -> None:
    """The credential key is a COSE key of an allowed algorithm that loads as a valid key."""
    key = cbor_map(cose_key, "credentialPublicKey", AUTHENTICATOR_DATA_MALFORMED)
    algorithm = key.get(3)
    if not isinstance(algorithm, int) or algorithm not in set(supported):
        raise fail(ALGORITHM_UNSUPPORTED, f"credential algorithm {algorithm!r} is not supported")
    point = es256_point(cose_key)
    if point is not None:  # the fast path's key: the core validates it now, not at first login
        try:
            parse_public_key(point)
        except InvalidKey:
            raise fail(
                PUBLIC_KEY_INVALID, "the credential public key is not a P-256 point"
            ) from None
        return
    try:  # any other algorithm: load it the way py_webauthn will verify with it
        decoded_public_key_to_cryptography(decode_credential_public_key(cose_key))
    except Exception:  # py_webauthn raises KeyError, ValueError and its own types here
        raise fail(PUBLIC_KEY_INVALID, "the credential public key is not a valid key") from None


def _by_py_webauthn(**options: Any) -> VerifiedRegistration:
    """py_webauthn's ``verify_registration_response``, its errors as PasskeyError."""
    try:
        return verify_registration_response(**options)
    except Exception as error:  # py_webauthn raises its own, cryptography's and builtins
        if isinstance(error.__cause__, _MALFORMED_CAUSES):
            raise fail(ATTESTATION_MALFORMED, "attestationObject is malformed") from None
        raise fail(ATTESTATION_INVALID, f"attestation statement rejected: {error}") from None


def verify_registration(
    attestation: object,
    *,
    expected_challenge: bytes,
    rp_id: str,
    origin: str | Sequence[str],
    require_user_verification: bool = True,
    require_user_presence: bool = True,
    supported_algorithms: Iterable[int] = SUPPORTED_ALGORITHMS,
    pem_root_certs_by_fmt: Mapping[str, list[bytes]] | None = None,
) -> RegisteredPasskey:
    """Verify a new credential's attestation (``navigator.credentials.create()``).

    Args:
        attestation: the interface's ``{credentialId, clientDataJson, attestationObject,
            transports}`` or the standard WebAuthn JSON, as a dict or JSON text.
        expected_challenge: the raw registration challenge bytes the platform issued.
        rp_id: the relying party ID (a domain); the rpIdHash must be its SHA-256.
        origin: the allowed origin, or a list of them.
        require_user_verification: demand the UV flag (default True).
        require_user_presence: demand the UP flag (default True).
        supported_algorithms: the COSE algorithms accepted (default: all py_webauthn knows).
        pem_root_certs_by_fmt: extra trust anchors (PEM) per attestation format, added to
            py_webauthn's own (Apple, Google, GlobalSign). Certificates are checked at the
            current time (recorded samples: ``ewc.testing.webauthn_time``, tests only).

    Returns:
        The :class:`RegisteredPasskey` to store.

    Raises:
        PasskeyError: with a ``PASSKEY_*`` code naming the failed check (see ``CODES``).
    """
    if not isinstance(expected_challenge, (bytes, bytearray, memoryview)):
        raise TypeError("expected_challenge must be the raw challenge bytes")
    challenge = buffer_bytes(expected_challenge, "expected_challenge")
    origins = allowed_origins(origin)
    if isinstance(supported_algorithms, (str, bytes, bytearray, memoryview)):
        raise TypeError("supported_algorithms must be a sequence of COSE algorithm ids (int)")
    supported = [_cose_algorithm(alg) for alg in supported_algorithms]
    roots = _roots(pem_root_certs_by_fmt)
    given = read_attestation(attestation)
    check_client_data(
        given.client_data_json,
        expected_type="webauthn.create",
        expected_challenge=challenge,
        origin=origins,
    )
    fmt, raw_auth_data = _attestation_object(given.attestation_object)
    auth_data = parse_authenticator_data(raw_auth_data)
    check_rp_and_user(
        auth_data,
        rp_id=rp_id,
        require_user_presence=require_user_presence,
        require_user_verification=require_user_verification,
    )
    if not auth_data.has_attested_credential:
        raise fail(AUTHENTICATOR_DATA_MALFORMED, "authenticatorData has no attested credential")
    if auth_data.credential_id != given.credential_id:
        raise fail(CREDENTIAL_ID_MISMATCH, "credentialId is not the attested credential's id")
    _check_public_key(auth_data.credential_public_key, supported)
    if fmt not in _FORMATS:
        raise fail(FORMAT_UNSUPPORTED, f"attestation format {fmt[:32]!r} is not supported")
    credential = RegistrationCredential(
        id=b64url_encode(given.credential_id),
        raw_id=given.credential_id,
        response=AuthenticatorAttestationResponse(
            client_data_json=given.client_data_json,
            attestation_object=given.attestation_object,
        ),
    )
    result = _by_py_webauthn(
        credential=credential,
        expected_challenge=challenge,
        expected_rp_id=rp_id,
        expected_origin=origins,
        require_user_presence=require_user_presence,
        require_user_verification=require_user_verification,
        supported_pub_key_algs=[COSEAlgorithmIdentifier(alg) for alg in supported],
        pem_root_certs_bytes_by_fmt=roots,
    )
    return RegisteredPasskey(
        credential_id=given.credential_id,
        public_key=result.credential_public_key,
        sign_count=result.sign_count,
        fmt=AttestationFormat(result.fmt).value,
        aaguid=result.aaguid,
        transports=given.transports,
        user_verified=result.user_verified,
        backed_up=result.credential_backed_up,
    )


def _cose_algorithm(alg: object) -> int:
    """A configured COSE algorithm id: an int that py_webauthn knows."""
    if isinstance(alg, bool) or not isinstance(alg, int):
        raise TypeError(f"a COSE algorithm id is an int, not {type(alg).__name__}")
    try:
        return int(COSEAlgorithmIdentifier(alg))
    except ValueError:
        raise fail(
            CONFIG_INVALID,
            "supported_algorithms holds a COSE algorithm id py_webauthn does not know",
        ) from None


def _roots(pem_root_certs_by_fmt: object) -> dict[AttestationFormat, list[bytes]]:
    """The extra trust anchors: a mapping from an attestation format name to PEM bytes."""
    if pem_root_certs_by_fmt is None:
        return {}
    if not isinstance(pem_root_certs_by_fmt, Mapping):
        raise TypeError("pem_root_certs_by_fmt must be a mapping from format to PEM certificates")
    roots: dict[AttestationFormat, list[bytes]] = {}
    for fmt, pems in pem_root_certs_by_fmt.items():
        try:
            name = AttestationFormat(fmt)
        except ValueError:
            raise fail(CONFIG_INVALID, "pem_root_certs_by_fmt names an unknown format") from None
        if isinstance(pems, (str, bytes, bytearray, memoryview)) or not isinstance(pems, Iterable):
            raise TypeError("pem_root_certs_by_fmt values must be lists of PEM certificates")
        roots[name] = [buffer_bytes(pem, "a PEM certificate") for pem in pems]
    return roots
