"""The sandbox page's own cryptography (``sandbox/static/page.js``) in a real browser: headless
Chromium driven by Playwright, against known answers: the project's vectors and values made by
the Python library (the oracle).

base58check, P-256 point decompression, the HPKE open of the session key and of export
envelopes, DER signatures and the stamp; and a quote's payloadToSign: the page's check that it
is the quote it shows before stamping it, and its stamps over fixed quote payloads by upstream's
fixture key. The page's files are served alone on a loopback origin, no service behind them
(the page end to end against ``ewc serve`` is ``test_page``).

Debian's ``/usr/bin/chromium`` is used (``EWC_CHROMIUM`` overrides); without a browser the tests
skip and say so, except under ``CI=true``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import REPO, load_upstream_json
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

STATIC = resources.files("embedded_wallet_crypto") / "sandbox" / "static"
VECTORS = REPO / "vectors"


@pytest.fixture(scope="module")
def static_origin() -> Iterator[str]:
    """The static files alone on a loopback origin (a secure context), no service behind them."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(STATIC))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def js(browser: Any, static_origin: str) -> Iterator[Any]:
    """Calls into page.js: ``js(expression, argument)`` evaluates with ``m`` the module."""
    page = browser.new_page()
    page.goto(static_origin + "/index.html")

    def call(body: str, argument: Any = None) -> Any:
        return page.evaluate(
            f"async (arg) => {{ const m = await import('/page.js'); {body} }}", argument
        )

    yield call
    page.close()


def _cases(name: str, operation: str) -> list[dict[str, Any]]:
    cases = json.loads((VECTORS / f"{name}.json").read_text())["cases"]
    return [case for case in cases if case["operation"] == operation]


# ---- the page's cryptography against known answers ---------------------------------------

OPEN_SESSION_KEY = """
const client = await m.importScalar(m.unhex(arg.client_private_key), "derive");
try {
  const session = await m.openSessionKey(arg.encrypted, client);
  const jwk = await crypto.subtle.exportKey("jwk", session.privateKey);
  return {scalar: m.hex(m.unb64url(jwk.d)), publicKey: m.hex(session.publicKey)};
} catch (error) { return {error: String(error)}; }
"""


@pytest.mark.parametrize(
    "case", _cases("session_key", "session_key_open"), ids=lambda case: case["id"]
)
def test_the_page_opens_the_session_key_vectors(js: Any, case: dict[str, Any]) -> None:
    inputs = dict(case["inputs"], client_private_key=case["inputs"]["client_private_key"].lower())
    got = js(OPEN_SESSION_KEY, inputs)
    if case["valid"]:
        assert got == {
            "scalar": case["expected"]["session_private_key"],
            "publicKey": case["expected"]["session_public_key"],
        }
    else:
        assert "error" in got, case["error"]


def test_the_page_opens_what_the_library_seals(js: Any) -> None:
    # Fixed ephemeral keys of both parities (the compressed enc starts 02 or 03), so the
    # decompression takes both branches on every run.
    client = ewc.KeyPair.from_private_hex("11" * 32)
    parities = set()
    for seed in range(1, 9):
        ephemeral = ewc.KeyPair.from_private_hex(f"{seed:064x}")
        session = ewc.KeyPair.from_private_hex(f"{seed + 1000:064x}")
        enc, ciphertext = ewc.hpke.seal_deterministic_for_tests(
            client.public_key_hex(), session.private_key_bytes(), ephemeral_key=ephemeral
        )
        compressed = ewc.compress_public_key(enc)
        parities.add(compressed[0])
        encrypted = ewc.b58check_encode(compressed + ciphertext)
        assert ewc.open_session_key(encrypted, client).private_key_bytes() == (
            session.private_key_bytes()
        )
        got = js(OPEN_SESSION_KEY, {"client_private_key": "11" * 32, "encrypted": encrypted})
        assert got == {
            "scalar": session.private_key_bytes().hex(),
            "publicKey": session.public_key_hex(),
        }
    assert parities == {2, 3}


def test_the_page_decompresses_points_like_the_library(js: Any) -> None:
    points = [ewc.KeyPair.from_private_hex(f"{d:064x}").public_key_hex() for d in range(1, 17)]
    compressed = [ewc.compress_public_key(point).hex() for point in points]
    got = js("return arg.map((p) => m.hex(m.decompress(m.unhex(p))));", compressed)
    assert got == points
    # Not on the curve: x = 1 has no y (the library refuses the same point).
    not_a_point = "02" + "00" * 31 + "01"
    with pytest.raises(ewc.InvalidKey):
        ewc.parse_public_key(not_a_point)
    assert (
        js(
            "try { m.decompress(m.unhex(arg)); return 'opened'; } catch (e) { return 'refused'; }",
            not_a_point,
        )
        == "refused"
    )


