"""Stamps (``Service-Wallet-Signature``, formats.md section 4): creation, what verification accepts,
and what it rejects with each code (the batch verifier and the client-side payload binding are
in test_stamps_batch.py)."""

from __future__ import annotations

import itertools
import json

import embedded_wallet_crypto as ewc
import pytest
from _stamps_support import (
    INVALID,
    KEY,
    KEY_MISMATCH,
    MALFORMED,
    MISSING,
    OTHER,
    PAYLOAD,
    SCHEME,
    N,
    _b64url,
    _both_s,
    _code,
    _decode,
    _fields,
    _stamp,
)
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

# --- creation --------------------------------------------------------------------------------


def test_create_writes_the_canonical_form() -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    assert "=" not in stamp and set(stamp) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    raw = _decode(stamp)
    fields = json.loads(raw)
    assert list(fields) == ["publicKey", "scheme", "signature"]
    assert raw == json.dumps(fields, separators=(",", ":")).encode(), "no whitespace"
    assert fields["publicKey"] == KEY.public_key_hex(compressed=True)
    assert fields["scheme"] == SCHEME == ewc.stamps.SCHEME
    signature = bytes.fromhex(fields["signature"])
    assert fields["signature"] == signature.hex(), "lowercase hex"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), KEY.public_key_bytes())
    public.verify(signature, PAYLOAD, ec.ECDSA(hashes.SHA256()))  # raises if wrong


@pytest.mark.parametrize("payload", ["", "ascii", "caf\u00e9 \u2615 \u6771\u4eac"])
def test_a_str_payload_means_its_utf8_bytes(payload: str) -> None:
    stamp = ewc.create_stamp(payload, KEY)
    for form in (payload, payload.encode(), bytearray(payload.encode())):
        assert ewc.verify_stamp(stamp, form).public_key == KEY.public_key_hex(compressed=True)
    assert ewc.verify_stamp(stamp, memoryview(payload.encode())).scheme == SCHEME


def test_verify_returns_the_stamp_fields() -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    verified = ewc.verify_stamp(stamp, PAYLOAD)
    assert verified == ewc.Stamp(
        public_key=KEY.public_key_hex(compressed=True),
        scheme=SCHEME,
        signature=bytes.fromhex(json.loads(_decode(stamp))["signature"]),
    )
    assert ewc.verify_signature(verified.public_key, PAYLOAD, verified.signature)


# --- what verification accepts ---------------------------------------------------------------


@pytest.mark.parametrize(
    "order", list(itertools.permutations(["publicKey", "scheme", "signature"]))
)
def test_every_key_order_verifies(order: tuple[str, ...]) -> None:
    fields = _fields()
    assert ewc.verify_stamp(_stamp({name: fields[name] for name in order}), PAYLOAD)


@pytest.mark.parametrize(
    "layout",
    [
        '{{ "publicKey" : "{publicKey}" , "scheme" : "{scheme}" , "signature" : "{signature}" }}',
        '{{\n\t"publicKey":"{publicKey}",\r\n"scheme":"{scheme}",\n  "signature":"{signature}"\n}}',
        '\n  {{"publicKey":"{publicKey}","scheme":"{scheme}","signature":"{signature}"}}  \n',
    ],
    ids=["spaces", "newlines-tabs", "surrounding"],
)
def test_json_whitespace_is_insignificant(layout: str) -> None:
    assert ewc.verify_stamp(_stamp(layout.format(**_fields())), PAYLOAD)


def _unpadded_stamp(remainder: int) -> tuple[str, bytes]:
    """An unpadded canonical stamp whose length is ``remainder`` mod 4 (2: needs '==', 3: needs
    '=', 0: needs none), and its payload. The signature's DER length (70-72 bytes) varies."""
    for index in range(1000):
        payload = f"payload-{index}".encode()
        stamp = _stamp(_fields(payload=payload))
        if len(stamp) % 4 == remainder:
            return stamp, payload
    raise AssertionError("no signature of the needed length in 1000 tries")


@pytest.mark.parametrize("remainder", [0, 2, 3])
def test_padded_and_unpadded_base64url_verify(remainder: int) -> None:
    stamp, payload = _unpadded_stamp(remainder)
    padded = stamp + "=" * (-len(stamp) % 4)
    assert padded.count("=") == {0: 0, 2: 2, 3: 1}[remainder]
    assert ewc.verify_stamp(stamp, payload) == ewc.verify_stamp(padded, payload)


def test_high_s_and_low_s_verify() -> None:
    low, high = _both_s(KEY.sign(PAYLOAD))
    for signature in (low, high):
        verified = ewc.verify_stamp(_stamp({**_fields(), "signature": signature.hex()}), PAYLOAD)
        assert verified.signature == signature


def test_upper_case_hex_verifies_and_is_reported_lowercase() -> None:
    fields = _fields()
    upper = {name: value.upper() if name != "scheme" else value for name, value in fields.items()}
    verified = ewc.verify_stamp(_stamp(upper), PAYLOAD)
    assert verified.public_key == fields["publicKey"]


