"""The signature step of an ID token: PyJWT's compact JWS with a fixed set of algorithms.

PyJWT does the JWS work (segments, header rules such as ``crit``, base64url, the signing input);
this module decides which algorithms exist at all and builds verification keys from JWKs. Our
:class:`~jwt.PyJWS` instance never registers ``none`` or an HMAC algorithm, so no header and no
key can select them. ES256, the one P-256 algorithm, is registered with the project's core as
its primitive (``verify_signature_p1363``, with the core's key cache); the others use PyJWT's
own ``cryptography``-backed algorithms.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import Algorithm, get_default_algorithms

from .. import _native
from ..errors import OidcError, WalletCryptoError
from ._common import (
    ALGORITHM_NOT_ALLOWED,
    MALFORMED,
    SIGNATURE_INVALID,
    b64url_decode,
    config_error,
    fail,
)

__all__ = [
    "DEFAULT_ALGORITHMS",
    "SUPPORTED_ALGORITHMS",
    "build_key",
    "check_algorithms",
    "key_fits",
    "verify_jws",
]

#: RS256 and ES256 (formats.md section 7); others only by explicit configuration.
DEFAULT_ALGORITHMS: tuple[str, ...] = ("RS256", "ES256")
#: Every algorithm that may be configured: asymmetric signatures only.
SUPPORTED_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
# RSA keys outside these sizes are ignored: too weak, or too slow to verify (a DoS lever).
_RSA_MIN_BITS, _RSA_MAX_BITS = 2048, 8192
# (kty, crv) a JWK must have for each algorithm; crv None means any (RSA has none).
_KEY_TYPES: dict[str, tuple[str, frozenset[str | None]]] = {
    **{a: ("RSA", frozenset({None})) for a in ("RS256", "RS384", "RS512")},
    **{a: ("RSA", frozenset({None})) for a in ("PS256", "PS384", "PS512")},
    "ES256": ("EC", frozenset({"P-256"})),
    "ES384": ("EC", frozenset({"P-384"})),
    "ES512": ("EC", frozenset({"P-521"})),
    "EdDSA": ("OKP", frozenset({"Ed25519", "Ed448"})),
}


def check_algorithms(algorithms: Iterable[str]) -> frozenset[str]:
    """Validate a configured algorithm list. ``none`` and HMAC are never allowed.

    Raises:
        TypeError: a single string was given instead of a sequence of names.
        OidcError: ``OIDC_CONFIG_INVALID`` (also a ValueError) for an algorithm refused (none,
            HMAC) or unknown.
    """
    if isinstance(algorithms, (str, bytes)):
        raise TypeError('algorithms must be a sequence of names, e.g. ("RS256", "ES256")')
    chosen = frozenset(algorithms)
    refused = sorted(a for a in chosen if a.lower() == "none" or a.upper().startswith("HS"))
    if refused:
        raise config_error(
            f"{', '.join(refused)!r}: none and HMAC algorithms are always refused"[:300]
        )
    unknown = sorted(chosen - SUPPORTED_ALGORITHMS)
    if unknown or not chosen:
        raise config_error(
            f"unsupported algorithms {unknown}; choose among {sorted(SUPPORTED_ALGORITHMS)}"
        )
    return chosen


class _CoreEs256(Algorithm):
    """ES256 verification in the core: raw r||s (RFC 7518 section 3.4) over the signing input.
    The key is the 65-byte SEC1 point, already validated when the JWK was read."""

    def prepare_key(self, key: Any) -> bytes:
        if not isinstance(key, bytes) or len(key) != 65:
            raise TypeError("ES256 keys here are 65-byte SEC1 points")
        return key

    def verify(self, msg: bytes, key: bytes, sig: bytes) -> bool:
        if len(sig) != 64:
            return False
        try:
            return _native.verify_signature_p1363(key, msg, sig)
        except WalletCryptoError:
            return False

    def sign(self, msg: bytes, key: Any) -> bytes:
        raise NotImplementedError("verification only")

    @staticmethod
    def to_jwk(key_obj: Any, as_dict: bool = False) -> Any:
        raise NotImplementedError("verification only")

    @staticmethod
    def from_jwk(jwk: Any) -> Any:
        raise NotImplementedError("keys come from build_key")


class _StrictJWS(jwt.PyJWS):
    """PyJWT's JWS with one part swapped: segments are decoded by ``_common.b64url_decode``
    (unpadded canonical base64url, which ``parse_token`` has already required), instead of
    PyJWT 2.15's per-character alphabet scan, which took about 40% of a whole verification.
    Header rules, ``crit``, ``b64``, the signing input and the algorithms stay PyJWT's; should
    a later PyJWT stop calling this hook, its own (laxer) decoder runs after ours, no less safe.
    """

    @staticmethod
    def _decode_base64url_segment(segment: bytes, name: str) -> bytes:
        try:
            return b64url_decode(segment.decode("ascii"), name)
        except (OidcError, UnicodeDecodeError):
            raise jwt.DecodeError(f"Invalid {name} encoding") from None


_JWS = _StrictJWS(algorithms=sorted(SUPPORTED_ALGORITHMS - {"ES256"}))
_JWS.register_algorithm("ES256", _CoreEs256())
_PYJWT_ALGORITHMS = get_default_algorithms()


def key_fits(alg: str, kty: object, crv: object) -> bool:
    expected = _KEY_TYPES.get(alg)
    return expected is not None and kty == expected[0] and crv in expected[1]


@functools.lru_cache(maxsize=512)
def build_key(alg: str, members: tuple[tuple[str, str], ...]) -> Any:
    """The verification key for ``alg`` from a JWK's public members, or None when unusable
    (bad encoding, off-curve point, RSA size out of range). Cached: a JWKS given as a dict on
    every call costs one parse per distinct key, not one per call."""
    jwk = dict(members)
    try:
        if alg == "ES256":
            x = b64url_decode(jwk["x"], "JWK x")
            y = b64url_decode(jwk["y"], "JWK y")
            if len(x) != 32 or len(y) != 32:
                return None
            point = b"\x04" + x + y
            _native.parse_public_key(point)  # on the curve, coordinates < p
            return point
        key = _PYJWT_ALGORITHMS[alg].from_jwk(jwk)
    except (WalletCryptoError, jwt.PyJWTError, KeyError, ValueError, TypeError):
        return None
    if isinstance(key, rsa.RSAPublicKey) and not _RSA_MIN_BITS <= key.key_size <= _RSA_MAX_BITS:
        return None
    return key


def verify_jws(token: str, alg: str, keys: Sequence[Any]) -> bytes:
    """Verify a compact JWS whose header says ``alg`` with one of ``keys``; return the payload.

    Several keys only when a key set repeats a ``kid``; the first that verifies wins.

    Raises:
        OidcError: ``OIDC_SIGNATURE_INVALID``, ``OIDC_ALGORITHM_NOT_ALLOWED`` or
            ``OIDC_TOKEN_MALFORMED`` (what PyJWT refuses before the signature).
    """
    for key in keys:
        try:
            decoded = _JWS.decode_complete(token, key, algorithms=[alg])
        except jwt.InvalidSignatureError:
            continue
        except jwt.InvalidAlgorithmError as error:
            fail(ALGORITHM_NOT_ALLOWED, f"the token's algorithm is refused: {error}")
        except jwt.PyJWTError as error:
            fail(MALFORMED, f"the token is not a valid JWS: {error}")
        payload: bytes = decoded["payload"]
        return payload
    fail(SIGNATURE_INVALID, f"the {alg} signature does not verify with the issuer's key")
