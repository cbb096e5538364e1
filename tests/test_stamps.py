"""Stamps (``Service-Wallet-Signature``, formats.md section 4): every rule and every code, the
batch verifier against the single one, and the client-side payload binding (section 5)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import random

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
SCHEME = "SIGNATURE_SCHEME_TK_API_P256"
MISSING = "WALLET_SIGNATURE_MISSING"
MALFORMED = "WALLET_SIGNATURE_MALFORMED"
INVALID = "WALLET_SIGNATURE_INVALID"
KEY_MISMATCH = "WALLET_SIGNATURE_KEY_MISMATCH"
PAYLOAD = (
    b'{"organizationId":"org-1","parameters":{"targetPublicKey":"04ab","walletId":"w-1"},'
    b'"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
)

# Fixed keys (scalars from SHA-256 of a label): the parametrized ids below show KEY's encodings,
# so every collection, also each pytest-xdist worker's, must see the same tests.
KEY = ewc.KeyPair.from_private_bytes(hashlib.sha256(b"test_stamps KEY").digest())
OTHER = ewc.KeyPair.from_private_bytes(hashlib.sha256(b"test_stamps OTHER").digest())


def _b64url(data: bytes, *, padded: bool = False) -> str:
    text = base64.urlsafe_b64encode(data).decode()
    return text if padded else text.rstrip("=")


def _decode(stamp: str) -> bytes:
    return base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4))


def _fields(key: ewc.KeyPair = KEY, payload: bytes = PAYLOAD) -> dict[str, str]:
    return {
        "publicKey": key.public_key_hex(compressed=True),
        "scheme": SCHEME,
        "signature": key.sign(payload).hex(),
    }


def _stamp(fields: dict[str, str] | str, *, padded: bool = False) -> str:
    """A stamp from fields (compact JSON in their order) or from raw JSON text."""
    text = fields if isinstance(fields, str) else json.dumps(fields, separators=(",", ":"))
    return _b64url(text.encode(), padded=padded)


def _code(stamp: str | None, payload: bytes | str = PAYLOAD, **options: object) -> str:
    with pytest.raises(ewc.StampError) as raised:
        ewc.verify_stamp(stamp, payload, **options)  # type: ignore[arg-type]
    assert raised.value.status == 401
    assert str(raised.value) == raised.value.reason
    return raised.value.code


def _both_s(signature: bytes) -> tuple[bytes, bytes]:
    r, s = decode_dss_signature(signature)
    low = min(s, N - s)
    return encode_dss_signature(r, low), encode_dss_signature(r, N - low)


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


# --- many at once ----------------------------------------------------------------------------


def _mixed_batch(size: int, rng: random.Random) -> tuple[list[str], list[bytes], list[str | None]]:
    keys = [ewc.KeyPair.generate() for _ in range(4)]
    stamps, payloads, expected = [], [], []
    for index in range(size):
        key = rng.choice(keys)
        payload = f'{{"n":{index}}}'.encode()
        stamp = ewc.create_stamp(payload, key)
        kind = index % 10
        if kind == 1:
            payload += b" "
        elif kind == 2:
            stamp = stamp[: rng.randrange(len(stamp))]
        elif kind == 3:
            stamp = "".join(rng.choice("abc-_=!\n\u00e9") for _ in range(rng.randrange(40)))
        elif kind == 4:
            stamp = ""
        elif kind == 5:
            stamp = "sandbox-valid-signature"
        elif kind == 6:
            stamp = _stamp({**_fields(key, payload), "scheme": "OTHER"})
        stamps.append(stamp)
        payloads.append(payload)
        choice = rng.randrange(3)
        expected.append(
            None
            if choice == 0
            else key.public_key_hex(compressed=choice == 1)
            if rng.random() < 0.7
            else rng.choice(keys).public_key_hex()
        )
    return stamps, payloads, expected


def _single(stamp: str, payload: bytes, expected: str | None) -> bool:
    try:
        ewc.verify_stamp(stamp, payload, expected_public_key=expected)
    except ewc.StampError:
        return False
    return True


def test_verify_stamps_equals_verify_stamp_one_by_one() -> None:
    stamps, payloads, expected = _mixed_batch(500, random.Random(20240517))
    without_keys = ewc.verify_stamps(stamps, payloads)
    assert without_keys == [_single(s, p, None) for s, p in zip(stamps, payloads, strict=True)]
    with_keys = ewc.verify_stamps(stamps, payloads, expected)
    assert with_keys == [
        _single(s, p, e) for s, p, e in zip(stamps, payloads, expected, strict=True)
    ]
    assert 0 < with_keys.count(True) < without_keys.count(True) < len(stamps)


def test_verify_stamps_takes_str_payloads_and_iterables() -> None:
    stamp = ewc.create_stamp("hello", KEY)
    assert ewc.verify_stamps(iter([stamp, stamp]), ("hello", "hellp")) == [True, False]
    assert ewc.verify_stamps([], []) == []


@pytest.mark.parametrize(
    ("stamps", "payloads", "expected"),
    [(2, 1, None), (1, 2, None), (2, 2, 1), (2, 2, 3)],
)
def test_verify_stamps_length_mismatch(stamps: int, payloads: int, expected: int | None) -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    keys = None if expected is None else [None] * expected
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.verify_stamps([stamp] * stamps, [PAYLOAD] * payloads, keys)
    assert raised.value.code == "INVALID_LENGTH"


def test_verify_stamps_rejects_a_malformed_expected_key() -> None:
    with pytest.raises(ewc.InvalidKey):
        ewc.verify_stamps([ewc.create_stamp(PAYLOAD, KEY)], [PAYLOAD], ["04" + "00" * 64])


# --- the client's binding check (formats.md section 5) ---------------------------------------


def _export_payload(target: str) -> str:
    return json.dumps(
        {
            "organizationId": "org-1",
            "parameters": {"targetPublicKey": target, "walletId": "w"},
            "timestampMs": "1700000000000",
            "type": "ACTIVITY_TYPE_EXPORT_WALLET",
        },
        separators=(",", ":"),
    )


def test_payload_binding_accepts_the_clients_key_in_any_encoding() -> None:
    client = ewc.KeyPair.generate()
    for target in (client.public_key_hex(), client.public_key_hex(compressed=True)):
        for sent in (
            client.public_key_hex(),
            client.public_key_hex().upper(),
            client.public_key_bytes(),
        ):
            ewc.check_payload_binding(_export_payload(target), sent)
            ewc.check_payload_binding(_export_payload(target).encode(), sent)


def _binding_code(payload: str | bytes, client: str) -> str:
    with pytest.raises(ewc.StampError) as raised:
        ewc.check_payload_binding(payload, client)
    return raised.value.code


def test_payload_binding_rejects_a_swapped_or_missing_key() -> None:
    client = ewc.KeyPair.generate().public_key_hex()
    swapped = _export_payload(ewc.KeyPair.generate().public_key_hex())
    assert _binding_code(swapped, client) == "PAYLOAD_KEY_MISMATCH"
    assert _binding_code(_export_payload("04zz"), client) == "PAYLOAD_KEY_MISMATCH"
    assert _binding_code('{"parameters":{"walletId":"w"}}', client) == "PAYLOAD_KEY_MISMATCH"
    assert _binding_code('{"parameters":{"targetPublicKey":5}}', client) == "PAYLOAD_KEY_MISMATCH"
    for malformed in ("not json", "[]", '{"parameters":[]}', b"\xff\xfe", "{}"):
        assert _binding_code(malformed, client) == "PAYLOAD_MALFORMED"


@pytest.mark.parametrize(
    "payload",
    ["[" * 100_000, '{"x":1' + "0" * 5000 + "}"],
    ids=["deeply-nested", "huge-integer"],
)
def test_payload_binding_reports_hostile_json_as_malformed(payload: str) -> None:
    """PYTHON-LAYER BUG (stamps.py, check_payload_binding): json.loads raises RecursionError for
    deep nesting and ValueError (int digit limit) for huge integers; neither is caught, so bad
    input escapes as a non-WalletCryptoError (the error contract (docs/reference/errors.md)."""
    client = ewc.KeyPair.generate().public_key_hex()
    assert _binding_code(payload, client) == "PAYLOAD_MALFORMED"


def test_payload_binding_refuses_a_repeated_target_key() -> None:
    """json.loads keeps the last of two keys; a reader keeping the first sees another target."""
    client = ewc.KeyPair.generate().public_key_hex()
    attacker = ewc.KeyPair.generate().public_key_hex()
    payload = (
        '{"parameters":{"targetPublicKey":"' + attacker + '","targetPublicKey":"' + client + '"}}'
    )
    with pytest.raises(ewc.StampError) as raised:
        ewc.check_payload_binding(payload, client)
    assert raised.value.code == "PAYLOAD_MALFORMED"


def test_verify_stamps_follows_a_sandbox_process_default() -> None:
    """Same verdicts as verify_stamp one by one, whatever the process environment."""
    key = ewc.KeyPair.generate()
    stamps = [ewc.create_stamp(b"p", key), ewc.stamps.SANDBOX_STAMP, "garbage"]
    payloads = [b"p", b"p", b"p"]
    assert ewc.verify_stamps(stamps, payloads) == [True, False, False]
    ewc.set_default_environment(ewc.Environment.SANDBOX)
    try:
        assert ewc.verify_stamps(stamps, payloads) == [True, True, False]
        single = []
        for stamp in stamps:
            try:
                ewc.verify_stamp(stamp, b"p")
                single.append(True)
            except ewc.StampError:
                single.append(False)
        assert single == [True, True, False]
    finally:
        ewc.set_default_environment(ewc.Environment.PRODUCTION)
