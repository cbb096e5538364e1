"""Trezor's BIP-39 English vectors and word list (shared/upstream-vectors/bip39, see SOURCES.md).

Every one of the 24 ``[entropy, mnemonic, seed, xprv]`` vectors goes through every public
function that takes or makes a mnemonic:

- ``ewc.mnemonic_from_entropy(entropy)`` gives the mnemonic; ``ewc.mnemonic_to_entropy`` gives
  the entropy back; ``ewc.check_mnemonic`` / ``ewc.is_valid_mnemonic`` accept it;
- ``ewc.mnemonic_to_seed(mnemonic, "TREZOR")`` gives the seed (Trezor's tests use that
  passphrase);
- the wallet paths that carry a mnemonic: ``ewc.encrypt_wallet_to_bundle`` and
  ``ewc.open_import_bundle`` (import), ``ewc.seal_export_bundle`` and
  ``ewc.open_export_mnemonic`` (export), each returning the vector's mnemonic;
- the same mnemonic with its last word changed to the next word of the list (a wrong checksum
  for 23 of 24 vectors; counted apart when the change keeps the checksum) is refused with
  ``MNEMONIC_CHECKSUM`` by the checking functions.

The xprv column (BIP-32 master key) is not derived by the library and is counted as
not applicable. The packaged word list must be the upstream list byte for byte.
"""

from __future__ import annotations

import hashlib
from importlib import resources

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts, upstream_file

pytestmark = pytest.mark.upstream

VECTORS_FILE = "bip39/trezor_vectors_english.json"
WORDLIST_FILE = "bip39/english.txt"
PASSPHRASE = "TREZOR"
ORG, USER = "org-bip39", "user-bip39"
SIGNER = ewc.KeyPair.from_private_bytes(bytes([39]) * 32)
TARGET = ewc.KeyPair.from_private_bytes(bytes([40]) * 32)
CLIENT = ewc.KeyPair.from_private_bytes(bytes([41]) * 32)


def test_packaged_word_list_is_the_upstream_list() -> None:
    upstream = upstream_file(WORDLIST_FILE).read_bytes()
    packaged = resources.files("embedded_wallet_crypto") / "data" / "bip39_english.txt"
    assert packaged.read_bytes() == upstream
    assert hashlib.sha256(upstream).hexdigest() == (
        "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
    )
    report_counts(WORDLIST_FILE, words=len(upstream.split()))


def _next_word(word: str, words: list[str]) -> str:
    return words[(words.index(word) + 1) % len(words)]


def test_trezor_english_vectors() -> None:
    vectors = load_upstream_json(VECTORS_FILE)["english"]
    assert len(vectors) == 24, f"expected Trezor's 24 English vectors, got {len(vectors)}"
    words = upstream_file(WORDLIST_FILE).read_text().split()
    import_bundle = ewc.seal_import_bundle(
        TARGET.public_key_hex(), organization_id=ORG, user_id=USER, signer=SIGNER
    )
    failures: list[str] = []
    counts = {"vectors": 0, "calls": 0, "checksum_refusals": 0, "checksum_kept": 0, "xprv_na": 0}

    def check(case: str, got: object, expected: object) -> None:
        counts["calls"] += 1
        if got != expected:
            failures.append(f"{case}: got {got!r}, expected {expected!r}")

    for index, (entropy_hex, mnemonic, seed_hex, _xprv) in enumerate(vectors):
        case = f"vector {index} ({len(mnemonic.split())} words)"
        entropy = bytes.fromhex(entropy_hex)
        check(f"{case} mnemonic_from_entropy", ewc.mnemonic_from_entropy(entropy), mnemonic)
        check(f"{case} from bytearray", ewc.mnemonic_from_entropy(bytearray(entropy)), mnemonic)
        check(f"{case} mnemonic_to_entropy", ewc.mnemonic_to_entropy(mnemonic), entropy)
        check(f"{case} to_entropy of bytes", ewc.mnemonic_to_entropy(mnemonic.encode()), entropy)
        check(f"{case} check_mnemonic", ewc.check_mnemonic(mnemonic), mnemonic)
        check(f"{case} is_valid_mnemonic", ewc.is_valid_mnemonic(mnemonic), True)
        seed = ewc.mnemonic_to_seed(mnemonic, PASSPHRASE)
        check(f"{case} mnemonic_to_seed", seed.hex(), seed_hex)
        # Any whitespace between the words: the same words, the same seed.
        spaced = "\n " + mnemonic.replace(" ", " \t ") + "\n"
        check(f"{case} seed of re-spaced words", ewc.mnemonic_to_seed(spaced, PASSPHRASE), seed)

        sealed = ewc.encrypt_wallet_to_bundle(
            import_bundle,
            mnemonic,
            organization_id=ORG,
            user_id=USER,
            signer_public_key=SIGNER.public_key_hex(),
        )
        check(f"{case} import", ewc.open_import_bundle(sealed, TARGET), mnemonic.encode())
        exported = ewc.seal_export_bundle(
            CLIENT.public_key_hex(), mnemonic, organization_id=ORG, signer=SIGNER
        )
        opened = ewc.open_export_mnemonic(
            exported, CLIENT, organization_id=ORG, signer_public_key=SIGNER.public_key_hex()
        )
        check(f"{case} export", opened, mnemonic)

        damaged_words = mnemonic.split()
        damaged_words[-1] = _next_word(damaged_words[-1], words)
        damaged = " ".join(damaged_words)
        try:
            ewc.mnemonic_to_entropy(damaged)
        except ewc.DecodeError as error:
            check(f"{case} damaged: code", error.code, "MNEMONIC_CHECKSUM")
            check(f"{case} damaged: is_valid", ewc.is_valid_mnemonic(damaged), False)
            for call in (ewc.check_mnemonic, ewc.mnemonic_to_seed):
                with pytest.raises(ewc.DecodeError, match="checksum"):
                    call(damaged)
            counts["checksum_refusals"] += 1
        else:
            # The next word kept the checksum bits (possible when they are few): still valid,
            # and the mnemonic of its own entropy.
            check(
                f"{case} damaged kept",
                ewc.mnemonic_from_entropy(ewc.mnemonic_to_entropy(damaged)),
                damaged,
            )
            counts["checksum_kept"] += 1
        counts["xprv_na"] += 1
        counts["vectors"] += 1

    report_counts(VECTORS_FILE, **counts)
    assert not failures, f"{len(failures)} BIP-39 mismatches:\n" + "\n".join(failures)
