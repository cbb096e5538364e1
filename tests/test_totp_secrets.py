"""TOTP secrets (generated, round-tripped, never shown; base32 and hex refused with their code), the
provisioning URI (parsed back with pyotp and rfc3986), the enrollment response, and the
package's lazy imports and error family."""

from __future__ import annotations

import subprocess
import sys
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import embedded_wallet_crypto as ewc
import pyotp
import pytest
from _totp_support import (
    DIGESTS,
    NOW,
    SECRET,
    fails,
)
from embedded_wallet_crypto import totp

# --- secrets --------------------------------------------------------------------------------


def test_generated_secrets_are_random_and_sized_for_their_hash() -> None:
    sizes = {algorithm: len(totp.TotpSecret.generate(algorithm).key) for algorithm in DIGESTS}
    assert sizes == {"SHA1": 20, "SHA256": 32, "SHA512": 64}  # 160 bits at the least
    assert len({totp.TotpSecret.generate().key for _ in range(200)}) == 200
    secret = totp.Totp(issuer="Size", algorithm="SHA256").new_secret()
    assert len(secret.key) == 32


def test_a_secret_round_trips_and_never_shows_in_repr() -> None:
    secret = totp.TotpSecret.generate()
    assert totp.TotpSecret.from_base32(secret.base32).key == secret.key
    assert totp.TotpSecret.from_base32(secret.base32.lower()).key == secret.key
    assert totp.TotpSecret.from_hex(secret.hex).key == secret.key
    assert totp.TotpSecret.from_hex(secret.hex.upper()).key == secret.key
    assert secret.base32 == secret.base32.upper() and "=" not in secret.base32
    enrollment = totp.Totp(issuer="Repr").enroll("user@example.com")
    for text in (repr(secret), repr(enrollment), repr(enrollment.secret)):
        assert secret.base32 not in text and secret.hex not in text
        assert enrollment.secret.base32 not in text and enrollment.secret.hex not in text


def test_padding_is_accepted_only_in_its_canonical_form() -> None:
    sixteen = totp.TotpSecret(bytes(range(16)))  # 26 characters: 6 of padding
    assert len(sixteen.base32) == 26
    assert totp.TotpSecret.from_base32(sixteen.base32 + "======").key == sixteen.key
    for padding in ("=", "=====", "======="):
        fails(lambda p=padding: totp.TotpSecret.from_base32(sixteen.base32 + p), *SECRET_BAD)


SECRET_BAD = ("TOTP_SECRET_INVALID", 400)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "====",
        "GEZDGNBVGY3TQOJQ01",  # 0 and 1 are not base32
        "GEZDGNBV GY3TQOJQ",  # a space
        "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ!",
        "GEZDGNBVGY3TQOJQ",  # 10 bytes: fewer than 16
        "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZ",  # 35 characters: no whole bytes
        "AAAQEAYEAUDAOCAJBIFQYDIOB7",  # 16 bytes with non-zero unused bits: not canonical
        "A" * 300,  # more than 128 bytes
        "A" * 10**6,
        "ĞEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
    ],
)
def test_bad_base32_secrets(text: str) -> None:
    error = fails(lambda: totp.TotpSecret.from_base32(text), *SECRET_BAD)
    if len(text) >= 8:
        assert text[:8] not in str(error)


@pytest.mark.parametrize("text", ["", "0x" + "00" * 20, "0" * 41, "zz" * 20, "00" * 15, "00" * 129])
def test_bad_hex_secrets(text: str) -> None:
    fails(lambda: totp.TotpSecret.from_hex(text), *SECRET_BAD)


def test_secret_types_and_lengths() -> None:
    for value in (b"x" * 15, b"x" * 129, b""):
        fails(lambda v=value: totp.TotpSecret(v), *SECRET_BAD)
    for value in ("x" * 20, bytearray(20), 20):
        with pytest.raises(TypeError):
            totp.TotpSecret(value)  # type: ignore[arg-type]
    for parse in (totp.TotpSecret.from_base32, totp.TotpSecret.from_hex):
        with pytest.raises(TypeError):
            parse(b"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")  # type: ignore[arg-type]


# --- the provisioning URI -------------------------------------------------------------------


def test_the_uri_of_the_interface_example() -> None:
    uri = totp.provisioning_uri(SECRET, account_name="customer@example.com", issuer="Grid")
    assert uri == (
        "otpauth://totp/Grid:customer@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        "&issuer=Grid&algorithm=SHA1&digits=6&period=30"
    )


