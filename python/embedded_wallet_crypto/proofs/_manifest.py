"""The QOS manifest of a boot proof and its envelope (Borsh, the QuorumOS ``ManifestV0`` and
``ManifestEnvelope`` types of tkhq/qos ``qos_core::protocol::services::boot``), and the checks
that tie them to the attestation document: the PCRs the manifest names, its AWS root, and the
manifest set's approvals.

The encoding, field by field (all integers little-endian ``u32``; ``bytes`` and ``str`` are a
``u32`` length then the bytes; a list is a ``u32`` count then the items)::

    Manifest = namespace: {name: str, nonce: u32, quorum_key: bytes}
               pivot: {hash: 32 bytes, restart: u8 (0 Never, 1 Always), args: [str]}
               manifest_set: {threshold: u32, members: [{alias: str, pub_key: bytes}]}
               share_set: {threshold: u32, members: [{alias: str, pub_key: bytes}]}
               enclave: {pcr0, pcr1, pcr2, pcr3, aws_root_certificate: bytes, qos_commit: str}
               patch_set: {threshold: u32, members: [{pub_key: bytes}]}
    ManifestEnvelope = manifest: Manifest,
                       manifest_set_approvals: [{signature: bytes, member: {alias, pub_key}}],
                       share_set_approvals: [the same]

The manifest's hash (what the enclave puts in the document's ``user_data``) is SHA-256 of its
encoding. An approval is a P-256 ECDSA signature (64 bytes ``r || s``, SHA-256) over that
32-byte hash by the signing half (the last 65 bytes) of the member's 130-byte QOS key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import _native
from ..errors import InvalidKey
from . import _common as c
from ._borsh import Reader

__all__ = ["PatchSet", "QosManifest", "QuorumMember", "QuorumSet"]

# Bounds on what is read (real manifests are about 2 KB, with a handful of members).
_MAX_NAME = 1024
_MAX_KEY = 1024
_MAX_ARGS = 256
_MAX_ARG = 16 * 1024
_MAX_MEMBERS = 256
_MAX_PCR = 64
_MAX_CERTIFICATE = 8 * 1024
_MAX_SIGNATURE = 1024
_RESTART_POLICIES = ("Never", "Always")


@dataclass(frozen=True)
class QuorumMember:
    """A member of a QOS quorum set.

    Attributes:
        alias: the member's name as the manifest writes it (not authenticated by itself).
        public_key: the member's QOS key: 130 bytes, an uncompressed P-256 encryption key,
            then the signing key that makes approvals.
    """

    alias: str
    public_key: bytes = field(repr=False)


@dataclass(frozen=True)
class QuorumSet:
    """A threshold and the members of a manifest set or share set."""

    threshold: int
    members: tuple[QuorumMember, ...]


@dataclass(frozen=True)
class PatchSet:
    """The patch set: a threshold and its members' public keys."""

    threshold: int
    public_keys: tuple[bytes, ...]


@dataclass(frozen=True)
class QosManifest:
    """A parsed QOS manifest (the ``qosManifestB64`` of a boot proof).

    Attributes:
        hash: SHA-256 of the manifest's encoding, the value the attestation document binds in
            its ``user_data``.
        namespace: the namespace's name (for instance ``"preprod/signer"``).
        nonce: the namespace's nonce (increases with every new manifest).
        quorum_key: the namespace's quorum public key (130 bytes in QOS).
        pivot_hash: SHA-256 of the enclave application (the pivot binary), 32 bytes.
        pivot_restart: the restart policy, ``"Never"`` or ``"Always"``.
        pivot_args: the application's arguments.
        manifest_set: who approves manifests, and how many of them must.
        share_set: who holds the quorum key's shares.
        patch_set: who approves patches.
        pcr0, pcr1, pcr2, pcr3: the PCR values the enclave must show (PCR3 may be empty).
        aws_root_certificate: the DER AWS Nitro root the manifest names (may be empty).
        qos_commit: the QuorumOS commit the enclave was built from (may be empty).
    """

    hash: bytes
    namespace: str
    nonce: int
    quorum_key: bytes = field(repr=False)
    pivot_hash: bytes
    pivot_restart: str
    pivot_args: tuple[str, ...] = field(repr=False)
    manifest_set: QuorumSet
    share_set: QuorumSet = field(repr=False)
    patch_set: PatchSet = field(repr=False)
    pcr0: bytes = field(repr=False)
    pcr1: bytes = field(repr=False)
    pcr2: bytes = field(repr=False)
    pcr3: bytes = field(repr=False)
    aws_root_certificate: bytes = field(repr=False)
    qos_commit: str


