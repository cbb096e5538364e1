"""The sandbox service's settings (the options of ``ewc serve``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .models.names import NAMES

__all__ = [
    "BASE_PATH",
    "DEFAULT_DATABASE",
    "DEFAULT_IDEMPOTENCY_RETENTION",
    "DEFAULT_KEEP_ALIVE_TIMEOUT",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_REQUEST_TIMEOUT",
    "ENVIRONMENTS",
    "MAX_IDEMPOTENCY_RETENTION",
    "NAMES",
    "Settings",
]

#: The interface version, the last segment of the base URL.
BASE_PATH = "/2025-10-13"
#: The database used when none is given: a SQLite file in the current directory.
DEFAULT_DATABASE = "sqlite:///ewc-sandbox.db"
#: The two environments: ``sandbox`` (magic values allowed) and ``production`` (every check).
ENVIRONMENTS = ("sandbox", "production")
#: How long an ``Idempotency-Key``'s response is kept by default: 24 hours (simulated seconds).
DEFAULT_IDEMPOTENCY_RETENTION = 24 * 3600.0
#: The longest retention accepted: one year.
MAX_IDEMPOTENCY_RETENTION = 365 * 24 * 3600.0
#: The largest request body, in bytes (1 MiB): past it, 413 ``BODY_TOO_LARGE``.
DEFAULT_MAX_BODY_SIZE = 1024 * 1024
#: Seconds for a whole request (its headers and its body) to arrive.
DEFAULT_REQUEST_TIMEOUT = 30.0
#: Seconds an idle connection is kept open between requests.
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0


@dataclass
class Settings:
    """How one sandbox service runs.

    Attributes:
        host: the interface to listen on.
        port: the TCP port (0: any free port; ``ewc serve`` prints the one it got).
        database: ``sqlite:///PATH`` or ``postgresql://...``; state survives a restart.
        environment: ``sandbox`` (the interface's magic values) or ``production``.
        platform_credentials: ``(id, secret)`` pairs accepted as HTTP Basic credentials. Without
            any, one pair is created at the first start and printed once (only its hash is kept).
        mail_dir: where OTP emails are written, one RFC 5322 file each.
        rp_id: the WebAuthn relying party ID.
        origins: the allowed WebAuthn origins (default: ``http://localhost:PORT`` and
            ``http://127.0.0.1:PORT``).
        oidc_issuers: trusted OIDC issuer -> its JWKS URL.
        oidc_audiences: the accepted ``aud`` values of OIDC tokens.
        time_scale: multiplies the service's lifetimes and delays (challenges, sessions, OTP
            codes and their rate limits), so that a test can run them in seconds.
        redis: a Redis URL for single use and rate limits (default: the database itself).
        idempotency_retention: how long the response to an ``Idempotency-Key`` is kept, in
            simulated seconds (multiplied by ``time_scale`` like every lifetime; default 24
            hours); after it the key can be used again.
        max_body_size: the largest request body in bytes (413 ``BODY_TOO_LARGE`` past it).
        request_timeout: seconds for a whole request (headers and body) to arrive once a
            connection is open or a new request has begun; then the connection is closed (408
            ``REQUEST_TIMEOUT`` first when the headers had arrived).
        keep_alive_timeout: seconds an idle connection is kept open between requests.
        names: ``interface`` (the interface's field names and error body; default) or
            ``published`` (the published document's field names, error bodies and codes; see
            ``sandbox.published``). Requests are read in either spelling in both.
        seed: derive ids, request ids and generated keys (session keys, wallets) from this
            number instead of the random source (sandbox only; see ``ids``), so that the same
            requests from a fresh database give the same ids and keys.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    database: str = DEFAULT_DATABASE
    environment: str = "sandbox"
    platform_credentials: list[tuple[str, str]] = field(default_factory=list)
    mail_dir: Path = field(default_factory=lambda: Path("ewc-sandbox-mail"))
    rp_id: str = "localhost"
    origins: list[str] = field(default_factory=list)
    oidc_issuers: dict[str, str] = field(default_factory=dict)
    oidc_audiences: list[str] = field(default_factory=list)
    time_scale: float = 1.0
    redis: str | None = None
    idempotency_retention: float = DEFAULT_IDEMPOTENCY_RETENTION
    max_body_size: int = DEFAULT_MAX_BODY_SIZE
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    keep_alive_timeout: float = DEFAULT_KEEP_ALIVE_TIMEOUT
    names: str = "interface"
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.environment not in ENVIRONMENTS:
            raise ValueError(f"environment must be one of {', '.join(ENVIRONMENTS)}")
        if not (self.time_scale > 0 and self.time_scale < 10**6):
            raise ValueError("time_scale must be a positive number")
        if not (0 < self.idempotency_retention <= MAX_IDEMPOTENCY_RETENTION):
            raise ValueError(
                "idempotency_retention must be more than 0 and at most "
                f"{MAX_IDEMPOTENCY_RETENTION:.0f} seconds (one year)"
            )
        if isinstance(self.max_body_size, bool) or not 1 <= self.max_body_size <= 2**40:
            raise ValueError("max_body_size must be a positive number of bytes")
        for name in ("request_timeout", "keep_alive_timeout"):
            if not 0 < getattr(self, name) <= 86_400:
                raise ValueError(f"{name} must be a number of seconds from above 0 to 86400")
        if self.names not in NAMES:
            raise ValueError(f"names must be one of {', '.join(NAMES)}")
        if self.seed is not None:
            if isinstance(self.seed, bool) or not 0 <= self.seed < 2**63:
                raise ValueError("seed must be a whole number from 0 to 2**63 - 1")
            if not self.sandbox:
                raise ValueError("seed is for the sandbox environment only")
        self.mail_dir = Path(self.mail_dir)

    @property
    def sandbox(self) -> bool:
        """True in the sandbox environment (magic values accepted)."""
        return self.environment == "sandbox"

    def allowed_origins(self, port: int | None = None) -> list[str]:
        """The WebAuthn origins: the configured ones, else localhost on the serving port."""
        if self.origins:
            return list(self.origins)
        port = self.port if port is None else port
        return [f"http://localhost:{port}", f"http://127.0.0.1:{port}"]
