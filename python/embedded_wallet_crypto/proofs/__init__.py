"""App and boot proofs (formats.md section 16): what an enclave signed, and which enclave.

- :func:`verify_app_proof`: the enclave's ephemeral P-256 key signed ``proofPayload``
  (checked in the Rust core).
- :func:`verify_boot_proof`: an AWS Nitro attestation document, its certificate chain to the
  pinned AWS Nitro root (``cryptography``'s X.509 path validation) and its ES384 COSE_Sign1
  signature; given the whole boot proof, also its QOS manifest (:class:`QosManifest`: bound by
  hash, its PCRs the document's, its approvals valid) and the values an auditor pins.
- :func:`verify_app_proof_against_boot_proof`: both, plus the binding: the attested key is the
  app proof's key.

Every failure is a :class:`~embedded_wallet_crypto.errors.ProofError` whose ``code`` names the
check.
"""

from __future__ import annotations

from ..errors import ProofError
from ._app import APP_PROOF_SCHEME, AppProof, verify_app_proof
from ._boot import (
    AWS_NITRO_ROOT_PEM,
    AWS_NITRO_ROOT_SHA256,
    BootProof,
    verify_app_proof_against_boot_proof,
    verify_boot_proof,
)
from ._common import MAX_PROOF_LENGTH
from ._manifest import PatchSet, QosManifest, QuorumMember, QuorumSet
from ._pins import PIN_NAMES

__all__ = [
    "APP_PROOF_SCHEME",
    "AWS_NITRO_ROOT_PEM",
    "AWS_NITRO_ROOT_SHA256",
    "MAX_PROOF_LENGTH",
    "PIN_NAMES",
    "AppProof",
    "BootProof",
    "PatchSet",
    "ProofError",
    "QosManifest",
    "QuorumMember",
    "QuorumSet",
    "verify_app_proof",
    "verify_app_proof_against_boot_proof",
    "verify_boot_proof",
]