@dataclass(frozen=True)
class _Approval:
    signature: bytes
    member: QuorumMember


# ---------------------------------------------------------------- decoding


def _member(reader: Reader) -> QuorumMember:
    alias = reader.string("a member's alias", _MAX_NAME)
    return QuorumMember(alias, reader.byte_vector("a member's public key", _MAX_KEY))


def _quorum_set(reader: Reader, name: str) -> QuorumSet:
    threshold = reader.u32(f"the {name} threshold")
    return QuorumSet(threshold, reader.vector(f"the {name} members", _MAX_MEMBERS, _member))


def _patch_key(reader: Reader) -> bytes:
    return reader.byte_vector("a patch set member's key", _MAX_KEY)


def _manifest(reader: Reader, digest: bytes) -> QosManifest:
    """The manifest's fields, read in the order of the encoding."""
    namespace = reader.string("the namespace name", _MAX_NAME)
    nonce = reader.u32("the namespace nonce")
    quorum_key = reader.byte_vector("the quorum key", _MAX_KEY)
    pivot_hash = reader.fixed(32, "the pivot hash")
    restart = reader.enum_tag("the restart policy", _RESTART_POLICIES)
    args = reader.vector(
        "the pivot arguments", _MAX_ARGS, lambda r: r.string("a pivot argument", _MAX_ARG)
    )
    manifest_set = _quorum_set(reader, "manifest set")
    share_set = _quorum_set(reader, "share set")
    pcr0, pcr1, pcr2, pcr3 = (reader.byte_vector(f"pcr{i}", _MAX_PCR) for i in range(4))
    root = reader.byte_vector("the AWS root", _MAX_CERTIFICATE)
    qos_commit = reader.string("the QOS commit", _MAX_NAME)
    patch_threshold = reader.u32("the patch set threshold")
    patch_keys = reader.vector("the patch set members", _MAX_MEMBERS, _patch_key)
    return QosManifest(
        hash=digest,
        namespace=namespace,
        nonce=nonce,
        quorum_key=quorum_key,
        pivot_hash=pivot_hash,
        pivot_restart=restart,
        pivot_args=args,
        manifest_set=manifest_set,
        share_set=share_set,
        patch_set=PatchSet(patch_threshold, patch_keys),
        pcr0=pcr0,
        pcr1=pcr1,
        pcr2=pcr2,
        pcr3=pcr3,
        aws_root_certificate=root,
        qos_commit=qos_commit,
    )


def parse_manifest(data: bytes) -> QosManifest:
    """The manifest encoded in exactly ``data``.

    Raises:
        ProofError: ``BOOT_PROOF_MANIFEST_MALFORMED``.
    """
    reader = Reader(data, "QOS manifest", c.BOOT_MANIFEST_MALFORMED)
    manifest = _manifest(reader, hashlib.sha256(data).digest())
    reader.end()
    return manifest


def _approval(reader: Reader) -> _Approval:
    signature = reader.byte_vector("an approval's signature", _MAX_SIGNATURE)
    return _Approval(signature, _member(reader))


