"""What the rules share: the settings, the clock, the database and the library's engines
(signed retries, one-time codes, OIDC key sets) on the configured stores, and the mailer."""

from __future__ import annotations

import os
import secrets
import uuid
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

from sqlalchemy.exc import IntegrityError

from .. import oidc
from ..keys import KeyPair
from ..otp import OneTimeCodes, OtpLogin
from ..policy import Environment
from ..signed_retry import SignedRetry
from ..stores import PostgresStore, RedisStore, SqliteStore
from ..totp import Totp
from .clock import Clock
from .db.engine import Database
from .db.tables_wallet import ServiceSecret
from .ids import new_id
from .settings import Settings

__all__ = [
    "CHALLENGE_SECONDS",
    "SESSION_SECONDS",
    "Mailer",
    "Services",
    "shared_secret",
]

#: Lifetimes, in simulated seconds (multiplied by ``--time-scale``).
SESSION_SECONDS = 15 * 60
CHALLENGE_SECONDS = 5 * 60
OTP_SECONDS = 10 * 60
OTP_REISSUE_SECONDS = 30
DEFAULT_AUDIENCE = "ewc-sandbox"


def shared_secret(database: Database, name: str, make: Any) -> str:
    """A value made once per database (the first process to start wins) and read by all."""
    with database.sessions() as db:
        row = db.get(ServiceSecret, name)
        if row is not None:
            return row.value
        db.add(ServiceSecret(name=name, value=make()))
        try:
            db.commit()
        except IntegrityError:
            db.rollback()
        row = db.get(ServiceSecret, name)
        assert row is not None
        return row.value


def _new_private_key() -> str:
    return KeyPair.generate().private_key_bytes().hex()


def _https(issuer: str) -> str:
    return issuer if "://" in issuer else f"https://{issuer}"


#: The mail directory keeps at most this many emails: past it, the oldest are removed.
MAX_OUTBOX_FILES = 10_000


class Mailer:
    """Writes each email as one RFC 5322 file into the mail directory, which keeps the newest
    :data:`MAX_OUTBOX_FILES` (the names sort by the time they were written)."""

    def __init__(self, settings: Settings) -> None:
        self.directory = settings.mail_dir
        self.max_files = MAX_OUTBOX_FILES

    def send(self, to: str, subject: str, body: str) -> None:
        message = EmailMessage()
        message["From"] = "Embedded wallet sandbox <no-reply@sandbox.invalid>"
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = format_datetime(Clock.now())
        message["Message-ID"] = make_msgid(domain="sandbox.invalid")
        message.set_content(body)
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"{Clock.now().strftime('%Y%m%dT%H%M%S%f')}-{uuid.uuid4().hex[:8]}.eml"
        temporary = self.directory / (name + ".tmp")
        temporary.write_bytes(bytes(message))
        temporary.replace(self.directory / name)  # readers never see half a message
        self._prune()

    def _prune(self) -> None:
        """Remove the oldest emails past the cap (another process may remove one first)."""
        with os.scandir(self.directory) as entries:
            names = sorted(entry.name for entry in entries if entry.name.endswith(".eml"))
        for old in names[: max(0, len(names) - self.max_files)]:
            (self.directory / old).unlink(missing_ok=True)


