"""Input and output of the ``ewc`` commands: secrets and payloads come from files or standard
input, never from arguments; private keys go only to new files that only the owner can read."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "STDIN",
    "UsageError",
    "read_bytes",
    "read_text",
    "single_stdin",
    "write_secret",
]

# The exit statuses of every command (docs/reference/cli.md).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
#: The file name that means standard input.
STDIN = "-"


class UsageError(Exception):
    """Bad usage the user can fix (exit status 2): the message is one line, never a secret."""


def single_stdin(**paths: str | None) -> None:
    """Standard input can feed one input only."""
    readers = [name for name, path in paths.items() if path == STDIN]
    if len(readers) > 1:
        raise UsageError(f"only one of {', '.join(readers)} can read standard input ('-')")


def read_bytes(path: str, what: str) -> bytes:
    """The exact bytes of a file, or of standard input for ``-``."""
    try:
        if path == STDIN:
            if sys.stdin is None:
                raise UsageError(f"cannot read {what}: there is no standard input")
            return sys.stdin.buffer.read()
        return Path(path).read_bytes()
    except OSError as problem:
        raise UsageError(f"cannot read {what} {path}: {problem.strerror or problem}") from None


def read_text(path: str, what: str) -> str:
    """A one-line encoded value (hex, base58, base64url): UTF-8, surrounding whitespace
    removed (none of these encodings contains whitespace; files usually end with a newline)."""
    try:
        return read_bytes(path, what).decode("utf-8").strip()
    except UnicodeDecodeError:
        raise UsageError(f"{what} in {path} is not UTF-8 text") from None


def write_secret(path: str, text: str, what: str) -> None:
    """Write a secret to a new file with mode 0600; an existing file is never overwritten."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise UsageError(f"{path} exists; refusing to overwrite it with the {what}") from None
    except OSError as problem:
        raise UsageError(f"cannot create {path}: {problem.strerror or problem}") from None
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(text + "\n")
