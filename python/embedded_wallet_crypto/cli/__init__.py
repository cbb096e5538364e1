"""The ``ewc`` command line (docs/reference/cli.md).

Exit status: 0 success, 1 a check failed (a stamp that does not verify, a sealed key that does
not open), 2 bad usage (including a file or DIR that cannot be used, or malformed input). Errors
are one line on standard error, never a traceback. Secrets and payloads are read from files or
standard input (``-``), never from arguments; private keys are written only to new files
(mode 0600) or, with an explicit flag, to standard output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import embedded_wallet_crypto as ewc

from .. import vectors
from . import demo
from ._events import add_event_commands
from ._export import add_export_commands
from ._import import add_import_commands
from ._io import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, write_secret
from ._oidc import add_oidc_commands
from ._proofs import add_proofs_commands
from ._report import add_report_command
from ._serve import add_serve_command
from ._session import add_session_commands

__all__ = ["main"]

# --- commands --------------------------------------------------------------------------------


def _cmd_keygen(args: argparse.Namespace) -> int:
    key = ewc.KeyPair.generate()
    public_key = key.public_key_hex(compressed=args.compressed)
    if args.out is not None:
        # The plain hex file that --private-key-file of the other commands reads.
        write_secret(args.out, key.private_key_bytes().hex(), "private key")
        print(public_key)
        return EXIT_OK
    print(json.dumps({"private_key": key.private_key_bytes().hex(), "public_key": public_key}))
    return EXIT_OK


def _cmd_vectors_generate(args: argparse.Namespace) -> int:
    for path in vectors.generate(args.dir):
        print(path)
    return EXIT_OK


def _default_vectors_dir() -> Path:
    """./vectors when it exists, else the vectors/ of the checkout this package runs from."""
    for candidate in (Path("vectors"), Path(__file__).resolve().parents[3] / "vectors"):
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
    return demo.run()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ewc",
        description=(
            "embedded-wallet-crypto: keys, session keys, stamps, vectors and an end-to-end demo."
        ),
        epilog="Exit status: 0 success, 1 a check failed, 2 bad usage.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {ewc.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    keygen = commands.add_parser(
        "keygen",
        help="generate a P-256 key pair: print it as JSON, or write the private key to a file",
    )
    keygen.add_argument(
        "--compressed", action="store_true", help="print the public key in 33-byte compressed form"
    )
    keygen.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help="write the private key as plain hex to FILE (new, mode 0600; what "
        "--private-key-file reads) and print only the public key",
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

    add_session_commands(commands)
    add_oidc_commands(commands)
    add_export_commands(commands)
    add_import_commands(commands)
    add_proofs_commands(commands)
    add_serve_command(commands)
    add_event_commands(commands)

    demo_parser = commands.add_parser("demo", help="run every available flow end to end")
    demo_parser.set_defaults(handler=_cmd_demo)
    add_report_command(commands)
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
    except UsageError as error:
        print(f"ewc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ewc.WalletCryptoError as error:
        print(f"ewc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FAILED
    except OSError as error:
        print(f"ewc: error: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
