"""The ``ewc`` command line (API.md, "Command line").

Exit status: 0 success, 1 a check failed, 2 bad usage (including a DIR that cannot be used).
Errors are one line on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import embedded_wallet_crypto as ewc

from . import vectors

__all__ = ["DEMO_STEPS", "DemoStep", "main"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

# A demo step runs one flow end to end and raises (any exception) when the flow misbehaves.
DemoStep = tuple[str, Callable[[], None]]


class CheckFailed(Exception):
    """A demo step saw a wrong result."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def _expect_error(call: Callable[[], object], family: type[ewc.WalletCryptoError]) -> None:
    try:
        call()
    except family:
        return
    raise CheckFailed(f"expected {family.__name__}, but the call succeeded")


# --- demo flows ------------------------------------------------------------------------------


def _demo_keys() -> None:
    key = ewc.KeyPair.generate()
    public = key.public_key_bytes()
    _check(
        ewc.parse_public_key(key.public_key_hex(compressed=True)) == public,
        "the compressed public key does not parse back to the uncompressed one",
    )
    _check(
        ewc.KeyPair.from_private_bytes(key.private_key_bytes()) == key,
        "reloading the private scalar gave another key",
    )


def _demo_hpke() -> None:
    client = ewc.KeyPair.generate()
    message = b"wire-profile round trip"
    enc, ciphertext = ewc.hpke.seal(client.public_key_bytes(), message)
    _check(len(enc) == 65, "enc is not 65 bytes")
    _check(ewc.hpke.open(client, enc, ciphertext) == message, "open did not return the message")
    tampered = ciphertext[:-1] + bytes([ciphertext[-1] ^ 1])
    _expect_error(lambda: ewc.hpke.open(client, enc, tampered), ewc.DecryptionError)


def _demo_signatures() -> None:
    key = ewc.KeyPair.generate()
    message = b'{"type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
    signature = key.sign(message)
    compressed = key.public_key_hex(compressed=True)
    _check(ewc.verify_signature(compressed, message, signature), "a fresh signature failed")
    _check(
        not ewc.verify_signature(compressed, message + b" ", signature),
        "a signature verified over other bytes",
    )


def _demo_sealed_session_key() -> None:
    # FORMATS.md section 3: base58check(compressed enc || ciphertext), 81 bytes decoded.
    client = ewc.KeyPair.generate()
    session_key = ewc.KeyPair.generate()
    enc, ciphertext = ewc.hpke.seal(client.public_key_bytes(), session_key.private_key_bytes())
    text = ewc.b58check_encode(ewc.compress_public_key(enc) + ciphertext)
    payload = ewc.b58check_decode(text)
    _check(len(payload) == 81, f"decoded payload is {len(payload)} bytes, not 81")
    opened = ewc.hpke.open(client, payload[:33], payload[33:])
    _check(ewc.KeyPair.from_private_bytes(opened) == session_key, "another session key came out")
    last = text[-1]
    changed = text[:-1] + ("2" if last == "1" else "1")
    _expect_error(lambda: ewc.b58check_decode(changed), ewc.DecodeError)


# Later flows (session keys, stamps, export, OTP, passkeys, OIDC, signed retries) add their
# steps here; each is a name and a function that raises when the flow misbehaves.
DEMO_STEPS: list[DemoStep] = [
    ("key generation", _demo_keys),
    ("HPKE wire-profile round trip, tampered ciphertext rejected", _demo_hpke),
    ("ECDSA sign and verify", _demo_signatures),
    ("base58check of a sealed session key", _demo_sealed_session_key),
]


# --- commands --------------------------------------------------------------------------------


def _cmd_keygen(args: argparse.Namespace) -> int:
    key = ewc.KeyPair.generate()
    output = {
        "private_key": key.private_key_bytes().hex(),
        "public_key": key.public_key_hex(compressed=args.compressed),
    }
    print(json.dumps(output))
    return EXIT_OK


