"""One sandbox policy for the whole library.

Every sandbox behaviour of the interface (the OTP code ``000000``, the TOTP code ``123456``,
the stamp ``sandbox-valid-signature``, the passkey signature ``sandbox-valid-passkey-signature``,
the OIDC create path's skipped signature, unsigned export envelopes) asks :func:`resolve` whether
it is allowed, and nothing else decides. The default is :attr:`Environment.PRODUCTION`, where every
magic value is rejected with the same error as any other wrong value.

Sandbox is enabled only explicitly: per call with ``sandbox=True`` (or an ``Environment``), or
for the process with :func:`set_default_environment`. A value that is not exactly a bool, an
``Environment`` or None (say the string ``"false"`` from a config file) is a ``TypeError``, never
a truthy yes.
"""

from __future__ import annotations

import enum
import threading

__all__ = ["Environment", "default_environment", "resolve", "set_default_environment"]


class Environment(enum.Enum):
    PRODUCTION = "production"
    SANDBOX = "sandbox"


_lock = threading.Lock()
_default = Environment.PRODUCTION


def set_default_environment(environment: Environment) -> None:
    """Set the process-wide environment used when a call passes no ``sandbox`` argument."""
    global _default
    if not isinstance(environment, Environment):
        raise TypeError("set_default_environment takes an ewc.Environment member")
    with _lock:
        _default = environment


def default_environment() -> Environment:
    return _default


def resolve(sandbox: bool | Environment | None) -> Environment:
    """The environment a call runs in: its own ``sandbox`` argument, else the process default."""
    if sandbox is None:
        return _default
    if sandbox is True:
        return Environment.SANDBOX
    if sandbox is False:
        return Environment.PRODUCTION
    if isinstance(sandbox, Environment):
        return sandbox
    raise TypeError(
        f"sandbox must be True, False, None or an ewc.Environment, not {type(sandbox).__name__}"
    )


def sandbox_allowed(sandbox: bool | Environment | None) -> bool:
    """True when sandbox behaviour is allowed for a call with this ``sandbox`` argument."""
    return resolve(sandbox) is Environment.SANDBOX
