"""App and boot proofs (formats.md section 16): what an enclave signed, and which enclave.

- :func:`verify_app_proof`: the enclave's ephemeral P-256 key signed ``proofPayload``
  (checked in the Rust core).
- :func:`verify_boot_proof`: an AWS Nitro attestation document, its certificate chain to the
  pinned AWS Nitro root (``cryptography``'s X.509 path validation) and its ES384 COSE_Sign1
  signature.
- :func:`verify_app_proof_against_boot_proof`: both, plus the binding: the attested key is the
  app proof's key and the document's user data is the hash of the QOS manifest.

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

__all__ = [
    "APP_PROOF_SCHEME",
    "AWS_NITRO_ROOT_PEM",
    "AWS_NITRO_ROOT_SHA256",
    "MAX_PROOF_LENGTH",
    "AppProof",
    "BootProof",
    "ProofError",
    "verify_app_proof",
    "verify_app_proof_against_boot_proof",
    "verify_boot_proof",
]
