"""Random input into ewc.totp and ewc.signed_urls (hypothesis): every call either succeeds or
raises the family's typed error, never anything else; a provisioning URI that is produced
parses back to the same issuer and account; a signed URL changed anywhere never verifies."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pyotp
from embedded_wallet_crypto import signed_urls, totp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEY = bytes(range(32))
NOW = 1_700_000_000
SECRET = totp.TotpSecret(bytes(range(20)))
VERIFIER = totp.Totp(issuer="Fuzz")
RECOVERY = totp.RecoveryCodes(hash_key=b"fuzz recovery hash key 0123456789")
RECOVERY.generate("Factor:fuzz")
SIGNED = signed_urls.sign_url(
    "https://embed.example.com/iframe/card?t=abc", key=KEY, expires_at=NOW + 300, now=NOW
)
URL_TEXT = st.text(
    alphabet=st.sampled_from(list("htps:/[]@?&=#%-._~!$'()*+,;ABCabc019 \x00é")), max_size=80
)


def typed(call: Any, family: type[ewc.WalletCryptoError]) -> Any:
    try:
        return call()
    except family as error:
        assert error.code and error.code == error.code.upper() and 400 <= error.status < 600
        return error


@SETTINGS
@given(st.one_of(st.text(max_size=40), st.integers(), st.none(), st.binary(max_size=8)))
def test_any_code(code: Any) -> None:
    result = typed(lambda: VERIFIER.verify("Factor:fuzz", SECRET, code, now=NOW), ewc.TotpError)
    if isinstance(result, ewc.TotpError):
        assert result.code in ("TOTP_INVALID", "TOTP_REPLAYED")


@SETTINGS
@given(st.text(max_size=120))
def test_any_secret_text(text: str) -> None:
    for parse in (totp.TotpSecret.from_base32, totp.TotpSecret.from_hex):
        result = typed(lambda p=parse: p(text), ewc.TotpError)
        if isinstance(result, ewc.TotpError):
            assert result.code == "TOTP_SECRET_INVALID"
        else:
            assert 16 <= len(result.key) <= 128


@SETTINGS
@given(st.text(max_size=60), st.text(max_size=60))
def test_any_label(issuer: str, account: str) -> None:
    result = typed(
        lambda: totp.provisioning_uri(SECRET, account_name=account, issuer=issuer), ewc.TotpError
    )
    if isinstance(result, ewc.TotpError):
        assert result.code == "TOTP_LABEL_INVALID"
        return
    assert result.isascii()
    parsed = pyotp.parse_uri(result)
    assert (parsed.issuer, parsed.name, parsed.secret) == (issuer, account, SECRET.base32)


@SETTINGS
@given(st.one_of(st.text(max_size=40), st.integers(), st.none()))
def test_any_recovery_code(code: Any) -> None:
    result = typed(lambda: RECOVERY.use("Factor:fuzz", code), ewc.TotpError)
    assert isinstance(result, ewc.TotpError) and result.code == "RECOVERY_CODE_INVALID"


@SETTINGS
@given(URL_TEXT)
def test_any_url(url: str) -> None:
    for call in (
        lambda: signed_urls.verify_signed_url(url, key=KEY, now=NOW),
        lambda: signed_urls.sign_url(url, key=KEY, expires_at=NOW + 60, now=NOW),
    ):
        typed(call, ewc.SignedUrlError)


@SETTINGS
@given(st.integers(min_value=0, max_value=len(SIGNED) - 1), st.sampled_from(list("aZ0%&=?/-_")))
def test_a_changed_signed_url_never_verifies(index: int, character: str) -> None:
    changed = SIGNED[:index] + character + SIGNED[index + 1 :]
    result = typed(
        lambda: signed_urls.verify_signed_url(changed, key=KEY, now=NOW), ewc.SignedUrlError
    )
    if not isinstance(result, ewc.SignedUrlError):
        # no change at all, or one that leaves the canonical form alone: the host's case
        same_host = changed.lower() == SIGNED.lower() and index < SIGNED.index("/iframe")
        assert changed == SIGNED or same_host
