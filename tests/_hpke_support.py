"""What the HPKE test files share (loaded by conftest.py as a pytest plugin): the plaintext
they seal and the ``recipient`` fixture, a key pair derived from a fixed IKM."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import hpke

PLAINTEXT = b"the 32-byte session signing key!"


@pytest.fixture(scope="module")
def recipient() -> ewc.KeyPair:
    return hpke.derive_key_pair(b"recipient ikm for the hpke tests")
