"""Checking a TOTP code (RFC 6238) and accepting it once.

The codes come from ``cryptography``'s ``TOTP`` (RFC 6238 on its RFC 4226 HOTP); this module
adds the time-step window, the caller's clock and the single use: a code is accepted only when
the factor's store moves the factor's last accepted time step forward to the code's step
(:meth:`FactorStore.claim_step`, atomic on every backend). So a code is accepted at most once,
and once a code of some step was accepted, no code of that step or of an earlier one is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import constant_time, hashes
from cryptography.hazmat.primitives.twofactor.totp import TOTP

from .._contract import utf8
from ..errors import TotpError
from ..policy import Environment, sandbox_allowed
from ..stores import FactorStore, MemoryStore
from ._secret import (
    Algorithm,
    TotpSecret,
    check_settings,
    checked_label,
    config_invalid,
    provisioning_uri,
)

__all__ = ["MAX_TIME", "MAX_WINDOW", "SANDBOX_TOTP_CODE", "Totp", "TotpEnrollment", "VerifiedTotp"]

#: The interface's sandbox code, accepted only where ``policy.sandbox_allowed``.
SANDBOX_TOTP_CODE = "123456"
#: The last second of year 9999: the latest ``now`` accepted.
MAX_TIME = 253_402_300_799
#: The widest window: up to this many time steps before and after the current one.
MAX_WINDOW = 10


def _hash(algorithm: Algorithm) -> hashes.SHA1 | hashes.SHA256 | hashes.SHA512:
    if algorithm == "SHA256":
        return hashes.SHA256()
    if algorithm == "SHA512":
        return hashes.SHA512()
    # RFC 6238's default, the one every authenticator app supports; HMAC-SHA1 is not broken.
    return hashes.SHA1()  # noqa: S303


_MAX_FACTOR_ID = 200


def _invalid() -> TotpError:
    return TotpError("Invalid TOTP code", "TOTP_INVALID", 401)


def _factor_invalid(reason: str) -> TotpError:
    return TotpError(reason, "TOTP_FACTOR_INVALID", 400)


def checked_factor(factor_id: object) -> str:
    """A factor id: 1 to 200 characters of Unicode text (else ``TOTP_FACTOR_INVALID``, 400)."""
    if not isinstance(factor_id, str) or not 0 < len(factor_id) <= _MAX_FACTOR_ID:
        raise _factor_invalid(f"factor_id must be a string of 1 to {_MAX_FACTOR_ID} characters")
    utf8(factor_id, "factor_id", _factor_invalid)  # a lone surrogate: before any store sees it
    return factor_id


def checked_time(now: object) -> float:
    """A caller's clock reading in seconds since the epoch, 0 to :data:`MAX_TIME`."""
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise TypeError(f"now must be a number of seconds, not {type(now).__name__}")
    if not 0 <= now <= MAX_TIME:  # NaN fails too; a huge int never becomes a float
        raise TotpError(f"now must be from 0 to {MAX_TIME} seconds", "TOTP_TIME_INVALID", 500)
    return float(now) if isinstance(now, float) else now


@dataclass(frozen=True)
class VerifiedTotp:
    """An accepted code: the factor, the time step the code belongs to (None for the sandbox
    code, which is not single use) and whether it was the sandbox code."""

    factor_id: str
    step: int | None
    sandbox: bool


@dataclass(frozen=True)
class TotpEnrollment:
    """What a TOTP enrollment start hands the user: the new secret and its provisioning URI
    (which holds the secret, so it is kept out of ``repr`` too)."""

    secret: TotpSecret
    uri: str = field(repr=False)

    def to_response(self) -> dict[str, str]:
        """The interface's ``TotpEnrollmentStart`` body: ``secret`` is the raw secret as hex,
        ``secretBase32Encoded`` its base32 (for typing into an app), ``totpUri`` the URI."""
        return {
            "type": "TOTP",
            "secret": self.secret.hex,
            "secretBase32Encoded": self.secret.base32,
            "totpUri": self.uri,
        }


