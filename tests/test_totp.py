"""TOTP (ewc.totp): RFC 6238 appendix B's vectors, pyotp (an independent implementation) as the
oracle for codes, windows and provisioning URIs, the window on the caller's clock, a code
accepted once per factor (and no code of an earlier step after it), the sandbox code, and
hostile input refused with its code. The recovery codes are in test_totp_recovery.py, the
store races in test_store_factors.py."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import embedded_wallet_crypto as ewc
import pyotp
import pytest
from _redis_server import refused_port
from conftest import report_counts
from embedded_wallet_crypto import stores, totp

NOW = 1_700_000_000
SECRET = totp.TotpSecret(b"12345678901234567890")

# RFC 6238 appendix B: 8 digits, a 30-second step, T0 = 0; the seed of each hash is the ASCII
# "1234567890" repeated to the hash's output size (20, 32 and 64 bytes).
RFC_SEEDS = {
    "SHA1": b"12345678901234567890",
    "SHA256": b"12345678901234567890123456789012",
    "SHA512": b"1234567890123456789012345678901234567890123456789012345678901234",
}
RFC_VECTORS = [
    (59, "SHA1", "94287082"),
    (59, "SHA256", "46119246"),
    (59, "SHA512", "90693936"),
    (1111111109, "SHA1", "07081804"),
    (1111111109, "SHA256", "68084774"),
    (1111111109, "SHA512", "25091201"),
    (1111111111, "SHA1", "14050471"),
    (1111111111, "SHA256", "67062674"),
    (1111111111, "SHA512", "99943326"),
    (1234567890, "SHA1", "89005924"),
    (1234567890, "SHA256", "91819424"),
    (1234567890, "SHA512", "93441116"),
    (2000000000, "SHA1", "69279037"),
    (2000000000, "SHA256", "90698825"),
    (2000000000, "SHA512", "38618901"),
    (20000000000, "SHA1", "65353130"),
    (20000000000, "SHA256", "77737706"),
    (20000000000, "SHA512", "47863826"),
]
DIGESTS = {"SHA1": "sha1", "SHA256": "sha256", "SHA512": "sha512"}


def fails(call: Any, code: str, status: int) -> ewc.TotpError:
    with pytest.raises(ewc.TotpError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


def oracle(secret: totp.TotpSecret, algorithm: str = "SHA1", digits: int = 6, period: int = 30):
    import hashlib

    digest = getattr(hashlib, DIGESTS[algorithm])
    return pyotp.TOTP(secret.base32, digits=digits, digest=digest, interval=period)


# --- known answers --------------------------------------------------------------------------


@pytest.mark.parametrize(("moment", "algorithm", "expected"), RFC_VECTORS)
def test_rfc6238_appendix_b(moment: int, algorithm: Any, expected: str) -> None:
    secret = totp.TotpSecret(RFC_SEEDS[algorithm])
    verifier = totp.Totp(issuer="RFC 6238", algorithm=algorithm, digits=8)
    assert verifier.code_at(secret, moment) == expected
    assert oracle(secret, algorithm, 8).at(moment) == expected  # the oracle agrees
    accepted = verifier.verify("Factor:rfc", secret, expected, now=moment)
    assert (accepted.step, accepted.sandbox) == (moment // 30, False)


def test_rfc6238_vector_count() -> None:
    report_counts("totp rfc6238 appendix b", vectors=len(RFC_VECTORS))
    assert len(RFC_VECTORS) == 18


def test_codes_match_pyotp_on_random_settings() -> None:
    rng = random.Random(6238)
    cases = 0
    for _ in range(300):
        algorithm = rng.choice(totp.ALGORITHMS)
        digits, period = rng.choice([6, 7, 8]), rng.choice([15, 30, 60, 90])
        secret = totp.TotpSecret(rng.randbytes(rng.choice([16, 20, 32, 64, 128])))
        moment = rng.randrange(0, totp.MAX_TIME)
        verifier = totp.Totp(issuer="Diff", algorithm=algorithm, digits=digits, period=period)
        assert verifier.code_at(secret, moment) == oracle(secret, algorithm, digits, period).at(
            moment
        )
        cases += 1
    report_counts("totp pyotp differential", cases=cases)


def test_the_window_agrees_with_pyotp() -> None:
    """Each code of steps -3 to +3 around now: accepted exactly when pyotp's valid_window=1
    accepts it (each on a fresh factor, so single use plays no part)."""
    verifier = totp.Totp(issuer="Window")
    reference = oracle(SECRET)
    for offset in range(-3, 4):
        code = verifier.code_at(SECRET, NOW + offset * 30)
        expected = reference.verify(code, for_time=NOW, valid_window=1)
        try:
            verifier.verify(f"Factor:window:{offset}", SECRET, code, now=NOW)
            accepted = True
        except ewc.TotpError as error:
            assert error.code == "TOTP_INVALID"
            accepted = False
        assert accepted is expected is (abs(offset) <= 1), offset


def test_window_zero_accepts_only_the_current_step_and_step_edges_hold() -> None:
    verifier = totp.Totp(issuer="Edges", window=0)
    step_start = (NOW // 30) * 30
    code = verifier.code_at(SECRET, step_start)
    assert verifier.code_at(SECRET, step_start + 29.999) == code
    verifier.verify("Factor:edge", SECRET, code, now=step_start + 29.999)
    fails(lambda: verifier.verify("Factor:edge2", SECRET, code, now=step_start + 30), *INVALID)
    fails(lambda: verifier.verify("Factor:edge3", SECRET, code, now=step_start - 0.001), *INVALID)


INVALID = ("TOTP_INVALID", 401)
REPLAYED = ("TOTP_REPLAYED", 401)


# --- once per factor ------------------------------------------------------------------------


def test_a_code_is_accepted_once(store: Any) -> None:
    verifier = totp.Totp(store, issuer="Once")
    code = verifier.code_at(SECRET, NOW)
    assert verifier.verify("Factor:1", SECRET, code, now=NOW).step == NOW // 30
    error = fails(lambda: verifier.verify("Factor:1", SECRET, code, now=NOW + 1), *REPLAYED)
    assert code not in str(error) and SECRET.base32 not in str(error)
    # the same code for another factor is that factor's business
    assert verifier.verify("Factor:2", SECRET, code, now=NOW).step == NOW // 30


def test_no_earlier_step_after_a_later_one(store: Any) -> None:
    """A code of the next step accepted first (a fast phone clock) closes the current step's
    code, which is still inside the window; the step after is accepted in its turn."""
    verifier = totp.Totp(store, issuer="Order")
    later = verifier.code_at(SECRET, NOW + 30)
    current = verifier.code_at(SECRET, NOW)
    verifier.verify("Factor:1", SECRET, later, now=NOW)
    fails(lambda: verifier.verify("Factor:1", SECRET, current, now=NOW), *REPLAYED)
    fails(lambda: verifier.verify("Factor:1", SECRET, later, now=NOW + 30), *REPLAYED)
    following = verifier.code_at(SECRET, NOW + 60)
    assert verifier.verify("Factor:1", SECRET, following, now=NOW + 60).step == NOW // 30 + 2


def test_forgetting_the_factor_lets_a_new_enrollment_start_over(store: Any) -> None:
    verifier = totp.Totp(store, issuer="Reset")
    code = verifier.code_at(SECRET, NOW)
    verifier.verify("Factor:1", SECRET, code, now=NOW)
    store.forget_factor("Factor:1")
    assert verifier.verify("Factor:1", SECRET, code, now=NOW).step == NOW // 30


def test_a_failing_store_is_a_typed_503() -> None:
    with refused_port() as port:
        store = stores.RedisStore(f"redis://127.0.0.1:{port}/0", durability="best-effort")
        verifier = totp.Totp(store, issuer="Down")
        code = verifier.code_at(SECRET, NOW)
        error = fails(lambda: verifier.verify("Factor:1", SECRET, code, now=NOW), *UNAVAILABLE)
        assert isinstance(error, stores.StoreError)


UNAVAILABLE = ("STORE_UNAVAILABLE", 503)


def test_the_sandbox_code_only_in_the_sandbox() -> None:
    sandbox = totp.Totp(issuer="Sandbox", sandbox=True)
    for _ in range(2):  # not single use: the interface's sandbox code always works
        accepted = sandbox.verify("Factor:1", SECRET, totp.SANDBOX_TOTP_CODE, now=NOW)
        assert (accepted.step, accepted.sandbox) == (None, True)
    production = totp.Totp(issuer="Production")
    assert production.code_at(SECRET, NOW) != totp.SANDBOX_TOTP_CODE
    fails(lambda: production.verify("Factor:1", SECRET, "123456", now=NOW), *INVALID)
    with pytest.raises(TypeError):
        totp.Totp(issuer="Bad", sandbox="false")  # type: ignore[arg-type]


def test_now_defaults_to_the_wall_clock() -> None:
    import time

    verifier = totp.Totp(issuer="Clock")
    code = verifier.code_at(SECRET, time.time())
    try:
        verifier.verify("Factor:1", SECRET, code)
    except ewc.TotpError as error:  # a step boundary crossed in between: the window covers it
        pytest.fail(f"the current code was refused: {error.code}")


# --- hostile input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [123456, None, b"123456", ["123456"], "12345", "1234567", "12345a", " 123456",
     "\uff11\uff12\uff13\uff14\uff15\uff16",  # full-width digits: isdigit, not ASCII
     "\u0663\u0664\u0665\u0666\u0667\u0668", "1" * 10**6, "", "\ud800" * 6],
)  # fmt: skip
def test_a_code_that_is_not_six_ascii_digits_is_invalid(code: Any) -> None:
    verifier = totp.Totp(issuer="Hostile")
    fails(lambda: verifier.verify("Factor:1", SECRET, code, now=NOW), *INVALID)


@pytest.mark.parametrize("factor_id", ["", "x" * 201, "a\ud800", 7, None, b"Factor:1"])
def test_a_bad_factor_id(factor_id: Any) -> None:
    verifier = totp.Totp(issuer="Hostile")
    fails(lambda: verifier.verify(factor_id, SECRET, "123456", now=NOW), "TOTP_FACTOR_INVALID", 400)


@pytest.mark.parametrize("now", [float("nan"), float("inf"), -1, 10**400, totp.MAX_TIME + 1])
def test_a_clock_reading_out_of_range(now: Any) -> None:
    verifier = totp.Totp(issuer="Clock")
    fails(lambda: verifier.verify("Factor:1", SECRET, "123456", now=now), "TOTP_TIME_INVALID", 500)
    fails(lambda: verifier.code_at(SECRET, now), "TOTP_TIME_INVALID", 500)


@pytest.mark.parametrize("now", ["1700000000", True, None, [1]])
def test_a_clock_reading_of_the_wrong_type(now: Any) -> None:
    verifier = totp.Totp(issuer="Clock")
    with pytest.raises(TypeError):
        verifier.code_at(SECRET, now)


def test_a_secret_of_the_wrong_type() -> None:
    verifier = totp.Totp(issuer="Hostile")
    for secret in (SECRET.key, SECRET.base32, None):
        with pytest.raises(TypeError):
            verifier.verify("Factor:1", secret, "123456", now=NOW)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"digits": 5}, "TOTP_CONFIG_INVALID"),
        ({"digits": 9}, "TOTP_CONFIG_INVALID"),
        ({"period": 0}, "TOTP_CONFIG_INVALID"),
        ({"period": 3601}, "TOTP_CONFIG_INVALID"),
        ({"window": -1}, "TOTP_CONFIG_INVALID"),
        ({"window": 11}, "TOTP_CONFIG_INVALID"),
        ({"algorithm": "MD5"}, "TOTP_CONFIG_INVALID"),
        ({"algorithm": "sha1"}, "TOTP_CONFIG_INVALID"),
        ({"digits": True}, TypeError),
        ({"digits": "6"}, TypeError),
        ({"period": 30.0}, TypeError),
        ({"window": True}, TypeError),
    ],
)
def test_settings_out_of_range(settings: dict[str, Any], error: Any) -> None:
    if error is TypeError:
        with pytest.raises(TypeError):
            totp.Totp(issuer="Settings", **settings)
    else:
        fails(lambda: totp.Totp(issuer="Settings", **settings), error, 500)


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
