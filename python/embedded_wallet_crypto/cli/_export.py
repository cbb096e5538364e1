"""``ewc open-export`` and ``ewc seal-export``: wallet export envelopes (formats.md section 8).

``open-export`` verifies an ``encryptedWalletCredentials`` against the pinned signer and prints
the secret on standard output: the mnemonic (checked against BIP-39) or the hex of a 32-byte
key. ``seal-export`` is for test servers: it seals a mnemonic or key to a client key.
"""

from __future__ import annotations

import argparse
import sys

import embedded_wallet_crypto as ewc

from ..export import check_mnemonic, raw_key_hex
from ._io import EXIT_FAILED, EXIT_OK, UsageError, read_bytes, read_text, single_stdin

__all__ = ["add_export_commands"]

_FILE = "FILE"
SIGNERS = {
    "production": ewc.PRODUCTION_SIGNER_PUBLIC_KEY,
    "preproduction": ewc.PREPRODUCTION_SIGNER_PUBLIC_KEY,
}


def _signer(value: str) -> str:
    key = SIGNERS.get(value.lower(), value)
    try:
        ewc.parse_public_key(key)
    except ewc.WalletCryptoError:
        raise UsageError(
            "--signer takes production, preproduction or a P-256 public key in hex"
        ) from None
    return key


def _printable(plaintext: bytes) -> str:
    """The mnemonic, or the hex of a raw key; a damaged mnemonic is a failed check."""
    if len(plaintext) == 32:  # 12 BIP-39 words take at least 47 characters
        return raw_key_hex(plaintext)
    return check_mnemonic(plaintext)


def _cmd_open_export(args: argparse.Namespace) -> int:
    single_stdin(**{"--bundle": args.bundle, "--private-key-file": args.private_key_file})
    signer = _signer(args.signer)
    client_key = ewc.KeyPair.from_private_hex(read_text(args.private_key_file, "the private key"))
    bundle = read_bytes(args.bundle, "the export bundle")
    options = {
        "organization_id": args.organization_id,
        "signer_public_key": signer,
        "sandbox": True if args.sandbox else None,
    }
    try:
        if args.key_format is not None:
            secret = ewc.open_export_private_key(
                bundle, client_key, key_format=args.key_format, **options
            )
        else:
            secret = _printable(ewc.open_export_bundle(bundle, client_key, **options))
    except ewc.EnvelopeError as error:
        if error.code == "ENVELOPE_MALFORMED":
            raise
        print(f"ewc: error: {error.code}: {error}", file=sys.stderr)
        return EXIT_FAILED
    except (ewc.DecryptionError, ewc.DecodeError) as error:
        print(f"ewc: error: {error.code}: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(secret)
    return EXIT_OK


def _cmd_seal_export(args: argparse.Namespace) -> int:
    single_stdin(
        **{
            "--mnemonic-file": args.mnemonic_file,
            "--key-file": args.key_file,
            "--signer-key-file": args.signer_key_file,
        }
    )
    if args.mnemonic_file is not None:
        secret: str | bytes = check_mnemonic(read_text(args.mnemonic_file, "the mnemonic"))
    else:
        try:
            secret = bytes.fromhex(read_text(args.key_file, "the key"))
        except ValueError:
            raise UsageError("the key file must hold hex") from None
        raw_key_hex(secret)  # exactly 32 bytes
    signer = None
    if args.signer_key_file is not None:
        signer = ewc.KeyPair.from_private_hex(read_text(args.signer_key_file, "the signer key"))
    print(
        ewc.seal_export_bundle(
            args.client_public_key, secret, organization_id=args.organization_id, signer=signer
        )
    )
    return EXIT_OK


def add_export_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``open-export`` and ``seal-export`` to the ``ewc`` subparsers."""
    open_export = commands.add_parser(
        "open-export",
        help="client: verify and open an export envelope (encryptedWalletCredentials)",
        description="Check version, pinned signer, signature and organization, then decrypt; "
        "print the mnemonic, or the hex of a raw 32-byte key. Exit 1 when a check fails (a "
        "damaged mnemonic included), 2 for bad usage or a malformed envelope.",
    )
    open_export.add_argument(
        "--bundle", required=True, metavar=_FILE, help="the envelope JSON (- for stdin)"
    )
    open_export.add_argument(
        "--private-key-file", required=True, metavar=_FILE, help="the client private key (hex)"
    )
    open_export.add_argument(
        "--organization-id", metavar="ID", help="the organization the envelope must name"
    )
    open_export.add_argument(
        "--signer",
        default="production",
        metavar="production|preproduction|HEX",
        help="the pinned signer key (default: production)",
    )
    open_export.add_argument(
        "--sandbox", action="store_true", help="also open the unsigned sandbox form"
    )
    open_export.add_argument(
        "--key-format",
        choices=[member.value for member in ewc.KeyFormat],
        metavar="FORMAT",
        help="a key export: print the key in this format (HEXADECIMAL, SOLANA, "
        "BITCOIN_MAINNET_WIF, BITCOIN_TESTNET_WIF, SUI_BECH32); a wallet export then fails",
    )
    open_export.set_defaults(handler=_cmd_open_export)

    seal = commands.add_parser(
        "seal-export",
        help="test server: seal a mnemonic or key to a client key as an export envelope",
        description="Print the encryptedWalletCredentials JSON. Without --signer-key-file the "
        "envelope is the unsigned sandbox form.",
    )
    seal.add_argument(
        "--client-public-key", required=True, metavar="HEX", help="the clientPublicKey (04...)"
    )
    seal.add_argument("--organization-id", required=True, metavar="ID")
    secret = seal.add_mutually_exclusive_group(required=True)
    secret.add_argument("--mnemonic-file", metavar=_FILE, help="a BIP-39 mnemonic (text)")
    secret.add_argument("--key-file", metavar=_FILE, help="a raw 32-byte private key (hex)")
    seal.add_argument(
        "--signer-key-file", metavar=_FILE, help="the signing (enclave) private key (hex)"
    )
    seal.set_defaults(handler=_cmd_seal_export)
