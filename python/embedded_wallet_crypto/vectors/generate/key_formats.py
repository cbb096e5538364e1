"""key_formats.json: private-key text formats (formats.md section 13) and the typed export
opens."""

from __future__ import annotations

from typing import Any

from . import _envelope_writer as w
from . import _key_format_reference as kf
from . import _reference as ref
from ._common import Case, case, key, seal, stream, vector_file

DESCRIPTION = (
    "Private-key formats (formats.md section 13). private_key_encode: the text of a 32-byte "
    "key (hex lowercase without 0x; Solana base58 of seed || Ed25519 public key; compressed WIF "
    "base58check of 0x80/0xef || key || 01; Sui bech32 'suiprivkey' of 00 || key). "
    "private_key_decode: the 32 bytes back, or the stable DecodeError code. export_open_typed: "
    "an export envelope opened to the key text in key_format, or (key_format null) to the "
    "checked mnemonic text."
)
FORMATS = ["HEXADECIMAL", "SOLANA", "BITCOIN_MAINNET_WIF", "BITCOIN_TESTNET_WIF", "SUI_BECH32"]
ORG = "org-vectors"
SIGNER = "key-formats-signer"
CLIENT = "key-formats-client"


def _keys() -> list[tuple[str, bytes]]:
    return [
        ("stream", stream("key-formats/key", 32)),
        ("low", bytes(31) + b"\x01"),
        ("high", b"\xff" * 32),
        ("leading-zero", b"\x00" + stream("key-formats/leading-zero", 31)),
    ]


def _encode_cases() -> list[Case]:
    cases = [
        case(
            f"encode-{fmt.lower().replace('_', '-')}-{label}",
            "private_key_encode",
            {"private_key": raw.hex(), "key_format": fmt},
            expected={"text": kf.encode(raw, fmt)},
        )
        for fmt in FORMATS
        for label, raw in _keys()
    ]
    for fmt in FORMATS:
        for length in (31, 33):
            cases.append(
                case(
                    f"encode-{fmt.lower().replace('_', '-')}-{length}-bytes",
                    "private_key_encode",
                    {"private_key": stream("key-formats/short", length).hex(), "key_format": fmt},
                    error="INVALID_LENGTH",
                    comment=f"a {length}-byte key",
                )
            )
    return cases


def _decode(
    case_id: str, text: str, fmt: str, raw: bytes | None, error: str | None, comment: str
) -> Case:
    expected = {"private_key": raw.hex()} if raw is not None else None
    return case(
        f"decode-{case_id}", "private_key_decode", {"text": text, "key_format": fmt},
        expected=expected, error=error, comment=comment,
    )  # fmt: skip


