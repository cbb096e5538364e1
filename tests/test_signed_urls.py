"""Signed short-lived URLs (ewc.signed_urls): a known answer computed with the standard library's
HMAC over the documented canonical text, equivalent spellings of one URL accepted, every change
refused, expiry on the caller's clock, key rotation by kid, hostile URLs refused with their
code, and no message ever repeating the URL (a bearer secret)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import signed_urls

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
NOW = 1_700_000_000
TOKEN = "tok3nS3cret"
URL = f"https://embed.example.com/iframe/card?t={TOKEN}"


def fails(call: Any, code: str, status: int) -> ewc.SignedUrlError:
    with pytest.raises(ewc.SignedUrlError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    message = str(raised.value)  # never the URL, a part of it or a signature: a bearer secret
    assert TOKEN not in message and "example.com" not in message and "signature=" not in message
    assert len(message) < 120
    return raised.value


def signed(url: str = URL, **options: Any) -> str:
    options.setdefault("key", KEY)
    options.setdefault("expires_at", NOW + 300)
    options.setdefault("now", NOW)
    return signed_urls.sign_url(url, **options)


def verify(url: str, key: Any = KEY, now: float = NOW + 1) -> signed_urls.VerifiedUrl:
    return signed_urls.verify_signed_url(url, key=key, now=now)


def test_a_known_answer_from_the_documented_canonical_text() -> None:
    url = signed("HTTPS://Embed.Example.COM:443/iframe/card?t=tok3nS3cret&b=%2f&a", key_id="k1")
    text = "\n".join(
        [
            "ewc-signed-url-v1",
            "https",
            "embed.example.com",
            "/iframe/card",
            f"a=&b=%2F&expires={NOW + 300}&kid=k1&t=tok3nS3cret",
        ]
    ).encode()
    mac = hmac.new(KEY, text, hashlib.sha256).digest()
    expected = base64.urlsafe_b64encode(mac).decode().rstrip("=")
    assert url == (
        "HTTPS://Embed.Example.COM:443/iframe/card?t=tok3nS3cret&b=%2f&a"
        f"&expires={NOW + 300}&kid=k1&signature={expected}"
    )
    verified = verify(url, key={"k1": KEY})
    assert verified == signed_urls.VerifiedUrl(
        datetime.fromtimestamp(NOW + 300, tz=timezone.utc), "k1"
    )


@pytest.mark.parametrize(
    ("original", "received"),
    [
        ("https://embed.example.com/x?t=1", "HTTPS://EMBED.example.com/x?t=1"),
        ("https://embed.example.com/x?t=1", "https://embed.example.com:443/x?t=1"),
        ("http://embed.example.com/x?t=1", "http://embed.example.com:80/x?t=1"),
        ("https://embed.example.com?t=1", "https://embed.example.com/?t=1"),
        ("https://embed.example.com/a%2fb?t=%3a", "https://embed.example.com/a%2Fb?t=%3A"),
        ("https://embed.example.com/%41%7e?t=%61", "https://embed.example.com/A~?t=a"),
        ("https://embed.example.com/x?a=1&b=2", "https://embed.example.com/x?b=2&a=1"),
        ("https://[::1]:443/x?t=1", "https://[::1]/x?t=1"),
    ],
)
def test_equivalent_spellings_verify(original: str, received: str) -> None:
    url = signed(original)
    suffix = url[len(original) :]
    assert verify(received + suffix).key_id is None


@pytest.mark.parametrize(
    "change",
    [
        lambda u: u.replace("embed.example.com", "evil.example.com"),
        lambda u: u.replace("https://", "http://"),
        lambda u: u.replace(".com/", ".com:8443/"),
        lambda u: u.replace("/iframe/card", "/iframe/cards"),
        lambda u: u.replace(TOKEN, TOKEN + "x"),
        lambda u: u.replace(f"t={TOKEN}", f"t={TOKEN}&u=1"),
        lambda u: u.replace(f"t={TOKEN}&", ""),
        lambda u: u.replace(f"expires={NOW + 300}", f"expires={NOW + 3000}"),
        lambda u: u.replace("/iframe/card", "/iframe/%2e%2e/card"),
        lambda u: u.replace(f"t={TOKEN}", "t=tok3nS3cre%74x"),
    ],
)
def test_every_change_is_refused(change: Any) -> None:
    url = signed()
    changed = change(url)
    assert changed != url
    fails(lambda: verify(changed), "URL_SIGNATURE_INVALID", 401)


def test_another_key_or_a_dropped_or_changed_kid_is_refused() -> None:
    fails(lambda: verify(signed(), key=OTHER_KEY), "URL_SIGNATURE_INVALID", 401)
    with_kid = signed(key_id="k1")
    fails(lambda: verify(with_kid.replace("&kid=k1", "")), "URL_SIGNATURE_INVALID", 401)
    fails(lambda: verify(with_kid.replace("kid=k1", "kid=k2")), "URL_SIGNATURE_INVALID", 401)


def test_rotation_by_kid() -> None:
    keys = {"2024": OTHER_KEY, "2025": KEY}
    assert verify(signed(key_id="2024", key=OTHER_KEY), key=keys).key_id == "2024"
    assert verify(signed(key_id="2025"), key=keys).key_id == "2025"
    fails(lambda: verify(signed(key_id="2023"), key=keys), "URL_KEY_UNKNOWN", 401)
    fails(lambda: verify(signed(), key=keys), "URL_KEY_UNKNOWN", 401)  # names no key
    fails(lambda: verify(signed(key_id="2025"), key={"2025": b"short"}), "URL_KEY_INVALID", 500)


def test_expiry_on_the_callers_clock() -> None:
    url = signed(expires_at=NOW + 60)
    assert verify(url, now=NOW + 59.999).expires_at.timestamp() == NOW + 60
    fails(lambda: verify(url, now=NOW + 60), "URL_EXPIRED", 401)
    fails(lambda: verify(url, now=NOW + 10**6), "URL_EXPIRED", 401)
    # a changed URL is refused for its signature, whatever its expiry says
    fails(lambda: verify(url + "&x=1", now=NOW + 10**6), "URL_SIGNATURE_INVALID", 401)


def test_expiry_when_signing() -> None:
    moment = datetime.fromtimestamp(NOW, tz=timezone.utc)
    url = signed(expires_at=moment + timedelta(seconds=90, microseconds=999_999))
    assert verify(url).expires_at.timestamp() == NOW + 90  # the fraction is dropped
    for expires_at in (NOW, NOW - 1, NOW + 3601, moment - timedelta(seconds=1)):
        fails(lambda e=expires_at: signed(expires_at=e), "URL_EXPIRY_INVALID", 500)
    assert signed(expires_at=NOW + 86_400, max_lifetime_seconds=86_400)
    for lifetime in (0, signed_urls.MAX_LIFETIME_SECONDS + 1):
        fails(lambda s=lifetime: signed(max_lifetime_seconds=s), "URL_KEY_INVALID", 500)
    with pytest.raises(TypeError):
        signed(expires_at=datetime(2030, 1, 1))  # naive: which zone?
    for expires_at in (float(NOW + 60), str(NOW + 60), True):
        with pytest.raises(TypeError):
            signed(expires_at=expires_at)


def test_a_query_less_url_and_a_trailing_question_mark() -> None:
    assert "/card?expires=" in signed("https://embed.example.com/card")
    assert "/card?expires=" in signed("https://embed.example.com/card?")
    verify(signed("https://embed.example.com/card?"))


@pytest.mark.parametrize(
    "url",
    [
        "",
        "x" * 4097,
        "https://embed.example.com/" + "a" * 4096,
        "https://embed.example.com/café",
        "https://embed.example.com/a b",
        "https://embed.example.com/a\nb",
        "https://embed.example.com/x#fragment",
        "https://user:pass@embed.example.com/x",
        "https://@embed.example.com/x",
        "ftp://embed.example.com/x",
        "javascript:alert(1)",
        "/relative/path",
        "https:///no-host",
        "https://embed.example.com:99999/x",
        "https://embed.example.com:port/x",
        "https://embed.example.com/%zz",
        "https://embed.example.com/%4",
        "https://embed.example.com/x?a&&b",
        "https://embed.example.com/x?=value",
        "https://embed.example.com/x?expires=1",
        "https://embed.example.com/x?signature=a",
        "https://embed.example.com/x?kid=a",
        "https://embed.example.com/x?a\ud800",
        'https://embed.example.com/x"<script>',
    ],
)
def test_urls_that_cannot_be_signed(url: str) -> None:
    fails(lambda: signed(url), "URL_MALFORMED", 400)
    received = url + "&signature=" + "A" * 43
    if url.endswith("?expires=1"):  # a well-formed signed URL to the verifier, signed wrong
        fails(lambda: verify(received), "URL_SIGNATURE_INVALID", 401)
    else:
        fails(lambda: verify(received), "URL_MALFORMED", 400)


def test_signature_parameters_that_are_not_ours() -> None:
    url = signed()
    head, signature = url.rsplit("&signature=", 1)
    fails(lambda: verify(head), "URL_SIGNATURE_MISSING", 401)
    fails(lambda: verify(f"{url}&signature={signature}"), "URL_MALFORMED", 400)
    fails(lambda: verify(f"{head}&signature={signature[:-1]}"), "URL_MALFORMED", 400)
    fails(lambda: verify(f"{head}&signature={signature}A"), "URL_MALFORMED", 400)
    fails(lambda: verify(f"{head}&signature={signature[:-1]}+"), "URL_MALFORMED", 400)
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    value = last.index(signature[-1])
    twin = signature[:-1] + last[value ^ 3]  # the low two bits are unused: the same bytes
    fails(lambda: verify(f"{head}&signature={twin}"), "URL_MALFORMED", 400)
    no_expiry = url.replace(f"expires={NOW + 300}&", "")
    fails(lambda: verify(no_expiry), "URL_MALFORMED", 400)
    for expires in ("0", "-1", "1e9", "01700000300", "9" * 13, "253402300800"):
        bad = url.replace(f"expires={NOW + 300}", f"expires={expires}")
        fails(lambda b=bad: verify(b), "URL_MALFORMED", 400)
    fails(lambda: verify(url + f"&expires={NOW + 300}"), "URL_MALFORMED", 400)
    fails(lambda: verify(url.replace("?", "?kid=a%20b&")), "URL_MALFORMED", 400)


def test_keys_and_clocks_are_checked() -> None:
    for key in (b"", b"k" * 31):
        fails(lambda k=key: signed(key=k), "URL_KEY_INVALID", 500)
        fails(lambda k=key: verify(signed(), key=k), "URL_KEY_INVALID", 500)
    for key in ("k" * 32, 32, None):
        with pytest.raises(TypeError):
            signed(key=key)
    assert signed(key=bytearray(KEY)) == signed(key=memoryview(KEY))
    for key_id in ("", "k" * 65, "a b", "ü", 7):
        fails(lambda k=key_id: signed(key_id=k), "URL_KEY_INVALID", 500)
    for now in (float("nan"), -1, 10**400, float("inf")):
        fails(lambda n=now: signed(now=n), "URL_TIME_INVALID", 500)
        fails(lambda n=now: verify(signed(), now=n), "URL_TIME_INVALID", 500)
    for now in ("0", True):
        with pytest.raises(TypeError):
            signed(now=now)
    for url in (None, b"https://embed.example.com/", 7):
        with pytest.raises(TypeError):
            signed(url)
        with pytest.raises(TypeError):
            verify(url)  # type: ignore[arg-type]


def test_the_wall_clock_is_the_default() -> None:
    import time

    url = signed_urls.sign_url(URL, key=KEY, expires_at=int(time.time()) + 120)
    assert signed_urls.verify_signed_url(url, key=KEY).key_id is None
