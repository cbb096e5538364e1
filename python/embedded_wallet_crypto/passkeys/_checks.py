"""The checks both ceremonies share (WebAuthn Level 3, sections 7.1 and 7.2).

clientDataJSON: its ``type``, ``challenge``, ``origin`` and ``tokenBinding``. Authenticator data:
its layout (``rpIdHash || flags || signCount || [attested credential data] || [extensions]``,
nothing after), the rpIdHash and the UP and UV flags.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .._contract import utf8
from ..errors import PasskeyError
from ._codec import b64url_decode, cbor_decode_prefix, json_object
from ._errors import (
    AUTHENTICATOR_DATA_MALFORMED,
    CHALLENGE_MISMATCH,
    CLIENT_DATA_MALFORMED,
    CONFIG_INVALID,
    ORIGIN_MISMATCH,
    RP_ID_MISMATCH,
    TOKEN_BINDING_INVALID,
    TYPE_MISMATCH,
    USER_NOT_PRESENT,
    USER_NOT_VERIFIED,
    fail,
)

__all__ = [
    "AuthenticatorData",
    "allowed_origins",
    "check_client_data",
    "check_rp_and_user",
    "flag",
    "parse_authenticator_data",
]

FLAG_UP, FLAG_UV, FLAG_BE, FLAG_BS, FLAG_AT, FLAG_ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80
_HEADER = 37  # rpIdHash (32) || flags (1) || signCount (4)
_TOKEN_BINDING_ACCEPTED = ("present", "supported")
# Some authenticators write an Ed25519 COSE key as a map of 3 items holding 4 (py_webauthn's
# parse_authenticator_data repairs the same bytes; registration must accept what it accepts).
_BAD_EDDSA_KEY = bytes.fromhex("a301634f4b500327206745643235353139")


def check_client_data(
    client_data_json: bytes,
    *,
    expected_type: str,
    expected_challenge: bytes,
    origin: str | Sequence[str],
) -> None:
    """The collected client data: the ceremony's type, our challenge, an allowed origin."""
    client_data = json_object(client_data_json, "clientDataJSON", CLIENT_DATA_MALFORMED)
    for name in ("type", "challenge", "origin"):
        if not isinstance(client_data.get(name), str):
            raise fail(CLIENT_DATA_MALFORMED, f'clientDataJSON has no string "{name}"')
    if client_data["type"] != expected_type:
        raise fail(TYPE_MISMATCH, f'clientDataJSON type is not "{expected_type}"')
    challenge = b64url_decode(
        client_data["challenge"], "clientDataJSON challenge", CLIENT_DATA_MALFORMED
    )
    if not hmac.compare_digest(challenge, expected_challenge):
        raise fail(CHALLENGE_MISMATCH, "clientDataJSON challenge is not the expected challenge")
    if client_data["origin"] not in allowed_origins(origin):
        raise fail(ORIGIN_MISMATCH, "clientDataJSON origin is not an expected origin")
    token_binding = client_data.get("tokenBinding")
    if isinstance(token_binding, dict):  # some U2F clients send a string here: ignored
        if "status" not in token_binding:
            raise fail(CLIENT_DATA_MALFORMED, "clientDataJSON tokenBinding has no status")
        if token_binding["status"] not in _TOKEN_BINDING_ACCEPTED:
            raise fail(TOKEN_BINDING_INVALID, "clientDataJSON tokenBinding status is not accepted")


class AuthenticatorData(NamedTuple):
    rp_id_hash: bytes
    flags: int
    sign_count: int
    aaguid: bytes = b""
    credential_id: bytes = b""
    credential_public_key: bytes = b""  # COSE, exactly as the authenticator encoded it

    @property
    def user_present(self) -> bool:
        return bool(self.flags & FLAG_UP)

    @property
    def user_verified(self) -> bool:
        return bool(self.flags & FLAG_UV)

    @property
    def has_attested_credential(self) -> bool:
        return bool(self.flags & FLAG_AT)


def _malformed(reason: str) -> Exception:
    return fail(AUTHENTICATOR_DATA_MALFORMED, f"authenticatorData {reason}")