@pytest.mark.parametrize(
    "expected",
    [
        KEY.public_key_hex(compressed=True),
        KEY.public_key_hex(),
        KEY.public_key_hex().upper(),
        KEY.public_key_bytes(),
        KEY.public_key_bytes(compressed=True),
    ],
)
def test_the_expected_key_in_any_encoding(expected: str | bytes) -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    assert ewc.verify_stamp(stamp, PAYLOAD, expected_public_key=expected)


def test_sandbox_value_only_in_sandbox_mode() -> None:
    sandboxed = ewc.verify_stamp("sandbox-valid-signature", PAYLOAD, sandbox=True)
    assert sandboxed.public_key == "" and sandboxed.signature == b""
    assert _code("sandbox-valid-signature") == MALFORMED
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    assert ewc.verify_stamp(stamp, PAYLOAD, sandbox=True).public_key, "real stamps still verify"
    assert _code(stamp, PAYLOAD + b" ", sandbox=True) == INVALID
    assert _code("", sandbox=True) == MISSING


# --- what verification rejects, with its code ------------------------------------------------


@pytest.mark.parametrize("stamp", ["", None])
def test_missing(stamp: str | None) -> None:
    assert _code(stamp) == MISSING


@pytest.mark.parametrize(
    "payload",
    [
        PAYLOAD[:-1] + b"]",
        PAYLOAD + b"\n",
        b" " + PAYLOAD,
        json.dumps(json.loads(PAYLOAD)).encode(),
        PAYLOAD.replace(b"1700000000000", b"1700000000001"),
        b"",
    ],
    ids=["one-byte", "trailing-newline", "leading-space", "reserialised", "digit", "empty"],
)
def test_a_signature_over_other_bytes_is_invalid(payload: bytes) -> None:
    assert _code(ewc.create_stamp(PAYLOAD, KEY), payload) == INVALID


def test_payload_is_never_normalised() -> None:
    """The exact bytes are signed: a BOM, CRLF or NFC/NFD difference is another payload."""
    text = "caf\u00e9\r\n"
    stamp = ewc.create_stamp(text, KEY)
    for other in ("\ufeff" + text, text.replace("\r\n", "\n"), "cafe\u0301\r\n"):
        assert _code(stamp, other) == INVALID


def test_invalid_signatures() -> None:
    fields = _fields()
    r, s = decode_dss_signature(bytes.fromhex(fields["signature"]))
    for signature in (
        OTHER.sign(PAYLOAD),
        encode_dss_signature(r, s ^ 1),
        encode_dss_signature(0, s),
        encode_dss_signature(r, N),
    ):
        assert _code(_stamp({**fields, "signature": signature.hex()})) == INVALID
    assert _code(_stamp({**fields, "publicKey": OTHER.public_key_hex(compressed=True)})) == INVALID


def test_a_valid_stamp_by_another_key_is_a_key_mismatch() -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    for expected in (OTHER.public_key_hex(compressed=True), OTHER.public_key_hex()):
        assert _code(stamp, expected_public_key=expected) == KEY_MISMATCH
    # A signature that does not verify is INVALID whatever the expected key.
    assert _code(stamp, PAYLOAD + b"x", expected_public_key=OTHER.public_key_hex()) == INVALID


def test_a_malformed_expected_key_is_the_callers_error() -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    for bad in ("04" + "00" * 64, "zz", "02" + "ff" * 32, b"\x04"):
        with pytest.raises(ewc.InvalidKey):
            ewc.verify_stamp(stamp, PAYLOAD, expected_public_key=bad)


def _der_variants(signature: bytes) -> dict[str, bytes]:
    body = signature[2:]
    r_length = body[1]
    r_content, s_tlv = body[2 : 2 + r_length], body[2 + r_length :]
    return {
        "ber-long-form": b"\x30\x81" + bytes([len(body)]) + body,
        "non-minimal-r": b"\x30" + bytes([len(body) + 1, 2, r_length + 1, 0]) + r_content + s_tlv,
        "trailing-byte": signature + b"\x00",
        "truncated": signature[:-1],
        "p1363": bytes(64),
        "set-tag": b"\x31" + signature[1:],
        "empty": b"",
    }


@pytest.mark.parametrize("variant", list(_der_variants(KEY.sign(PAYLOAD))))
def test_signatures_that_are_not_strict_der_are_malformed(variant: str) -> None:
    fields = _fields()
    signature = _der_variants(bytes.fromhex(fields["signature"]))[variant]
    assert _code(_stamp({**fields, "signature": signature.hex()})) == MALFORMED


