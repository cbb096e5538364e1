"""The sandbox service's settings (the options of ``ewc serve``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "DEFAULT_DATABASE",
    "DEFAULT_IDEMPOTENCY_RETENTION",
    "ENVIRONMENTS",
    "MAX_IDEMPOTENCY_RETENTION",
    "Settings",
]

#: The database used when none is given: a SQLite file in the current directory.
DEFAULT_DATABASE = "sqlite:///ewc-sandbox.db"
#: The two environments: ``sandbox`` (magic values allowed) and ``production`` (every check).
ENVIRONMENTS = ("sandbox", "production")
#: How long an ``Idempotency-Key``'s response is kept by default: 24 hours (simulated seconds).
DEFAULT_IDEMPOTENCY_RETENTION = 24 * 3600.0
#: The longest retention accepted: one year.
MAX_IDEMPOTENCY_RETENTION = 365 * 24 * 3600.0


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