@dataclass
class Services:
    """What the rules share, built once per process (:meth:`build`): the settings, the scaled
    clock, the database, the environment, the organization id, the library's engines on the
    configured store (signed retries, one-time codes, the encrypted OTP login, OIDC key sets),
    the service's signer (production), the key secrets at rest are sealed to
    (``domain.at_rest``) and the mailer."""

    settings: Settings
    clock: Clock
    database: Database
    environment: Environment
    organization_id: str
    store: Any
    signed_retry: SignedRetry
    otp: OneTimeCodes
    otp_login: OtpLogin
    service_signer: KeyPair | None
    oidc_keys: dict[str, oidc.JwksProvider]
    oidc_issuers: tuple[str, ...]
    oidc_audiences: tuple[str, ...]
    mailer: Mailer
    totp: Totp
    sms: OneTimeCodes
    sealing_key: KeyPair

    @property
    def sandbox(self) -> bool:
        return self.environment is Environment.SANDBOX

    @classmethod
    def build(cls, settings: Settings, database: Database) -> Services:
        clock = Clock(settings.time_scale)
        environment = Environment.SANDBOX if settings.sandbox else Environment.PRODUCTION
        store: Any
        if settings.redis:
            store = RedisStore(settings.redis)
        elif database.sqlite_path is not None:  # the tables' durability (``db.engine``)
            store = SqliteStore(database.sqlite_path, durability="best-effort")
        else:
            assert database.postgres_dsn is not None
            store = PostgresStore(database.postgres_dsn)
        organization_id = shared_secret(database, "organization-id", lambda: new_id("Organization"))
        hash_key = bytes.fromhex(
            shared_secret(database, "otp-hash-key", lambda: secrets.token_hex(32))
        )
        if settings.oidc_issuers:
            keys = {
                issuer: oidc.JwksProvider(jwks_uri=url)
                for issuer, url in settings.oidc_issuers.items()
            }
        else:
            keys = {  # "accounts.google.com" (no scheme) is Google's too: its keys by discovery
                issuer: oidc.JwksProvider(issuer=_https(issuer)) for issuer in oidc.DEFAULT_ISSUERS
            }
        signed_retry = SignedRetry(
            store,
            ttl_seconds=clock.seconds(CHALLENGE_SECONDS),
            clock=Clock.time,  # the test clock's time: an advance expires challenges
            id_factory=lambda: new_id("Request"),  # seeded with --seed
            sandbox=environment,
        )
        codes = OneTimeCodes(
            store,
            hash_key=hash_key,
            ttl_seconds=clock.seconds(OTP_SECONDS),
            min_reissue_interval_seconds=clock.seconds(OTP_REISSUE_SECONDS),
            issue_window_seconds=clock.seconds(3600),
            # The sandbox's test clock (an advance expires codes); production keeps the
            # store's own clock, read inside its atomic section.
            clock=Clock.time if environment is Environment.SANDBOX else None,
            sandbox=environment,
        )
        # SCA: TOTP codes accepted once per factor in the store (the interface's sandbox code
        # 123456 in the sandbox only); SMS codes like the email codes, but their sandbox code
        # is the published 123456, accepted by the SCA rules (sandbox only), so the engine's
        # own sandbox code is off.
        totp = Totp(store, issuer="Embedded wallet sandbox", sandbox=environment)
        sms = OneTimeCodes(
            store,
            hash_key=hash_key,
            ttl_seconds=clock.seconds(OTP_SECONDS),
            min_reissue_interval_seconds=clock.seconds(OTP_REISSUE_SECONDS),
            issue_window_seconds=clock.seconds(3600),
            sandbox=False,
        )
        token_signer = KeyPair.from_private_hex(
            shared_secret(database, "verification-token-signer", _new_private_key)
        )
        service_signer = None  # sandbox: unsigned export envelopes and OTP target bundles
        if environment is Environment.PRODUCTION:
            service_signer = KeyPair.from_private_hex(
                shared_secret(database, "export-signer-key", _new_private_key)
            )
        return cls(
            settings=settings,
            clock=clock,
            database=database,
            environment=environment,
            organization_id=organization_id,
            store=store,
            signed_retry=signed_retry,
            otp=codes,
            otp_login=OtpLogin(codes=codes, signed_retry=signed_retry, token_signer=token_signer),
            service_signer=service_signer,
            oidc_keys=keys,
            oidc_issuers=tuple(keys),
            oidc_audiences=tuple(settings.oidc_audiences) or (DEFAULT_AUDIENCE,),
            mailer=Mailer(settings),
            totp=totp,
            sms=sms,
            sealing_key=KeyPair.from_private_hex(
                shared_secret(database, "at-rest-sealing-key", _new_private_key)
            ),
        )

    def close(self) -> None:
        close = getattr(self.store, "close", None)
        if close is not None:
            close()