class Totp:
    """TOTP codes of one issuer: enrollment material, and verification that accepts each code
    once.

    Args:
        store: where each factor's last accepted time step lives (default: a new
            :class:`MemoryStore`); any store of ``ewc.stores``.
        issuer: the name an authenticator app shows (no colon).
        algorithm: ``"SHA1"`` (the default, the one every authenticator app supports),
            ``"SHA256"`` or ``"SHA512"``.
        digits: 6 (the default) to 8.
        period: the time step in seconds (30 by default).
        window: how many steps before and after the current one are accepted too (1 by
            default, RFC 6238 section 5.2's one step of network delay and clock drift; 0 to 10).
        sandbox: accept :data:`SANDBOX_TOTP_CODE` (see ``ewc.policy``; None means the process
            default).

    Raises:
        TypeError: a wrong type.
        TotpError: ``TOTP_CONFIG_INVALID`` (500) for a setting out of range,
            ``TOTP_LABEL_INVALID`` (400) for an invalid issuer.
    """

    def __init__(
        self,
        store: FactorStore | None = None,
        *,
        issuer: str,
        algorithm: Algorithm = "SHA1",
        digits: int = 6,
        period: int = 30,
        window: int = 1,
        sandbox: bool | Environment | None = None,
    ) -> None:
        check_settings(algorithm, digits, period)
        if isinstance(window, bool) or not isinstance(window, int):
            raise TypeError(f"window must be an int, not {type(window).__name__}")
        if not 0 <= window <= MAX_WINDOW:
            raise config_invalid(f"window must be from 0 to {MAX_WINDOW} steps")
        sandbox_allowed(sandbox)  # a TypeError now rather than at the first code
        self.store: FactorStore = store if store is not None else MemoryStore()
        self.issuer = checked_label(issuer, "issuer")
        self.algorithm: Algorithm = algorithm
        self.digits = digits
        self.period = period
        self.window = window
        self.sandbox = sandbox

    def new_secret(self) -> TotpSecret:
        """A fresh secret sized for :attr:`algorithm` (20, 32 or 64 random bytes)."""
        return TotpSecret.generate(self.algorithm)

    def provisioning_uri(self, secret: TotpSecret, account_name: str) -> str:
        """The ``otpauth://totp/ISSUER:ACCOUNT?...`` URI of ``secret`` with these settings."""
        return provisioning_uri(
            secret,
            account_name=account_name,
            issuer=self.issuer,
            algorithm=self.algorithm,
            digits=self.digits,
            period=self.period,
        )

    def enroll(self, account_name: str) -> TotpEnrollment:
        """A new secret and its URI, for an enrollment start. Nothing is stored: the caller
        keeps the secret until the first code confirms it (:meth:`verify`)."""
        secret = self.new_secret()
        return TotpEnrollment(secret, self.provisioning_uri(secret, account_name))

    def _generator(self, secret: TotpSecret) -> TOTP:
        if not isinstance(secret, TotpSecret):
            raise TypeError(f"secret must be a TotpSecret, not {type(secret).__name__}")
        return TOTP(secret.key, self.digits, _hash(self.algorithm), self.period)

    def code_at(self, secret: TotpSecret, now: float) -> str:
        """The code an authenticator app shows at ``now`` (seconds since the epoch)."""
        step = int(checked_time(now) // self.period)
        return self._generator(secret).generate(step * self.period).decode("ascii")

    def verify(
        self, factor_id: str, secret: TotpSecret, code: str, *, now: float | None = None
    ) -> VerifiedTotp:
        """Accept ``code`` for the factor once, if it is the code of a time step within
        :attr:`window` steps of ``now`` that is later than the factor's last accepted step.

        Every step of the window is computed and compared in constant time; the matching steps
        are then claimed in the store, earliest first, and the first claim that moves the
        factor's last step forward accepts the code.

        Args:
            factor_id: the enrolled factor (1 to 200 characters), the store's key.
            secret: the factor's secret.
            code: the code the user typed.
            now: the time in seconds since the epoch (``time.time()`` when None): a test
                clock can drive it.

        Raises:
            TotpError: ``TOTP_INVALID`` (401, reason "Invalid TOTP code"): not the code of any
                step in the window, or not ``digits`` ASCII digits; ``TOTP_REPLAYED`` (401):
                the right code, but its step (or a later one) was already accepted for this
                factor; ``TOTP_FACTOR_INVALID`` (400); ``TOTP_TIME_INVALID`` (500) for a
                clock reading out of range; ``STORE_UNAVAILABLE`` (503).
        """
        factor_id = checked_factor(factor_id)
        generator = self._generator(secret)
        moment = time.time() if now is None else checked_time(now)
        if sandbox_allowed(self.sandbox) and code == SANDBOX_TOTP_CODE:
            return VerifiedTotp(factor_id=factor_id, step=None, sandbox=True)
        if not (
            isinstance(code, str) and len(code) == self.digits and code.isascii() and code.isdigit()
        ):
            raise _invalid()
        expected = code.encode("ascii")
        current = int(moment // self.period)
        steps = range(max(0, current - self.window), current + self.window + 1)
        compared = [
            (step, constant_time.bytes_eq(generator.generate(step * self.period), expected))
            for step in steps
        ]
        matching = [step for step, equal in compared if equal]
        if not matching:
            raise _invalid()
        for step in matching:
            if self.store.claim_step(factor_id, step):
                return VerifiedTotp(factor_id=factor_id, step=step, sandbox=False)
        raise TotpError(
            "this TOTP code (or a later one) was already used; wait for the next code",
            "TOTP_REPLAYED",
            401,
        )