def _x_without_point() -> int:
    p = 2**256 - 2**224 + 2**192 + 2**96 - 1
    b = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
    x = 0
    while True:
        rhs = (x**3 - 3 * x + b) % p
        if pow(rhs, (p - 1) // 2, p) == p - 1:
            return x
        x += 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scheme", "SIGNATURE_SCHEME_TK_API_ED25519"),
        ("scheme", SCHEME.lower()),
        ("scheme", ""),
        ("publicKey", KEY.public_key_hex()),
        ("publicKey", "02" + f"{_x_without_point():064x}"),
        ("publicKey", "04" + KEY.public_key_hex(compressed=True)[2:]),
        ("publicKey", "zz" + KEY.public_key_hex(compressed=True)[2:]),
        ("publicKey", ""),
        ("signature", "zz"),
        ("signature", "3"),
    ],
    ids=[
        "unknown-scheme",
        "scheme-lower-case",
        "scheme-empty",
        "uncompressed-key",
        "key-not-a-point",
        "key-prefix-04",
        "key-not-hex",
        "key-empty",
        "signature-not-hex",
        "signature-odd-hex",
    ],
)
def test_malformed_fields(field: str, value: str) -> None:
    assert _code(_stamp({**_fields(), field: value})) == MALFORMED


def _malformed_json() -> dict[str, str]:
    fields = _fields()
    compact = json.dumps(fields, separators=(",", ":"))
    return {
        "duplicate-same-value": compact[:-1] + f',"publicKey":"{fields["publicKey"]}"}}',
        "duplicate-valid-last": '{"signature":"00",' + compact[1:],
        "unknown-field": compact[:-1] + ',"timestampMs":"1"}',
        "missing-field": json.dumps({"publicKey": fields["publicKey"], "scheme": SCHEME}),
        "null-value": compact.replace(f'"{SCHEME}"', "null"),
        "number-value": compact.replace(f'"{fields["signature"]}"', "7"),
        "nested-object": compact.replace(f'"{SCHEME}"', f'{{"name":"{SCHEME}"}}'),
        "json-string": json.dumps(compact),
        "not-json": "publicKey=" + fields["publicKey"],
        "trailing-garbage": compact + "x",
        "two-objects": compact + compact,
        "empty-object": "{}",
        "deeply-nested": "[" * 5000 + "]" * 5000,
        "bom": "\ufeff" + compact,
        "lone-surrogate-escape": compact.replace(SCHEME, "\\ud800"),
    }


@pytest.mark.parametrize("variant", list(_malformed_json()))
def test_malformed_json(variant: str) -> None:
    assert _code(_stamp(_malformed_json()[variant])) == MALFORMED


def test_a_json_array_is_not_a_stamp() -> None:
    """CORE BUG (rust/core/src/stamp.rs): serde's derived Deserialize for ``StampJson`` also
    accepts a JSON array of three strings, so ``["<key>", "<scheme>", "<sig>"]`` verifies.
    formats.md section 4 and the core's own reason require a JSON object."""
    fields = _fields()
    array = json.dumps([fields["publicKey"], fields["scheme"], fields["signature"]])
    assert _code(_stamp(array)) == MALFORMED


def test_invalid_utf8_in_the_json_is_malformed() -> None:
    raw = (
        json.dumps(_fields(), separators=(",", ":")).encode().replace(b"SIGNATURE", b"SIGN\xffTURE")
    )
    assert _code(_b64url(raw)) == MALFORMED


def test_base64url_rules() -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    middle = len(stamp) // 2
    padded = stamp + "=" * (-len(stamp) % 4)
    bad = {
        "plus": stamp[:middle] + "+" + stamp[middle + 1 :],
        "slash": stamp[:middle] + "/" + stamp[middle + 1 :],
        "bang": stamp[:middle] + "!" + stamp[middle + 1 :],
        "newline-inside": stamp[:middle] + "\n" + stamp[middle:],
        "trailing-newline": stamp + "\n",
        "leading-space": " " + stamp,
        "excess-padding": padded + "====",
        "truncated": stamp[:-1],
        "only-padding": "====",
        "non-ascii": stamp[:middle] + "\u00e9" + stamp[middle + 1 :],
    }
    for name, value in bad.items():
        assert _code(value) == MALFORMED, name


def test_partial_padding_is_malformed() -> None:
    """CORE BUG (rust/core/src/stamp.rs): ``DecodePaddingMode::Indifferent`` also accepts a
    stamp with one '=' where the padded form has two, a third encoding of the same stamp;
    formats.md section 4 accepts the padded and the unpadded form only."""
    stamp, payload = _unpadded_stamp(2)
    assert ewc.verify_stamp(stamp + "==", payload)
    assert _code(stamp + "=", payload) == MALFORMED


@pytest.mark.parametrize("remainder", [2, 3])
def test_non_canonical_trailing_bits_are_malformed(remainder: int) -> None:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    stamp, payload = _unpadded_stamp(remainder)
    changed = stamp[:-1] + alphabet[alphabet.index(stamp[-1]) | 1]
    assert _code(changed, payload) == MALFORMED
    assert _code(changed + "=" * (-len(changed) % 4), payload) == MALFORMED