def _cmd_vectors_generate(args: argparse.Namespace) -> int:
    for path in vectors.generate(args.dir):
        print(path)
    return EXIT_OK


def _default_vectors_dir() -> Path:
    """./vectors when it exists, else the vectors/ of the checkout this package runs from."""
    for candidate in (Path("vectors"), Path(__file__).resolve().parents[2] / "vectors"):
        if candidate.is_dir() and any(candidate.glob("*.json")):
            return candidate
    raise ewc.WalletCryptoError(
        "no DIR given and no vectors/ directory found here", code="VECTORS_NOT_FOUND"
    )


def _print_report(report: vectors.Report) -> None:
    rows = [(f.file, f.cases, f.passed, f.failed) for f in report.files]
    rows.append(("total", report.cases, report.passed, report.failed))
    width = max(len("file"), *(len(row[0]) for row in rows))
    print(f"{'file':<{width}}  {'cases':>6}  {'passed':>6}  {'failed':>6}")
    for name, cases, passed, failed in rows:
        print(f"{name:<{width}}  {cases:>6}  {passed:>6}  {failed:>6}")
    if report.failures:
        print("\nfailures:")
        for failure in report.failures:
            print(f"  {failure.file} {failure.case_id}: {failure.message}")
    verdict = "OK" if report.ok else "FAILED"
    print(f"\n{verdict}: {report.passed} of {report.cases} cases passed in {report.directory}")


def _cmd_vectors_verify(args: argparse.Namespace) -> int:
    directory = Path(args.dir) if args.dir is not None else _default_vectors_dir()
    report = vectors.verify(directory)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        _print_report(report)
    return EXIT_OK if report.ok else EXIT_FAILED


def _cmd_demo(args: argparse.Namespace) -> int:
    failed = 0
    for name, step in DEMO_STEPS:
        try:
            step()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as problem:  # PyO3's PanicException derives from BaseException
            failed += 1
            print(f"FAILED  {name}: {type(problem).__name__}: {problem}")
        else:
            print(f"OK      {name}")
    print(f"\n{len(DEMO_STEPS) - failed} of {len(DEMO_STEPS)} steps OK")
    return EXIT_FAILED if failed else EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ewc",
        description="embedded-wallet-crypto: keys, HPKE, signatures, base58check and vectors.",
        epilog="Exit status: 0 success, 1 a check failed, 2 bad usage.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {ewc.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    keygen = commands.add_parser("keygen", help="generate a P-256 key pair, print it as JSON")
    keygen.add_argument(
        "--compressed", action="store_true", help="print the public key in 33-byte compressed form"
    )
    keygen.set_defaults(handler=_cmd_keygen)

    vectors_parser = commands.add_parser("vectors", help="generate or verify the vector files")
    actions = vectors_parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    generate = actions.add_parser("generate", help="write the deterministic vector files")
    generate.add_argument("dir", metavar="DIR", help="directory to write (created if needed)")
    generate.set_defaults(handler=_cmd_vectors_generate)
    verify = actions.add_parser("verify", help="run vector files through the Python API")
    verify.add_argument(
        "dir",
        metavar="DIR",
        nargs="?",
        default=None,
        help="directory of *.json vector files (default: ./vectors)",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(handler=_cmd_vectors_verify)

    demo = commands.add_parser("demo", help="run every available flow end to end")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def _silence_stdout() -> None:
    """The reader went away (``ewc ... | head``): point stdout at /dev/null so that the final
    flush at exit does not raise again (the recipe of the Python signal documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ewc``; returns the exit status instead of calling ``sys.exit``."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help, --version, or argparse's usage error (2)
        code = exit_request.code
        return code if isinstance(code, int) else EXIT_USAGE if code else EXIT_OK
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except ewc.WalletCryptoError as error:
        print(f"ewc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FAILED
    except OSError as error:
        print(f"ewc: error: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
