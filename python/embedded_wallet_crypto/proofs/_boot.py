"""Boot proofs (formats.md section 16): an AWS Nitro attestation document chained to the pinned
AWS Nitro root, the QOS manifest it binds (parsed, its PCRs and approvals checked), the values
an auditor pins, and the binding of a boot proof to an app proof."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from . import _common as c
from . import _manifest
from ._app import AppProof, verify_app_proof
from ._manifest import QosManifest, QuorumMember
from ._nitro import AWS_NITRO_ROOT_PEM, AWS_NITRO_ROOT_SHA256, root_der, verify_document
from ._pins import Pins, check_pins, read_pins

__all__ = [
    "AWS_NITRO_ROOT_PEM",
    "AWS_NITRO_ROOT_SHA256",
    "BootProof",
    "verify_app_proof_against_boot_proof",
    "verify_boot_proof",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MANIFEST_MEMBERS = ("qosManifestB64", "qosManifestEnvelopeB64")


@dataclass(frozen=True)
class BootProof:
    """A verified boot proof: the AWS Nitro attestation document's fields and, when the whole
    boot proof was given, its QOS manifest.

    Attributes:
        module_id: the enclave's id (for instance ``"i-0244...-enc0199..."``).
        digest: the PCR digest, ``"SHA384"``.
        timestamp: when the Nitro hypervisor signed the document (UTC, millisecond precision).
        pcrs: platform configuration registers, index to value (PCR0 to PCR2 measure the image).
        public_key: the key the enclave put in the document (for Turnkey, the 130 bytes of the
            ephemeral encryption and signing keys), or None.
        user_data: the enclave's user data (for Turnkey, SHA-256 of its QOS manifest), or None.
        nonce: the nonce, or None.
        certificate: the DER leaf certificate that signed the document.
        not_valid_after: the end of the leaf certificate's validity (they last hours).
        manifest: the parsed QOS manifest (its hash is ``user_data``, its PCRs are the
            document's), or None when only the attestation document was given.
        manifest_approvals: the manifest set members whose approvals in the manifest envelope
            verified (at least the set's threshold of them); empty without a manifest.
    """

    module_id: str
    digest: str
    timestamp: datetime
    pcrs: dict[int, bytes] = field(repr=False)
    public_key: bytes | None
    user_data: bytes | None
    nonce: bytes | None
    certificate: bytes = field(repr=False)
    not_valid_after: datetime
    manifest: QosManifest | None = field(default=None, repr=False)
    manifest_approvals: tuple[QuorumMember, ...] = field(default=(), repr=False)


def verify_boot_proof(
    boot_proof: Mapping[str, Any] | str | bytes,
    *,
    now: datetime | None = None,
    pins: Mapping[str, Any] | None = None,
) -> BootProof:
    """Verify a boot proof (formats.md section 16) and return what it attests.

    ``boot_proof`` is either the AWS Nitro attestation document alone (its COSE_Sign1 bytes, or
    their standard base64, the boot proof's ``awsAttestationDocB64``) or the whole boot proof as
    the infrastructure returns it (a dict, or its JSON text) with ``awsAttestationDocB64``,
    ``ephemeralPublicKeyHex``, ``qosManifestB64`` and ``qosManifestEnvelopeB64`` (other members
    are not read).

    The document: a COSE_Sign1 (CBOR array, optionally tag 18) whose protected header names
    ES384; exactly the Nitro fields, well typed (``digest`` ``SHA384``, 1 to 32 PCRs of 32, 48
    or 64 bytes, a non-empty CA bundle...); the leaf certificate chained through the bundle's
    intermediates to the pinned AWS Nitro root (its SHA-256 checked), every certificate valid at
    ``now`` (the leaf must have ``CA:FALSE`` and the digitalSignature key usage); and the COSE
    signature by the leaf's P-384 key.

    The whole boot proof, then, in this order: ``ephemeralPublicKeyHex`` is the document's
    ``public_key``; the document's ``user_data`` is SHA-256 of the manifest; the manifest parses
    (the QOS Borsh encoding); the envelope parses and carries that same manifest; the document's
    PCR0, PCR1 and PCR2 are the manifest's, and PCR3 too when the manifest names one; the AWS
    root the manifest names, if any, is the pinned root; and the envelope's manifest-set
    approvals are valid signatures over the manifest hash, one per member of the manifest set,
    at least its threshold of them.

    Last, ``pins``: the values an auditor accepts, any of ``pcr0`` to ``pcr3`` and
    ``manifest_hash`` (hex) and ``approval_threshold`` (the least manifest-set threshold
    accepted; needs the whole boot proof). Each must match.

    Nitro leaf certificates are valid for a few hours, so a stored document verifies only at
    a time inside that window: auditing one later means choosing that time, for instance the
    verified app proof's ``timestamp``, and passing it as ``now``.

    Args:
        boot_proof: the attestation document, or the whole boot proof.
        now: a timezone-aware ``datetime``; None for the current time.
        pins: the pinned values (a mapping; see above), or None.

    Raises:
        ProofError: ``BOOT_PROOF_PINS_INVALID`` (checked first), ``BOOT_PROOF_MALFORMED``,
            ``BOOT_PROOF_ALGORITHM_UNSUPPORTED``, ``BOOT_PROOF_CHAIN_INVALID`` (also: a
            certificate not valid at ``now``), ``BOOT_PROOF_SIGNATURE_INVALID``; for a whole
            boot proof ``PROOF_KEY_MISMATCH``, ``BOOT_PROOF_MANIFEST_MISMATCH``,
            ``BOOT_PROOF_MANIFEST_MALFORMED``, ``BOOT_PROOF_ENVELOPE_MISMATCH``,
            ``BOOT_PROOF_PCR_MISMATCH``, ``BOOT_PROOF_MANIFEST_ROOT_MISMATCH``,
            ``BOOT_PROOF_APPROVAL_INVALID``, ``BOOT_PROOF_APPROVER_UNKNOWN``,
            ``BOOT_PROOF_APPROVAL_DUPLICATE``, ``BOOT_PROOF_APPROVALS_INSUFFICIENT``; then
            ``BOOT_PROOF_PIN_PCR_MISMATCH``, ``BOOT_PROOF_PIN_MANIFEST_MISMATCH``,
            ``BOOT_PROOF_PIN_THRESHOLD_MISMATCH``.
        TypeError: a wrong argument type, or ``now`` not an aware datetime.
    """
    checked_pins = read_pins(pins)
    whole = _whole_boot_proof(boot_proof)
    if whole is None:
        if checked_pins.need_manifest:
            c.fail(c.BOOT_PINS_INVALID, "approval_threshold needs the whole boot proof")
        return _verified(boot_proof, now, checked_pins)
    document = c.text_member(whole, "awsAttestationDocB64", "boot proof", c.BOOT_MALFORMED)
    ephemeral = c.hex_bytes(
        c.text_member(whole, "ephemeralPublicKeyHex", "boot proof", c.BOOT_MALFORMED),
        "ephemeralPublicKeyHex",
        c.BOOT_MALFORMED,
    )
    manifest, envelope = (
        c.base64_bytes(
            c.text_member(whole, name, "boot proof", c.BOOT_MALFORMED), name, c.BOOT_MALFORMED
        )
        for name in ("qosManifestB64", "qosManifestEnvelopeB64")
    )
    return _verified(document, now, checked_pins, ephemeral, manifest, envelope)


def verify_app_proof_against_boot_proof(
    app_proof: Mapping[str, Any] | str,
    boot_proof: Mapping[str, Any] | str,
    *,
    now: datetime | None = None,
    pins: Mapping[str, Any] | None = None,
) -> tuple[AppProof, BootProof]:
    """Verify an app proof, its boot proof, and that they belong together.

    ``boot_proof`` is the whole boot proof (a dict or JSON text) as :func:`verify_boot_proof`
    reads it, with its manifest and envelope. The checks: :func:`verify_app_proof`;
    :func:`verify_boot_proof` of the boot proof at ``now`` with ``pins``; and the app proof's
    ``publicKey`` is the document's ``public_key`` (the boot proof's ``ephemeralPublicKeyHex``),
    so the key that signed the app proof is the one the attested enclave generated.

    Which enclave image you accept is yours to say: pin its PCRs (``pins``), or compare
    ``BootProof.pcrs`` and ``BootProof.manifest`` with your own expected values.

    Args:
        app_proof: the app proof (dict or JSON text).
        boot_proof: the boot proof (dict or JSON text).
        now: the time at which the certificates must be valid; None for the current time (a
            stored proof usually needs ``now=`` its app proof's ``timestamp``).
        pins: as for :func:`verify_boot_proof`.

    Returns:
        The verified app proof and boot proof.

    Raises:
        ProofError: any code of the two verifiers, or ``PROOF_KEY_MISMATCH``.
        TypeError: a wrong argument type.
    """
    app = verify_app_proof(app_proof)
    boot = c.proof_object(boot_proof, "boot proof")
    attested = verify_boot_proof(boot, now=now, pins=pins)
    if app.public_key != attested.public_key:
        c.fail(
            c.KEY_MISMATCH,
            "the app proof's key, the boot proof's ephemeral key and the attested key differ",
        )
    return app, attested


def _whole_boot_proof(boot_proof: object) -> Mapping[str, Any] | None:
    """The boot proof object, or None for an attestation document alone (bytes or base64)."""
    if isinstance(boot_proof, Mapping):
        return boot_proof
    if isinstance(boot_proof, str) and boot_proof.lstrip()[:1] == "{":
        return c.proof_object(boot_proof, "boot proof")  # base64 never holds "{"
    return None


def _base64_member(proof: Mapping[str, Any], name: str) -> bytes:
    text = c.text_member(proof, name, "boot proof", c.BOOT_MALFORMED)
    return c.base64_bytes(text, name, c.BOOT_MALFORMED)


def _verified(
    document: object,
    now: object,
    pins: Pins,
    ephemeral: bytes | None = None,
    manifest_bytes: bytes | None = None,
    envelope: bytes | None = None,
) -> BootProof:
    fields, leaf = verify_document(document, now)
    manifest: QosManifest | None = None
    approvals: tuple[QuorumMember, ...] = ()
    if manifest_bytes is not None and envelope is not None:
        if ephemeral != fields["public_key"]:
            c.fail(c.KEY_MISMATCH, "the boot proof's ephemeral key is not the attested key")
        if fields["user_data"] != hashlib.sha256(manifest_bytes).digest():
            c.fail(
                c.BOOT_MANIFEST_MISMATCH, "the document's user_data is not SHA-256 of the manifest"
            )
        manifest = _manifest.parse_manifest(manifest_bytes)
        envelope_approvals = _manifest.parse_envelope(envelope, manifest_bytes)
        _manifest.check_pcrs(manifest, fields["pcrs"])
        _manifest.check_root(manifest, root_der())
        approvals = _manifest.check_approvals(manifest, envelope_approvals)
    check_pins(pins, fields["pcrs"], fields["user_data"], manifest)
    return BootProof(
        module_id=fields["module_id"],
        digest=fields["digest"],
        timestamp=_EPOCH + timedelta(milliseconds=fields["timestamp"]),
        pcrs=dict(fields["pcrs"]),
        public_key=fields["public_key"],
        user_data=fields["user_data"],
        nonce=fields["nonce"],
        certificate=fields["certificate"],
        not_valid_after=leaf.not_valid_after_utc,
        manifest=manifest,
        manifest_approvals=approvals,
    )