def parse_envelope(data: bytes, manifest: bytes) -> tuple[_Approval, ...]:
    """The manifest-set approvals of the envelope in exactly ``data``, whose manifest must be
    ``manifest`` byte for byte.

    Raises:
        ProofError: ``BOOT_PROOF_MANIFEST_MALFORMED`` or ``BOOT_PROOF_ENVELOPE_MISMATCH``.
    """
    reader = Reader(data, "QOS manifest envelope", c.BOOT_MANIFEST_MALFORMED)
    _manifest(reader, b"")
    if data[: reader.position] != manifest:
        c.fail(c.BOOT_ENVELOPE_MISMATCH, "the envelope carries another manifest than the proof")
    approvals = reader.vector("the manifest set approvals", _MAX_MEMBERS, _approval)
    reader.vector("the share set approvals", _MAX_MEMBERS, _approval)
    reader.end()
    return approvals


# ---------------------------------------------------------------- checks


def check_pcrs(manifest: QosManifest, pcrs: Mapping[int, bytes]) -> None:
    """PCR0 to PCR2 of the document are the manifest's; PCR3 too when the manifest names one.

    Raises:
        ProofError: ``BOOT_PROOF_PCR_MISMATCH``.
    """
    expected = (manifest.pcr0, manifest.pcr1, manifest.pcr2, manifest.pcr3)
    for index, value in enumerate(expected):
        if index == 3 and not value:
            continue
        if not value or pcrs.get(index) != value:
            c.fail(c.BOOT_PCR_MISMATCH, f"PCR{index} of the document is not the manifest's")


def check_root(manifest: QosManifest, root_der: bytes) -> None:
    """The AWS root the manifest names, when it names one, is the pinned root.

    Raises:
        ProofError: ``BOOT_PROOF_MANIFEST_ROOT_MISMATCH``.
    """
    if manifest.aws_root_certificate and manifest.aws_root_certificate != root_der:
        c.fail(c.BOOT_ROOT_MISMATCH, "the manifest names another AWS root than the pinned one")


def _signature_verifies(approval: _Approval, manifest_hash: bytes) -> bool:
    key, signature = approval.member.public_key, approval.signature
    if len(key) != 130 or len(signature) != 64 or key[65] != 0x04:
        return False
    try:
        return bool(_native.verify_signature_p1363(key[65:], manifest_hash, signature))
    except InvalidKey:
        return False


def check_approvals(
    manifest: QosManifest, approvals: tuple[_Approval, ...]
) -> tuple[QuorumMember, ...]:
    """The manifest set's approvals, as QOS checks them before it boots: each one a valid
    signature over the manifest hash, by a member of the manifest set, at most one per member,
    and at least the set's threshold of them.

    Returns:
        The members who approved, in the envelope's order.

    Raises:
        ProofError: ``BOOT_PROOF_APPROVAL_INVALID``, ``BOOT_PROOF_APPROVER_UNKNOWN``,
            ``BOOT_PROOF_APPROVAL_DUPLICATE`` or ``BOOT_PROOF_APPROVALS_INSUFFICIENT``.
    """
    members = set(manifest.manifest_set.members)
    approved: list[QuorumMember] = []
    for number, approval in enumerate(approvals, start=1):
        if not _signature_verifies(approval, manifest.hash):
            c.fail(c.BOOT_APPROVAL_INVALID, f"approval {number} does not verify")
        if approval.member not in members:
            c.fail(c.BOOT_APPROVER_UNKNOWN, f"approval {number} is not by a manifest set member")
        if approval.member in approved:
            c.fail(c.BOOT_APPROVAL_DUPLICATE, f"approval {number} repeats a member's approval")
        approved.append(approval.member)
    threshold = manifest.manifest_set.threshold
    if len(approved) < threshold:
        c.fail(
            c.BOOT_APPROVALS_INSUFFICIENT,
            f"{len(approved)} manifest set approvals, the threshold is {threshold}",
        )
    return tuple(approved)
