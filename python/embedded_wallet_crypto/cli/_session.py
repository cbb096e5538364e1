"""``ewc seal-session-key``, ``open-session-key``, ``stamp`` and ``verify-stamp``.

Session keys follow formats.md section 3, stamps section 4. Private keys are hex files (``-`` is
standard input); payloads are read byte for byte, never trimmed or re-encoded.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import embedded_wallet_crypto as ewc

from ._io import EXIT_FAILED, EXIT_OK, read_bytes, read_text, single_stdin, write_secret

__all__ = ["add_session_commands"]

_FILE = "FILE"


def _private_key(path: str, what: str) -> ewc.KeyPair:
    return ewc.KeyPair.from_private_hex(read_text(path, what))


def _print_json(document: dict[str, Any]) -> None:
    print(json.dumps(document))


def _cmd_seal_session_key(args: argparse.Namespace) -> int:
    if args.session_key_file is not None:
        session_key = _private_key(args.session_key_file, "the session private key")
    else:
        session_key = ewc.KeyPair.generate()
    sealed = ewc.seal_session_key(args.client_public_key, session_key)
    if args.session_key_out is not None:
        write_secret(
            args.session_key_out, session_key.private_key_bytes().hex(), "session private key"
        )
    _print_json(
        {
            "encryptedSessionSigningKey": sealed,
            "sessionPublicKey": session_key.public_key_hex(compressed=True),
        }
    )
    return EXIT_OK


def _cmd_open_session_key(args: argparse.Namespace) -> int:
    single_stdin(**{"--private-key-file": args.private_key_file, "--encrypted": args.encrypted})
    client_key = _private_key(args.private_key_file, "the client private key")
    encrypted = read_text(args.encrypted, "the encryptedSessionSigningKey")
    try:
        session_key = ewc.open_session_key(encrypted, client_key)
    except ewc.DecryptionError as error:
        print(f"ewc: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    output = {"sessionPublicKey": session_key.public_key_hex(compressed=True)}
    if args.out is not None:
        write_secret(args.out, session_key.private_key_bytes().hex(), "session private key")
    if args.print_private_key:
        output["sessionPrivateKey"] = session_key.private_key_bytes().hex()
    _print_json(output)
    return EXIT_OK


def _cmd_stamp(args: argparse.Namespace) -> int:
    single_stdin(
        **{"--private-key-file": args.private_key_file, "--payload-file": args.payload_file}
    )
    key = _private_key(args.private_key_file, "the session private key")
    payload = read_bytes(args.payload_file, "the payload")
    print(ewc.create_stamp(payload, key))
    return EXIT_OK


def _cmd_verify_stamp(args: argparse.Namespace) -> int:
    single_stdin(**{"--stamp-file": args.stamp_file, "--payload-file": args.payload_file})
    stamp = args.stamp if args.stamp is not None else read_text(args.stamp_file, "the stamp")
    payload = read_bytes(args.payload_file, "the payload")
    if args.expected_public_key is not None:
        ewc.parse_public_key(args.expected_public_key)  # a bad key is bad usage, not a verdict
    try:
        verified = ewc.verify_stamp(
            stamp, payload, expected_public_key=args.expected_public_key, sandbox=args.sandbox
        )
    except ewc.StampError as error:
        _print_json({"valid": False, "code": error.code, "reason": error.reason})
        return EXIT_FAILED
    _print_json(
        {
            "valid": True,
            "publicKey": verified.public_key,
            "scheme": verified.scheme,
            "signature": verified.signature.hex(),
        }
    )
    return EXIT_OK


def add_session_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the four commands to the ``ewc`` subparsers."""
    seal = commands.add_parser(
        "seal-session-key",
        help="server: seal a session key to a client's uncompressed public key",
        description="Print {encryptedSessionSigningKey, sessionPublicKey} as JSON. Without "
        "--session-key-file a fresh session key is generated; its private key is written only "
        "to --session-key-out (a new file, mode 0600), never printed.",
    )
    seal.add_argument(
        "--client-public-key", required=True, metavar="HEX", help="the clientPublicKey (04...)"
    )
    source = seal.add_mutually_exclusive_group()
    source.add_argument(
        "--session-key-file", metavar=_FILE, help="seal this session private key (hex; - stdin)"
    )
    source.add_argument(
        "--session-key-out", metavar=_FILE, help="write the generated session private key here"
    )
    seal.set_defaults(handler=_cmd_seal_session_key)

    open_key = commands.add_parser(
        "open-session-key",
        help="client: open an encryptedSessionSigningKey",
        description="Print {sessionPublicKey} as JSON (exit 1 when it does not open). The "
        "session private key goes to --out (a new file, mode 0600), or into the JSON with "
        "--print-private-key.",
    )
    open_key.add_argument(
        "--private-key-file", required=True, metavar=_FILE, help="the client private key (hex)"
    )
    open_key.add_argument(
        "--encrypted", required=True, metavar=_FILE, help="the encryptedSessionSigningKey text"
    )
    open_key.add_argument("--out", metavar=_FILE, help="write the session private key here")
    open_key.add_argument(
        "--print-private-key",
        action="store_true",
        help="also print the session private key (sessionPrivateKey) on standard output",
    )
    open_key.set_defaults(handler=_cmd_open_session_key)

    stamp = commands.add_parser(
        "stamp",
        help="client: stamp a payloadToSign with the session key",
        description="Print the Service-Wallet-Signature stamp over the payload file's exact bytes.",
    )
    stamp.add_argument(
        "--private-key-file", required=True, metavar=_FILE, help="the session private key (hex)"
    )
    stamp.add_argument(
        "--payload-file", required=True, metavar=_FILE, help="the payloadToSign, byte for byte"
    )
    stamp.set_defaults(handler=_cmd_stamp)

    verify = commands.add_parser(
        "verify-stamp",
        help="server: verify a stamp over a payload",
        description="Print the verdict as JSON; exit 1 when the stamp does not verify.",
    )
    given = verify.add_mutually_exclusive_group(required=True)
    given.add_argument("--stamp-file", metavar=_FILE, help="a file holding the stamp (- stdin)")
    given.add_argument("--stamp", metavar="VALUE", help="the stamp itself (it is not secret)")
    verify.add_argument(
        "--payload-file", required=True, metavar=_FILE, help="the payloadToSign, byte for byte"
    )
    verify.add_argument(
        "--expected-public-key", metavar="HEX", help="the session key that must have signed"
    )
    verify.add_argument(
        "--sandbox", action="store_true", help="also accept the sandbox-valid-signature value"
    )
    verify.set_defaults(handler=_cmd_verify_stamp)
