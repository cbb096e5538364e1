"""``ewc nonce`` and ``ewc verify-oidc`` (formats.md section 7).

``verify-oidc`` verifies offline, against a JWKS file; exit 1 when the token fails a check
(its code and reason are printed as JSON), 2 when an input is unusable (a JWKS that is not one,
a malformed clientPublicKey).
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone

import embedded_wallet_crypto as ewc

from ._io import EXIT_FAILED, EXIT_OK, UsageError, read_bytes, read_text, single_stdin

__all__ = ["add_oidc_commands"]

_FILE = "FILE"


def _cmd_nonce(args: argparse.Namespace) -> int:
    print(ewc.oidc.nonce_for(args.client_public_key))
    return EXIT_OK


def _jwks(path: str) -> ewc.oidc.JwksProvider:
    try:
        document = json.loads(read_bytes(path, "the JWKS"))
    except (ValueError, RecursionError):
        raise UsageError(f"the JWKS in {path} is not JSON") from None
    try:
        return ewc.oidc.JwksProvider.from_jwks(document)
    except ewc.OidcError as error:
        raise UsageError(f"{path}: {error}") from None


def _now(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        if text.isdigit():
            return datetime.fromtimestamp(int(text), timezone.utc)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise UsageError(f"--now {text!r} is neither Unix seconds nor an ISO 8601 time") from None
    if moment.utcoffset() is None:
        raise UsageError("--now needs a time zone (e.g. 2026-01-01T00:00:00Z)")
    return moment


def _cmd_verify_oidc(args: argparse.Namespace) -> int:
    single_stdin(**{"--token-file": args.token_file, "--jwks-file": args.jwks_file})
    if args.client_public_key is not None:
        ewc.oidc.nonce_for(args.client_public_key)  # a bad key is bad usage, not a verdict
    token = read_text(args.token_file, "the ID token")
    jwks = _jwks(args.jwks_file)
    try:
        identity = ewc.oidc.verify_id_token(
            token,
            jwks=jwks,
            audience=args.audience,
            issuers=args.issuer or ewc.oidc.DEFAULT_ISSUERS,
            now=_now(args.now),
            client_public_key=args.client_public_key,
            sandbox=args.sandbox,
        )
    except ewc.OidcError as error:
        verdict = {"valid": False, "code": error.code, "reason": error.reason}
        print(json.dumps({**verdict, "httpReason": error.http_reason}))
        return EXIT_FAILED
    verdict = {
        "valid": True,
        "issuer": identity.issuer,
        "subject": identity.subject,
        "audience": identity.audience,
        "email": identity.email,
    }
    print(json.dumps(verdict if not identity.sandbox else {**verdict, "sandbox": True}))
    return EXIT_OK


def add_oidc_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``nonce`` and ``verify-oidc`` to the ``ewc`` subparsers."""
    nonce = commands.add_parser(
        "nonce",
        help="client: the OIDC nonce that binds an ID token to a clientPublicKey",
        description="Print SHA-256 (hex) of the clientPublicKey exactly as given (formats.md "
        "section 7): pass it as the nonce when requesting the ID token.",
    )
    nonce.add_argument(
        "--client-public-key", required=True, metavar="HEX", help="the clientPublicKey as sent"
    )
    nonce.set_defaults(handler=_cmd_nonce)

    verify = commands.add_parser(
        "verify-oidc",
        help="server: verify an OIDC ID token against a JWKS file",
        description="Print the identity or the failed check as JSON; exit 1 when the token "
        "fails a check. Offline: the keys come from --jwks-file only.",
    )
    verify.add_argument("--token-file", required=True, metavar=_FILE, help="the ID token (- stdin)")
    verify.add_argument("--jwks-file", required=True, metavar=_FILE, help="the issuer's JWKS")
    verify.add_argument(
        "--audience",
        required=True,
        action="append",
        metavar="A",
        help="the client id the token must be for (repeat for several)",
    )
    verify.add_argument(
        "--client-public-key", metavar="HEX", help="require the nonce binding to this key"
    )
    verify.add_argument(
        "--issuer",
        action="append",
        metavar="ISS",
        help="an allowed issuer (repeatable; default: Google and Apple)",
    )
    verify.add_argument(
        "--now", metavar="TIME", help="verify at this time (Unix seconds or ISO 8601 with zone)"
    )
    verify.add_argument(
        "--sandbox", action="store_true", help="also accept the sandbox-valid-oidc-token value"
    )
    verify.set_defaults(handler=_cmd_verify_oidc)