@pytest.mark.parametrize(
    ("issuer", "account"),
    [
        ("Grid", "customer@example.com"),
        ("Big Corp", "Jane Doe"),
        ("A/B?C#D", "x&y=z%20+w"),
        ("Zoë GmbH", "名前@例え.jp"),
        ("Emoji 🔐", "user+tag@example.com"),
    ],
)
@pytest.mark.parametrize(("algorithm", "digits", "period"), [("SHA1", 6, 30), ("SHA512", 8, 60)])
def test_the_uri_parses_back_with_pyotp_and_rfc3986(
    issuer: str, account: str, algorithm: Any, digits: int, period: int
) -> None:
    secret = totp.TotpSecret.generate(algorithm)
    verifier = totp.Totp(issuer=issuer, algorithm=algorithm, digits=digits, period=period)
    uri = verifier.provisioning_uri(secret, account)
    assert uri.isascii() and " " not in uri and "+" not in uri.split("?", 1)[1].replace("%2B", "")
    parsed = pyotp.parse_uri(uri)
    assert isinstance(parsed, pyotp.TOTP)
    assert (parsed.name, parsed.issuer) == (account, issuer)
    assert (parsed.digits, parsed.interval, parsed.secret) == (digits, period, secret.base32)
    assert parsed.digest().name == DIGESTS[algorithm]
    assert parsed.at(NOW) == verifier.code_at(secret, NOW)
    split = urlsplit(uri)  # the same read by the standard library, without pyotp's leniency
    assert (split.scheme, split.netloc) == ("otpauth", "totp")
    assert unquote(split.path) == f"/{issuer}:{account}"
    query = parse_qs(split.query, strict_parsing=True)
    assert query["issuer"] == [issuer] and query["secret"] == [secret.base32]


@pytest.mark.parametrize(
    ("issuer", "account"),
    [("Gr:id", "user"), ("Grid", "a:b"), ("", "user"), ("Grid", ""), ("x" * 201, "user"),
     ("Grid", "line\nbreak"), ("Grid", "tab\t"), ("Grid", "a\ud800"), ("Grid\x7f", "user")],
)  # fmt: skip
def test_labels_the_uri_cannot_carry(issuer: str, account: str) -> None:
    fails(
        lambda: totp.provisioning_uri(SECRET, account_name=account, issuer=issuer),
        "TOTP_LABEL_INVALID",
        400,
    )


def test_uri_settings_are_checked() -> None:
    fails(
        lambda: totp.provisioning_uri(SECRET, account_name="a", issuer="b", digits=4),
        "TOTP_CONFIG_INVALID",
        500,
    )
    with pytest.raises(TypeError):
        totp.provisioning_uri(SECRET.key, account_name="a", issuer="b")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        totp.provisioning_uri(SECRET, account_name=7, issuer="b")  # type: ignore[arg-type]


def test_the_enrollment_response_threads_back_to_the_same_secret() -> None:
    verifier = totp.Totp(issuer="Grid")
    enrollment = verifier.enroll("customer@example.com")
    body = enrollment.to_response()
    assert set(body) == {"type", "secret", "secretBase32Encoded", "totpUri"}
    assert body["type"] == "TOTP" and body["totpUri"] == enrollment.uri
    assert totp.TotpSecret.from_hex(body["secret"]).key == enrollment.secret.key
    assert totp.TotpSecret.from_base32(body["secretBase32Encoded"]).key == enrollment.secret.key
    first_code = pyotp.parse_uri(body["totpUri"]).at(NOW)  # what the app shows
    confirmed = verifier.verify(
        "Factor:new", totp.TotpSecret.from_hex(body["secret"]), first_code, now=NOW
    )
    assert confirmed.step == NOW // 30


# --- the package ----------------------------------------------------------------------------


def test_importing_the_package_loads_neither_totp_nor_signed_urls() -> None:
    probe = "import embedded_wallet_crypto, sys; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "embedded_wallet_crypto.totp" not in loaded
    assert "embedded_wallet_crypto.signed_urls" not in loaded
    assert "cryptography.hazmat.primitives.twofactor" not in loaded
    assert ewc.totp.Totp is totp.Totp


def test_the_error_family() -> None:
    assert issubclass(ewc.TotpError, ewc.WalletCryptoError)
    assert ewc.errors.TotpError is ewc.TotpError
    assert (ewc.TotpError("x").code, ewc.TotpError("x").status) == ("TOTP_INVALID", 401)