def test_the_page_opens_export_envelopes(js: Any) -> None:
    cases = [
        case
        for case in _cases("export", "export_open")
        if case["valid"] and json.loads(case["inputs"]["bundle"]).get("version") == "v1.0.0"
    ]
    assert cases
    for case in cases:
        got = js(
            """const client = await m.importScalar(m.unhex(arg.key), "derive");
            const opened = await m.openExportEnvelope(arg.bundle, client);
            return m.hex(new TextEncoder().encode(opened.plaintext));""",
            {"key": case["inputs"]["client_private_key"], "bundle": case["inputs"]["bundle"]},
        )
        if case["expected"]["plaintext"].startswith("6c6567616c"):  # the mnemonic (text)
            assert got == case["expected"]["plaintext"], case["id"]
    # The sandbox form (unsigned), sealed by the library.
    client = ewc.KeyPair.from_private_hex("22" * 32)
    bundle = ewc.seal_export_bundle(
        client.public_key_hex(), "legal winner thank year", organization_id="org-page"
    )
    assert json.loads(bundle)["dataSignature"] == ""
    got = js(
        """const client = await m.importScalar(m.unhex(arg.key), "derive");
        return await m.openExportEnvelope(arg.bundle, client);""",
        {"key": "22" * 32, "bundle": bundle},
    )
    assert got == {
        "signed": False,
        "organizationId": "org-page",
        "plaintext": "legal winner thank year",
    }


def test_der_signatures_match_cryptography(js: Any) -> None:
    # r and s with a high first bit (a 0x00 is prepended), with leading zero bytes (stripped),
    # and the smallest values.
    values = [
        1,
        0x7F,
        0x80,
        0xFF << 248,
        0x7F << 248,
        0x80 << 240,
        0x01 << 200,
        0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632550,
    ]
    pairs = [(r, s) for r in values for s in values]
    raws = [r.to_bytes(32, "big").hex() + s.to_bytes(32, "big").hex() for r, s in pairs]
    got = js("return arg.map((raw) => m.hex(m.derSignature(m.unhex(raw))));", raws)
    assert got == [encode_dss_signature(r, s).hex() for r, s in pairs]


def test_the_library_accepts_the_page_stamps(js: Any) -> None:
    payloads = [
        _cases("stamp", "stamp_verify")[0]["inputs"]["payload"],
        '{"organizationId":"org","parameters":{"apiKeyIds":["Session:1"],"userId":"u"},'
        '"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_DELETE_API_KEYS"}',
        "not json at all, ünïcödé ✓ \n trailing space ",
    ]
    session = ewc.KeyPair.from_private_hex("33" * 32)
    stamps = js(
        """const session = await m.importScalar(m.unhex(arg.key), "sign");
        const out = [];
        for (const payload of arg.payloads) {
          for (let i = 0; i < 8; i++) out.push([payload, await m.createStamp(session, payload)]);
        }
        return out;""",
        {"key": "33" * 32, "payloads": payloads},
    )
    reference = ewc.create_stamp("x", session)
    for payload, stamp in stamps:
        verified = ewc.verify_stamp(stamp, payload, expected_public_key=session.public_key_hex())
        assert verified.public_key == ewc.compress_public_key(session.public_key_hex()).hex()
        # The same JSON as the library writes: keys in order, no whitespace, no padding.
        assert "=" not in stamp
        assert _stamp_keys(stamp) == _stamp_keys(reference)
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, payload + " ")


def _stamp_keys(stamp: str) -> list[str]:
    import base64

    text = base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)).decode()
    assert ", " not in text and ": " not in text
    return list(json.loads(text))


# ---- a quote's payloadToSign: the page's check and its stamp ------------------------------

