"""``ewc proofs verify``: an auditor's check of a boot proof (formats.md section 16).

The boot proof file holds the whole boot proof as JSON (with its QOS manifest and envelope), or
the attestation document alone (its base64, or its raw COSE bytes). ``--pin FILE`` is a JSON
object of the values the auditor accepts (``pcr0`` to ``pcr3``, ``manifest_hash``,
``approval_threshold``); ``--app-proof FILE`` also checks an app proof against the boot proof.
What was verified is printed as JSON; exit 1 when a check fails (its code and reason are
printed), 2 when an input is unusable (a pins file that is not a pins object, say).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from typing import Any

import embedded_wallet_crypto as ewc

from ._io import EXIT_FAILED, EXIT_OK, UsageError, read_bytes, single_stdin
from ._oidc import _now as parse_now

__all__ = ["add_proofs_commands"]

_FILE = "FILE"


def _boot_proof(path: str) -> str | bytes:
    raw = read_bytes(path, "the boot proof")
    try:
        return raw.decode("utf-8").strip()  # JSON text, or the document's base64
    except UnicodeDecodeError:
        return raw  # the document's COSE bytes


def _json_object(path: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(read_bytes(path, what))
    except (ValueError, RecursionError):
        raise UsageError(f"{what} in {path} is not JSON") from None
    if not isinstance(value, dict):
        raise UsageError(f"{what} in {path} is not a JSON object")
    return value


def _members(members: tuple[ewc.proofs.QuorumMember, ...]) -> list[dict[str, str]]:
    return [{"alias": m.alias, "publicKey": m.public_key.hex()} for m in members]


def _manifest(manifest: ewc.proofs.QosManifest) -> dict[str, Any]:
    return {
        "hash": manifest.hash.hex(),
        "namespace": manifest.namespace,
        "nonce": manifest.nonce,
        "quorumKey": manifest.quorum_key.hex(),
        "pivotHash": manifest.pivot_hash.hex(),
        "pivotRestart": manifest.pivot_restart,
        "pivotArgs": list(manifest.pivot_args),
        "manifestSet": {
            "threshold": manifest.manifest_set.threshold,
            "members": _members(manifest.manifest_set.members),
        },
        "shareSet": {
            "threshold": manifest.share_set.threshold,
            "members": _members(manifest.share_set.members),
        },
        "patchSet": {
            "threshold": manifest.patch_set.threshold,
            "publicKeys": [key.hex() for key in manifest.patch_set.public_keys],
        },
        "pcrs": {
            str(index): value.hex()
            for index, value in enumerate(
                (manifest.pcr0, manifest.pcr1, manifest.pcr2, manifest.pcr3)
            )
        },
        "awsRootCertificateSha256": hashlib.sha256(manifest.aws_root_certificate).hexdigest(),
        "qosCommit": manifest.qos_commit,
    }


def _report(boot: ewc.proofs.BootProof) -> dict[str, Any]:
    def optional(value: bytes | None) -> str | None:
        return None if value is None else value.hex()

    report: dict[str, Any] = {
        "valid": True,
        "moduleId": boot.module_id,
        "timestamp": boot.timestamp.isoformat(),
        "notValidAfter": boot.not_valid_after.isoformat(),
        "pcrs": {str(index): value.hex() for index, value in sorted(boot.pcrs.items())},
        "publicKey": optional(boot.public_key),
        "userData": optional(boot.user_data),
        "manifest": None if boot.manifest is None else _manifest(boot.manifest),
        "approvedBy": [member.alias for member in boot.manifest_approvals],
    }
    return report


def _cmd_proofs_verify(args: argparse.Namespace) -> int:
    single_stdin(**{"FILE": args.boot_proof, "--pin": args.pin, "--app-proof": args.app_proof})
    now = parse_now(args.now)
    pins = None if args.pin is None else _json_object(args.pin, "the pins")
    boot_proof = _boot_proof(args.boot_proof)
    app_proof = None if args.app_proof is None else _json_object(args.app_proof, "the app proof")
    try:
        if app_proof is None:
            boot = ewc.proofs.verify_boot_proof(boot_proof, now=now, pins=pins)
            extra: dict[str, Any] = {}
        else:
            if not isinstance(boot_proof, str) or not boot_proof.startswith("{"):
                raise UsageError("--app-proof needs the whole boot proof (JSON), not a document")
            app, boot = ewc.proofs.verify_app_proof_against_boot_proof(
                app_proof, boot_proof, now=now, pins=pins
            )
            extra = {"appProof": {"type": app.proof_type, "payload": app.payload}}
    except ewc.ProofError as error:
        if error.code == "BOOT_PROOF_PINS_INVALID":
            raise UsageError(f"{args.pin}: {error}") from None
        print(json.dumps({"valid": False, "code": error.code, "reason": error.reason}))
        return EXIT_FAILED
    print(json.dumps({**_report(boot), **extra}, indent=2))
    return EXIT_OK


def add_proofs_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``proofs verify`` to the ``ewc`` subparsers."""
    proofs = commands.add_parser("proofs", help="auditor: verify boot proofs and app proofs")
    actions = proofs.add_subparsers(dest="action", required=True, metavar="ACTION")
    verify = actions.add_parser(
        "verify",
        help="verify a boot proof (and its QOS manifest) against pinned values",
        description="Verify a boot proof: the AWS Nitro attestation document to the pinned AWS "
        "root; given the whole boot proof, its QOS manifest (bound by hash, its PCRs the "
        "document's, its approvals valid); the pinned values. Print what was verified as JSON; "
        "exit 1 when a check fails.",
    )
    verify.add_argument(
        "boot_proof",
        metavar=_FILE,
        help="the boot proof JSON, or the attestation document (base64 or COSE bytes); - stdin",
    )
    verify.add_argument(
        "--pin",
        metavar=_FILE,
        help='JSON pins: {"pcr0".."pcr3": hex, "manifest_hash": hex, "approval_threshold": int}',
    )
    verify.add_argument(
        "--app-proof",
        metavar=_FILE,
        help="also verify this app proof (JSON) against the boot proof",
    )
    verify.add_argument(
        "--now",
        metavar="TIME",
        help="verify the certificates at this time (Unix seconds or ISO 8601 with zone; "
        "default: now; Nitro certificates last hours)",
    )
    verify.set_defaults(handler=_cmd_proofs_verify)