def _decode_cases() -> list[Case]:
    raw = stream("key-formats/key", 32)
    other = stream("key-formats/other", 32)
    sui = kf.encode(raw, "SUI_BECH32")
    wif = kf.encode(raw, "BITCOIN_MAINNET_WIF")
    cases = [
        _decode(f"{fmt.lower().replace('_', '-')}", kf.encode(raw, fmt), fmt, raw, None,
                "the encoding of the stream key")
        for fmt in FORMATS
    ]  # fmt: skip
    table: list[tuple[str, str, str, bytes | None, str | None, str]] = [
        ("hex-0x", "0x" + raw.hex(), "HEXADECIMAL", raw, None, "hex with a 0x prefix"),
        ("hex-upper", "0X" + raw.hex().upper(), "HEXADECIMAL", raw, None, "upper-case hex, 0X"),
        ("hex-not-hex", "zz" + raw.hex()[2:], "HEXADECIMAL", None, "INVALID_HEX", "not hex"),
        ("hex-space", raw.hex() + " ", "HEXADECIMAL", None, "INVALID_HEX", "a trailing space"),
        ("hex-short", raw.hex()[:-2], "HEXADECIMAL", None, "INVALID_LENGTH", "31 bytes"),
        ("solana-bad-char", "0" + kf.encode(raw, "SOLANA")[1:], "SOLANA", None, "INVALID_BASE58",
         "a 0, outside the base58 alphabet"),
        ("solana-32-bytes", ref.b58encode(raw), "SOLANA", None, "INVALID_LENGTH",
         "only the seed, no public half"),
        ("solana-mismatched-half", ref.b58encode(raw + kf.ed25519_public_key(other)), "SOLANA",
         None, "SOLANA_PUBLIC_KEY_MISMATCH", "the public half of another seed"),
        ("wif-bad-checksum", wif[:-3] + ("XXX" if not wif.endswith("XXX") else "YYY"),
         "BITCOIN_MAINNET_WIF", None, "INVALID_CHECKSUM", "the checksum damaged"),
        ("wif-testnet-as-mainnet", kf.encode(raw, "BITCOIN_TESTNET_WIF"), "BITCOIN_MAINNET_WIF",
         None, "WIF_VERSION_MISMATCH", "a testnet WIF read as mainnet"),
        ("wif-mainnet-as-testnet", wif, "BITCOIN_TESTNET_WIF", None, "WIF_VERSION_MISMATCH",
         "a mainnet WIF read as testnet"),
        ("wif-uncompressed", ref.b58check_encode(b"\x80" + raw), "BITCOIN_MAINNET_WIF", None,
         "WIF_UNCOMPRESSED", "the uncompressed form (no 01 flag)"),
        ("wif-flag-02", ref.b58check_encode(b"\x80" + raw + b"\x02"), "BITCOIN_MAINNET_WIF",
         None, "WIF_FLAG_INVALID", "a compression flag of 02"),
        ("sui-wrong-prefix", kf.bech32_encode("sui", b"\x00" + raw), "SUI_BECH32", None,
         "SUI_PREFIX_MISMATCH", "the prefix 'sui'"),
        ("sui-flag-1", kf.bech32_encode("suiprivkey", b"\x01" + raw), "SUI_BECH32", None,
         "SUI_FLAG_UNSUPPORTED", "flag 1 (secp256k1)"),
        ("sui-bech32m", kf.bech32_encode("suiprivkey", b"\x00" + raw, constant=0x2BC830A3),
         "SUI_BECH32", None, "INVALID_CHECKSUM", "a Bech32m checksum"),
        ("sui-upper", sui.upper(), "SUI_BECH32", raw, None, "all upper case is valid bech32"),
        ("sui-mixed-case", sui[:11] + sui[11:].upper(), "SUI_BECH32", None, "INVALID_BECH32",
         "mixed case"),
        ("sui-no-key-flag", kf.bech32_encode("suiprivkey", raw), "SUI_BECH32", None,
         "INVALID_LENGTH", "32 bytes without the flag"),
    ]  # fmt: skip
    cases += [_decode(*row) for row in table]
    return cases


def _export(secret: bytes, label: str) -> str:
    client_public = key(CLIENT)[1]
    enc, ciphertext = seal(client_public, secret, f"key-formats/export/{label}")
    data = w.compact(
        {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex(), "organizationId": ORG}
    )
    return w.envelope(data, SIGNER)


def _typed(
    case_id: str,
    bundle: str,
    fmt: str | None,
    text: str | None,
    error: str | None,
    comment: str,
    *,
    signer: str = SIGNER,
) -> Case:
    inputs = {
        "bundle": bundle,
        "client_private_key": w.private_hex(CLIENT),
        "key_format": fmt,
        "organization_id": ORG,
        "signer_public_key": w.public_hex(signer),
        "sandbox": False,
    }
    expected = {"text": text} if text is not None else None
    return case(f"typed-open-{case_id}", "export_open_typed", inputs, expected=expected,
                error=error, comment=comment)  # fmt: skip


def _typed_cases() -> list[Case]:
    raw = stream("key-formats/exported", 32)
    key_bundle = _export(raw, "key")
    words = kf.mnemonic(stream("key-formats/entropy", 32))
    wallet = _export(words.encode(), "wallet")
    with_passphrase = _export((words + "\npassphrase é").encode(), "passphrase")
    damaged = _export(kf.damaged_mnemonic(words).encode(), "damaged")
    cases = [
        _typed(f"key-{fmt.lower().replace('_', '-')}", key_bundle, fmt, kf.encode(raw, fmt),
               None, "a key export shown in this format")
        for fmt in FORMATS
    ]  # fmt: skip
    cases += [
        _typed("mnemonic", wallet, None, words, None, "a 24-word wallet export"),
        _typed("mnemonic-passphrase", with_passphrase, None, words + "\npassphrase é", None,
               "a wallet with a passphrase: the text as exported"),
        _typed("mnemonic-checksum", damaged, None, None, "MNEMONIC_CHECKSUM",
               "the last word replaced"),
        _typed("key-as-mnemonic", key_bundle, None, None, "MNEMONIC_NOT_TEXT",
               "a key export opened as a wallet"),
        _typed("mnemonic-as-key", wallet, "HEXADECIMAL", None, "INVALID_LENGTH",
               "a wallet export opened as a key"),
        _typed("wrong-signer", key_bundle, "SOLANA", None, w.NOT_PINNED,
               "pinned to another signer: the envelope checks come first",
               signer="key-formats-other"),
    ]  # fmt: skip
    return cases


def build() -> dict[str, Any]:
    return vector_file(DESCRIPTION, _encode_cases() + _decode_cases() + _typed_cases())