def parse_authenticator_data(raw: bytes) -> AuthenticatorData:
    """Parse the whole structure; truncation or trailing bytes are malformed."""
    if len(raw) < _HEADER:
        raise _malformed(f"is {len(raw)} bytes, shorter than {_HEADER}")
    flags, offset = raw[32], _HEADER
    aaguid = credential_id = public_key = b""
    if flags & FLAG_AT:
        if len(raw) < offset + 18:
            raise _malformed("is truncated in the attested credential data")
        aaguid = raw[offset : offset + 16]
        length = int.from_bytes(raw[offset + 16 : offset + 18], "big")
        offset += 18
        credential_id = raw[offset : offset + length]
        if len(credential_id) != length or length == 0:
            raise _malformed("has a truncated or empty credential id")
        offset += length
        if raw.startswith(_BAD_EDDSA_KEY, offset):
            raw = raw[:offset] + b"\xa4" + raw[offset + 1 :]
        key, end = cbor_decode_prefix(
            raw, offset, "credentialPublicKey", AUTHENTICATOR_DATA_MALFORMED
        )
        if not isinstance(key, dict):
            raise _malformed("has a credential public key that is not a COSE map")
        public_key, offset = raw[offset:end], end
    if flags & FLAG_ED:
        extensions, offset = cbor_decode_prefix(
            raw, offset, "authenticatorData extensions", AUTHENTICATOR_DATA_MALFORMED
        )
        if not isinstance(extensions, dict):
            raise _malformed("has extensions that are not a CBOR map")
    if offset != len(raw):
        raise _malformed(f"has {len(raw) - offset} bytes after its last field")
    return AuthenticatorData(
        rp_id_hash=raw[:32],
        flags=flags,
        sign_count=int.from_bytes(raw[33:37], "big"),
        aaguid=aaguid,
        credential_id=credential_id,
        credential_public_key=public_key,
    )


def _rp_id_hash(rp_id: str) -> bytes:
    if not isinstance(rp_id, str):
        raise TypeError(f"rp_id must be str, not {type(rp_id).__name__}")
    return _str_rp_id_hash(rp_id)


@functools.lru_cache(maxsize=256)
def _str_rp_id_hash(rp_id: str) -> bytes:
    return hashlib.sha256(utf8(rp_id, "rp_id", _rp_id_invalid)).digest()


def _rp_id_invalid(reason: str) -> PasskeyError:
    return fail(CONFIG_INVALID, reason)  # the server's own rp_id: status 500


def check_rp_and_user(
    auth_data: AuthenticatorData,
    *,
    rp_id: str,
    require_user_presence: bool = True,
    require_user_verification: bool,
) -> None:
    """The rpIdHash is SHA-256 of our RP ID; UP (and UV when required) are set."""
    if not hmac.compare_digest(auth_data.rp_id_hash, _rp_id_hash(rp_id)):
        raise fail(RP_ID_MISMATCH, "authenticatorData rpIdHash is not SHA-256 of the RP ID")
    if flag(require_user_presence, "require_user_presence") and not auth_data.user_present:
        raise fail(USER_NOT_PRESENT, "the authenticator did not report user presence (UP)")
    if flag(require_user_verification, "require_user_verification") and not auth_data.user_verified:
        raise fail(USER_NOT_VERIFIED, "user verification (UV) is required but was not performed")


def allowed_origins(origin: object) -> list[str]:
    """The configured origin(s) as a list of str.

    Raises:
        TypeError: neither a str nor an iterable of str (bytes and memoryviews included).
    """
    if isinstance(origin, str):
        return [origin]
    if isinstance(origin, (bytes, bytearray, memoryview)) or not isinstance(origin, Iterable):
        raise TypeError(f"origin must be a str or a sequence of str, not {type(origin).__name__}")
    origins = list(origin)
    if not all(isinstance(item, str) for item in origins):
        raise TypeError("origin must be a str or a sequence of str")
    return origins


def flag(value: object, name: str) -> bool:
    """A bool setting (an int is taken as one); never ``bool()`` of another object."""
    if not isinstance(value, int):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    return bool(value)
