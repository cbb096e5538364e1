"""``ewc import-wallet`` and ``ewc import-private-key``: encrypt a wallet or a private key to an
enclave's import bundle (formats.md section 12). The secret is read from a file or standard
input, never from an argument; the encrypted bundle JSON is printed on standard output."""

from __future__ import annotations

import argparse
import sys

import embedded_wallet_crypto as ewc

from ._export import _FILE, _signer
from ._io import EXIT_FAILED, EXIT_OK, UsageError, read_bytes, read_text, single_stdin

__all__ = ["KEY_FORMATS", "add_import_commands"]

KEY_FORMATS = [member.value for member in ewc.KeyFormat]


def _identity(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """(organization_id, user_id): both given, or both None with --accept-v0."""
    if args.accept_v0:
        if args.organization_id is not None or args.user_id is not None:
            raise UsageError("--accept-v0 skips the organization and user checks: give neither")
        return None, None
    if args.organization_id is None or args.user_id is None:
        raise UsageError(
            "give --organization-id and --user-id (--user-id '' for an organization-level "
            "import), or --accept-v0 for a legacy bundle that names neither"
        )
    return args.organization_id, args.user_id


def _failed(error: ewc.WalletCryptoError) -> int:
    print(f"ewc: error: {error.code}: {error}", file=sys.stderr)
    return EXIT_FAILED


def _cmd_import_wallet(args: argparse.Namespace) -> int:
    single_stdin(
        **{
            "--bundle": args.bundle,
            "--mnemonic-file": args.mnemonic_file,
            "--passphrase-file": args.passphrase_file,
        }
    )
    organization_id, user_id = _identity(args)
    signer = _signer(args.signer)
    bundle = read_bytes(args.bundle, "the import bundle")
    mnemonic = read_text(args.mnemonic_file, "the mnemonic")
    passphrase = None
    if args.passphrase_file is not None:
        raw = read_bytes(args.passphrase_file, "the passphrase")
        try:
            passphrase = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
        except UnicodeDecodeError:
            raise UsageError("the passphrase is not UTF-8 text") from None
    try:
        sealed = ewc.encrypt_wallet_to_bundle(
            bundle,
            mnemonic,
            organization_id=organization_id,
            user_id=user_id,
            signer_public_key=signer,
            sandbox=True if args.sandbox else None,
            passphrase=passphrase,
        )
    except (ewc.EnvelopeError, ewc.DecodeError) as error:
        if error.code == "ENVELOPE_MALFORMED":
            raise
        return _failed(error)
    print(sealed)
    return EXIT_OK


def _cmd_import_private_key(args: argparse.Namespace) -> int:
    single_stdin(**{"--bundle": args.bundle, "--key-file": args.key_file})
    organization_id, user_id = _identity(args)
    signer = _signer(args.signer)
    bundle = read_bytes(args.bundle, "the import bundle")
    key_text = read_text(args.key_file, "the private key")
    try:
        sealed = ewc.encrypt_private_key_to_bundle(
            bundle,
            key_text,
            key_format=args.key_format,
            organization_id=organization_id,
            user_id=user_id,
            signer_public_key=signer,
            sandbox=True if args.sandbox else None,
        )
    except (ewc.EnvelopeError, ewc.DecodeError) as error:
        if error.code == "ENVELOPE_MALFORMED":
            raise
        return _failed(error)
    print(sealed)
    return EXIT_OK


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bundle", required=True, metavar=_FILE, help="the import bundle JSON (- for stdin)"
    )
    parser.add_argument(
        "--organization-id", metavar="ID", help="the organization the bundle must name"
    )
    parser.add_argument(
        "--user-id", metavar="ID", help="the user the bundle must name ('' for the organization)"
    )
    parser.add_argument(
        "--accept-v0",
        action="store_true",
        help="accept a legacy bundle that names no organization or user (skips both checks)",
    )
    parser.add_argument(
        "--signer",
        default="production",
        metavar="production|preproduction|HEX",
        help="the pinned signer key (default: production)",
    )
    parser.add_argument(
        "--sandbox", action="store_true", help="also accept the unsigned sandbox form"
    )


def add_import_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``import-wallet`` and ``import-private-key`` to the ``ewc`` subparsers."""
    wallet = commands.add_parser(
        "import-wallet",
        help="client: encrypt a BIP-39 mnemonic to an import bundle",
        description="Check the import bundle (version, pinned signer, signature, organization, "
        "user) and the mnemonic (BIP-39 English list and checksum), then print the encrypted "
        "bundle JSON {encappedPublic, ciphertext}. Exit 1 when a check fails, 2 for bad usage "
        "or a malformed bundle.",
    )
    _common(wallet)
    wallet.add_argument(
        "--mnemonic-file", required=True, metavar=_FILE, help="the mnemonic (text, - for stdin)"
    )
    wallet.add_argument(
        "--passphrase-file",
        metavar=_FILE,
        help="a BIP-39 passphrase (text; one final newline is dropped)",
    )
    wallet.set_defaults(handler=_cmd_import_wallet)

    key = commands.add_parser(
        "import-private-key",
        help="client: encrypt a private key to an import bundle",
        description="Check the import bundle, decode the key from --key-format, then print the "
        "encrypted bundle JSON {encappedPublic, ciphertext}. Exit 1 when a check fails, 2 for "
        "bad usage or a malformed bundle.",
    )
    _common(key)
    key.add_argument(
        "--key-file", required=True, metavar=_FILE, help="the private key text (- for stdin)"
    )
    key.add_argument(
        "--key-format",
        default="HEXADECIMAL",
        choices=KEY_FORMATS,
        metavar="FORMAT",
        help=f"the key's text format: {', '.join(KEY_FORMATS)} (default: HEXADECIMAL)",
    )
    key.set_defaults(handler=_cmd_import_private_key)