#: A quote from an embedded wallet as the sandbox answers it (fixed values), and the summary its
#: payloadToSign carries in ``unsignedTransaction``.
QUOTE = {
    "id": "Quote:page-kat",
    "destination": {"destinationType": "ACCOUNT", "accountId": "InternalAccount:usd"},
    "sendingCurrency": {"code": "USDC", "name": "USD Coin", "symbol": "USDC", "decimals": 6},
    "receivingCurrency": {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
    "totalSendingAmount": 10_150_000,
    "totalReceivingAmount": 1_000,
}
WALLET = "InternalAccount:wallet"


def _quote_payload(summary_changes: dict[str, Any] | None = None, **parameters: Any) -> str:
    summary = {
        "quoteId": QUOTE["id"],
        "sendingCurrency": "USDC",
        "totalSendingAmount": QUOTE["totalSendingAmount"],
        "receivingCurrency": "USD",
        "totalReceivingAmount": QUOTE["totalReceivingAmount"],
        "destination": QUOTE["destination"],
        **(summary_changes or {}),
    }
    unsigned = json.dumps(summary, separators=(",", ":"), sort_keys=True).encode().hex()
    fields = {
        "signWith": WALLET,
        "unsignedTransaction": unsigned,
        "type": "TRANSACTION_TYPE_QUOTE",
        **parameters,
    }
    return json.dumps(
        {
            "organizationId": "org-page",
            "parameters": fields,
            "timestampMs": "1700000000000",
            "type": "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        },
        separators=(",", ":"),
    )


CHECK_QUOTE_PAYLOAD = """
try { return {summary: m.checkQuotePayload(arg.payload, arg.quote, arg.wallet)}; }
catch (error) { return {error: String(error)}; }
"""


def test_the_page_checks_a_quote_payload_before_stamping(js: Any) -> None:
    good = _quote_payload()
    got = js(CHECK_QUOTE_PAYLOAD, {"payload": good, "quote": QUOTE, "wallet": WALLET})
    assert got["summary"]["quoteId"] == QUOTE["id"]
    refused = {
        "another wallet": _quote_payload(signWith="InternalAccount:other"),
        "another quote": _quote_payload({"quoteId": "Quote:other"}),
        "another amount": _quote_payload({"totalSendingAmount": 10_150_001}),
        "another currency": _quote_payload({"receivingCurrency": "EUR"}),
        "another destination": _quote_payload({"destination": {"accountId": "X"}}),
        "not hex": _quote_payload(unsignedTransaction="zz"),
        "odd hex": _quote_payload(unsignedTransaction="7b2"),
        "not a summary": _quote_payload(unsignedTransaction=b"[1]".hex()),
        "another activity": good.replace("SIGN_TRANSACTION_V2", "EXPORT_WALLET"),
        "not JSON": good[:-1],
    }
    for why, payload in refused.items():
        got = js(CHECK_QUOTE_PAYLOAD, {"payload": payload, "quote": QUOTE, "wallet": WALLET})
        assert "payloadToSign is not this quote" in got.get("error", ""), why


def test_the_page_stamps_quote_payloads_known_answer(js: Any) -> None:
    """Upstream's P-256 fixture key: the browser derives its published public key, and its
    stamps over fixed quote payloads verify with the library under that key (and only over
    those bytes, and only for that key)."""
    (fixture,) = [
        case
        for case in load_upstream_json("turnkey-sdk/api_key_stamps.json")["cases"]
        if case["id"] == "p256-fixture-key"
    ]
    private_key = fixture["input"]["private_key_hex"]
    public_key = fixture["expected"]["public_key_compressed_hex"]
    (scenario,) = [
        case
        for case in json.loads((VECTORS / "signed_retry.json").read_text())["cases"]
        if case["id"] == "execute-quote-once"
    ]
    vector_payload = next(
        outcome["challenge"]["payloadToSign"]
        for outcome in scenario["expected"]["outcomes"]
        if "challenge" in outcome
    )
    assert json.loads(vector_payload)["type"] == "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
    payloads = [vector_payload, _quote_payload()]
    got = js(
        """const session = await m.importScalar(m.unhex(arg.key), "sign");
        const stamps = [];
        for (const payload of arg.payloads) stamps.push(await m.createStamp(session, payload));
        return {publicKey: m.hex(m.compress(session.publicKey)), stamps};""",
        {"key": private_key, "payloads": payloads},
    )
    assert got["publicKey"] == public_key
    other = ewc.KeyPair.from_private_hex("44" * 32).public_key_hex(compressed=True)
    for payload, stamp in zip(payloads, got["stamps"], strict=True):
        verified = ewc.verify_stamp(stamp, payload, expected_public_key=public_key)
        assert verified.public_key == public_key
        assert verified.scheme == "SIGNATURE_SCHEME_TK_API_P256"
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, payload.replace("1700000000000", "1700000000001"))
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, payload, expected_public_key=other)
