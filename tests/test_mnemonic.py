"""The public BIP-39 functions (``ewc.generate_mnemonic``, ``ewc.mnemonic_from_entropy``,
``ewc.mnemonic_to_entropy``, ``ewc.mnemonic_to_seed``): their refusals with codes, their types,
and round trips on drawn entropy checked against a reference written here from the BIP. The
upstream known answers are in ``test_upstream_bip39.py``."""

from __future__ import annotations

import hashlib
import unicodedata
from importlib import resources

import embedded_wallet_crypto as ewc
import pytest
from hypothesis import given
from hypothesis import strategies as st

WORDS = (
    (resources.files("embedded_wallet_crypto") / "data" / "bip39_english.txt").read_text().split()
)
ABOUT = "abandon " * 11 + "about"


def reference_mnemonic(entropy: bytes) -> str:
    """BIP-39 written out with bit strings, independent of the library's integer arithmetic."""
    bits = "".join(f"{byte:08b}" for byte in entropy)
    bits += "".join(f"{byte:08b}" for byte in hashlib.sha256(entropy).digest())[
        : len(entropy) * 8 // 32
    ]
    return " ".join(WORDS[int(bits[i : i + 11], 2)] for i in range(0, len(bits), 11))


def code_of(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(ewc.DecodeError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return caught.value.code


ENTROPY = st.sampled_from([16, 20, 24, 28, 32]).flatmap(lambda n: st.binary(min_size=n, max_size=n))


@given(entropy=ENTROPY)
def test_entropy_round_trip_matches_the_reference(entropy: bytes) -> None:
    mnemonic = ewc.mnemonic_from_entropy(entropy)
    assert mnemonic == reference_mnemonic(entropy)
    assert len(mnemonic.split()) == len(entropy) * 3 // 4
    assert ewc.mnemonic_to_entropy(mnemonic) == entropy
    assert ewc.mnemonic_to_entropy(memoryview(mnemonic.encode())) == entropy


@given(passphrase=st.text(max_size=20))
def test_seed_matches_pbkdf2_written_here(passphrase: str) -> None:
    salt = unicodedata.normalize("NFKD", "mnemonic" + passphrase).encode()
    expected = hashlib.pbkdf2_hmac("sha512", ABOUT.encode(), salt, 2048)
    assert ewc.mnemonic_to_seed(ABOUT, passphrase) == expected
    assert len(expected) == 64


def test_passphrase_with_a_lone_surrogate_is_refused() -> None:
    code = code_of(ewc.mnemonic_to_seed, ABOUT, "pass\ud800")
    assert code == "MNEMONIC_PASSPHRASE_NOT_TEXT"


def test_seed_normalizes_the_passphrase() -> None:
    # U+00E9 and "e" + U+0301 are the same passphrase after NFKD.
    assert ewc.mnemonic_to_seed(ABOUT, "caf\u00e9") == ewc.mnemonic_to_seed(ABOUT, "cafe\u0301")
    assert ewc.mnemonic_to_seed(ABOUT) == ewc.mnemonic_to_seed(ABOUT, "")
    assert ewc.mnemonic_to_seed(ABOUT) != ewc.mnemonic_to_seed(ABOUT, " ")


@pytest.mark.parametrize("words", ewc.MNEMONIC_WORD_COUNTS)
def test_generate_mnemonic(words: int) -> None:
    made = {ewc.generate_mnemonic(words=words) for _ in range(8)}
    assert len(made) == 8  # fresh randomness each time
    for mnemonic in made:
        assert len(mnemonic.split()) == words
        assert ewc.check_mnemonic(mnemonic) == mnemonic
        entropy = ewc.mnemonic_to_entropy(mnemonic)
        assert len(entropy) == words * 4 // 3
        assert ewc.mnemonic_from_entropy(entropy) == mnemonic
    assert len(ewc.generate_mnemonic().split()) == 12


@pytest.mark.parametrize("words", [0, 11, 13, 25, -12, 2**70])
def test_generate_mnemonic_refuses_other_counts(words: int) -> None:
    assert code_of(ewc.generate_mnemonic, words=words) == "MNEMONIC_WORD_COUNT"


@pytest.mark.parametrize("length", [0, 1, 15, 17, 31, 33, 64])
def test_entropy_of_another_length_is_refused(length: int) -> None:
    code = code_of(ewc.mnemonic_from_entropy, bytes(length))
    assert code == "MNEMONIC_ENTROPY_LENGTH"


@pytest.mark.parametrize(
    ("mnemonic", "code"),
    [
        ("abandon " * 12, "MNEMONIC_CHECKSUM"),
        (ABOUT.replace("about", "About"), "MNEMONIC_UNKNOWN_WORD"),
        (ABOUT + " about", "MNEMONIC_WORD_COUNT"),
        ("", "MNEMONIC_WORD_COUNT"),
        (b"\xc3\x28", "MNEMONIC_NOT_TEXT"),
    ],
)
def test_damaged_mnemonics_are_refused_by_every_function(mnemonic: str | bytes, code: str) -> None:
    for call in (ewc.check_mnemonic, ewc.mnemonic_to_entropy, ewc.mnemonic_to_seed):
        assert code_of(call, mnemonic) == code, call
    assert not ewc.is_valid_mnemonic(mnemonic)


def test_reasons_never_quote_a_word() -> None:
    secret_word = "zebra"
    with pytest.raises(ewc.DecodeError) as caught:
        ewc.mnemonic_to_seed(ABOUT.replace("about", secret_word))
    assert secret_word not in str(caught.value)


def test_wrong_types_are_type_errors() -> None:
    with pytest.raises(TypeError):
        ewc.mnemonic_from_entropy("00" * 16)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.mnemonic_from_entropy(16)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.generate_mnemonic(words=12.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.generate_mnemonic(words=True)
    with pytest.raises(TypeError):
        ewc.generate_mnemonic(12)  # type: ignore[misc]
    with pytest.raises(TypeError):
        ewc.mnemonic_to_seed(ABOUT, b"TREZOR")  # type: ignore[arg-type]
    assert code_of(ewc.check_mnemonic, None) == "MNEMONIC_NOT_TEXT"


def test_export_module_keeps_its_names() -> None:
    assert ewc.export.check_mnemonic is ewc.check_mnemonic
    assert ewc.export.is_valid_mnemonic is ewc.is_valid_mnemonic
