"""The fuzzer's targets: each public entry point, its valid inputs (from vectors/*.json, or made
here with a fixed key) and whether its success on a mutated input is a forgery."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
from _fuzz_values import cases, h
from embedded_wallet_crypto import hpke, oidc, otp, passkeys, signed_retry


class Violation(Exception):
    pass


def forged(result: object) -> None:
    raise Violation(f"a mutated input was accepted: {result!r}"[:300])


# Each target: (name, valid argument tuples/dicts, call(args) -> result, accepts(result) -> bool).
# A call on the unmutated valid inputs is allowed to succeed; a call on mutated ones must not.


def build_targets() -> dict[str, tuple[list[dict[str, object]], Callable[..., object], bool]]:
    """name -> (valid keyword sets, function, whether success on a mutation is a forgery)."""
    t: dict[str, tuple[list[dict[str, object]], Callable[..., object], bool]] = {}
    keys = [c["inputs"]["public_key"] for c in cases("keys.json", "public_key_parse")]
    t["parse_public_key"] = ([{"key": k} for k in keys], ewc.parse_public_key, False)
    t["compress_public_key"] = ([{"key": k} for k in keys], ewc.compress_public_key, False)
    sigs = [
        {
            "public_key": c["inputs"]["public_key"],
            "message": h(c["inputs"]["message"]),
            "signature_der": h(c["inputs"]["signature"]),
        }
        for c in cases("signatures.json", "ecdsa_verify")
        if c.get("valid") and c["expected"].get("verified")
    ]
    t["verify_signature"] = (sigs, ewc.verify_signature, True)
    b58 = [{"text": c["inputs"]["text"]} for c in cases("base58check.json", "b58check_decode")]
    t["b58decode"] = (b58, ewc.b58decode, False)
    t["b58check_decode"] = (b58, ewc.b58check_decode, False)
    hp = [
        {
            "recipient_key": h(c["inputs"]["recipient_private_key"]),
            "enc": h(c["inputs"]["enc"]),
            "ciphertext": h(c["inputs"]["ciphertext"]),
        }
        for c in cases("hpke.json", "hpke_open")
        if c.get("valid")
        and c["inputs"].get("aad") is None
        and c["inputs"].get("info") in (None, "7475726e6b65795f68706b65")
    ]
    t["hpke.open"] = (
        hp,
        lambda **kw: hpke.open(kw.pop("recipient_key"), kw.pop("enc"), kw.pop("ciphertext")),
        True,
    )
    sk = [
        {
            "encrypted_session_signing_key": c["inputs"]["encrypted"],
            "client_key": h(c["inputs"]["client_private_key"]),
        }
        for c in cases("session_key.json", "session_key_open")
        if c.get("valid")
    ]
    t["open_session_key"] = (sk, lambda **kw: ewc.open_session_key(**kw), True)
    st = [
        {"stamp": c["inputs"]["stamp"], "payload": h(c["inputs"]["payload"])}
        for c in cases("stamp.json", "stamp_verify")
        if c.get("valid") and not c["inputs"].get("sandbox")
    ]
    t["verify_stamp"] = (st, lambda **kw: ewc.verify_stamp(kw["stamp"], kw["payload"]), True)
    t["verify_stamps"] = (
        st,
        lambda **kw: _stamps_forged(ewc.verify_stamps([kw["stamp"]], [kw["payload"]])),
        True,
    )
    t["check_payload_binding"] = (
        [
            {
                "payload_to_sign": b'{"targetPublicKey":"' + k.encode() + b'"}',
                "client_public_key": k,
            }
            for k in keys[:3]
        ],
        lambda **kw: ewc.check_payload_binding(**kw),
        False,
    )
    ex = [
        {
            "bundle": c["inputs"]["bundle"],
            "client_key": h(c["inputs"]["client_private_key"]),
            "organization_id": c["inputs"].get("organization_id"),
            "signer_public_key": c["inputs"]["signer_public_key"],
        }
        for c in cases("export.json", "export_open")
        if c.get("valid") and not c["inputs"].get("sandbox")
    ]
    t["open_export_bundle"] = (
        ex,
        lambda **kw: ewc.open_export_bundle(
            kw["bundle"],
            kw["client_key"],
            organization_id=kw["organization_id"],
            signer_public_key=kw["signer_public_key"],
        ),
        True,
    )
    od = [
        {
            "encrypted_otp_bundle": c["inputs"]["encrypted_otp_bundle"],
            "target_key": h(c["inputs"]["target_private_key"]),
        }
        for c in cases("otp.json", "otp_decrypt")
        if c.get("valid")
    ]
    t["otp.decrypt_otp_bundle"] = (od, lambda **kw: otp.decrypt_otp_bundle(**kw), True)
    oe = [
        {
            k: c["inputs"][k]
            for k in (
                "target_bundle",
                "otp_code",
                "client_public_key",
                "signer_public_key",
                "organization_id",
                "user_id",
            )
            if k in c["inputs"]
        }
        for c in cases("otp.json", "otp_encrypt")
        if c.get("valid") and not c["inputs"].get("sandbox")
    ]
    t["otp.encrypt_otp_code"] = (
        oe,
        lambda **kw: otp.encrypt_otp_code(
            kw.pop("target_bundle"), kw.pop("otp_code"), kw.pop("client_public_key"), **kw
        ),
        False,
    )
    pa = []
    for c in cases("passkey.json", "passkey_assertion"):
        if c.get("valid") and not c["inputs"].get("sandbox"):
            i = c["inputs"]
            pa.append(
                {
                    "assertion": i["assertion"],
                    "credential_public_key": h(i["credential_public_key"]),
                    "expected_challenge": h(i["expected_challenge"]),
                    "rp_id": i["rp_id"],
                    "origin": i["origin"],
                    "current_sign_count": i["current_sign_count"],
                }
            )
    t["passkeys.verify_assertion"] = (
        pa,
        lambda **kw: passkeys.verify_assertion(kw.pop("assertion"), **kw),
        True,
    )
    pr = []
    for c in cases("passkey.json", "passkey_registration"):
        if c.get("valid"):
            i = c["inputs"]
            pr.append(
                {
                    "attestation": i["attestation"],
                    "expected_challenge": h(i["expected_challenge"]),
                    "rp_id": i["rp_id"],
                    "origin": i["origin"],
                }
            )
    # Not a forgery check: a registration proves nothing about an existing secret. Under the
    # "none" attestation format nothing in the attestation object is signed at all, so a
    # mutation that stays well-formed (another sign count, flags the checks allow, another
    # credential key) is a different, equally valid registration.
    t["passkeys.verify_registration"] = (
        pr,
        lambda **kw: passkeys.verify_registration(kw.pop("attestation"), **kw),
        False,
    )
    ov = []
    for c in cases("oidc.json", "oidc_verify"):
        if c.get("valid") and not c["inputs"].get("sandbox"):
            i = dict(c["inputs"])
            i.pop("sandbox", None)
            ov.append(i)
    t["oidc.verify_id_token"] = (ov, _oidc_verify, True)
    os_ = [{"token": c["inputs"]["token"]} for c in cases("oidc.json", "oidc_token_shape")]
    t["oidc.check_token_shape"] = (os_, lambda **kw: oidc.check_token_shape(kw["token"]), False)
    t["verify_webhook_signature"] = (
        _webhook_valid(),
        lambda **kw: ewc.verify_webhook_signature(**kw),
        True,
    )
    t["SignedRetry.verify"] = (_retry_valid(), _retry_verify, True)
    ders = [{"signature": s["signature_der"]} for s in sigs]
    t["der_to_p1363"] = (ders, lambda **kw: ewc.der_to_p1363(**kw), False)
    raws = [{"signature": ewc.der_to_p1363(s["signature_der"])} for s in sigs]  # type: ignore[arg-type]
    t["p1363_to_der"] = (raws, lambda **kw: ewc.p1363_to_der(**kw), False)
    schemes = [
        {"stamp": c["inputs"]["stamp"], "payload": h(c["inputs"]["payload"])}
        for c in cases("stamp_schemes.json", "stamp_verify_schemes")
        if c.get("valid") and c["inputs"].get("expected_public_key") is None
    ]
    t["verify_stamp (schemes)"] = (
        schemes,
        lambda **kw: ewc.verify_stamp(kw["stamp"], kw["payload"], schemes=ALL_SCHEMES),
        True,
    )
    t["verify_turnkey_webhook"] = (*_turnkey_webhook(), True)
    t["tokens.verify_session_jwt"] = (*_session_jwt(), True)
    t["tokens.verify_verification_token"] = (*_verification_token(), True)
    t["proofs.verify_app_proof"] = (_app_proofs(), _app_proof_verify, True)
    return t


ALL_SCHEMES = (ewc.STAMP_SCHEME_P256, ewc.STAMP_SCHEME_SECP256K1, ewc.STAMP_SCHEME_ED25519)


def _turnkey_webhook() -> tuple[list[dict[str, object]], Callable[..., object]]:
    """Only what the sender controls (headers, body) is mutated; the receiver's keys, window
    and clock stay those of the vector."""
    from datetime import datetime, timezone

    settings: list[tuple[object, object, object]] = []
    valid: list[dict[str, object]] = []
    for c in cases("turnkey_webhook.json", "turnkey_webhook_verify"):
        if c.get("valid"):
            i = c["inputs"]
            now = datetime.fromtimestamp(i["now_ms"] / 1000, tz=timezone.utc)
            settings.append((i["verification_keys"], i["max_age_seconds"], now))
            headers = i["headers"]  # a JSON object, or a list of [name, value] pairs
            if isinstance(headers, list):
                headers = [tuple(pair) for pair in headers]
            valid.append({"headers": headers, "body": h(i["body"]), "setting": len(valid)})

    def call(**kw: object) -> object:
        index = kw.pop("setting")
        keys, max_age, now = settings[
            index if isinstance(index, int) and 0 <= index < len(settings) else 0
        ]
        return ewc.verify_turnkey_webhook(
            kw["headers"],
            kw["body"],
            verification_keys=keys,
            max_age_seconds=max_age,
            now=now,  # type: ignore[arg-type]
        )

    return valid, call


_TOKEN_SIGNER = ewc.KeyPair.from_private_bytes(bytes(range(1, 33)))


def _token_now() -> Any:
    from datetime import datetime, timezone

    return datetime(2029, 12, 31, tzinfo=timezone.utc)


def _session_jwt() -> tuple[list[dict[str, object]], Callable[..., object]]:
    from datetime import datetime, timezone

    from embedded_wallet_crypto import tokens

    token = tokens.mint_session_jwt(
        _TOKEN_SIGNER,
        public_key=_TOKEN_SIGNER.public_key_hex(compressed=True),
        user_id="user-1",
        organization_id="org-1",
        expires_at=datetime(2030, 1, 1, tzinfo=timezone.utc),
    )
    return [{"token": token}], lambda **kw: tokens.verify_session_jwt(
        kw["token"],  # type: ignore[arg-type]
        notarizer_public_key=_TOKEN_SIGNER.public_key_hex(),
        now=_token_now(),
    )


def _verification_token() -> tuple[list[dict[str, object]], Callable[..., object]]:
    from datetime import datetime, timezone

    from embedded_wallet_crypto import tokens

    token = tokens.mint_verification_token(
        _TOKEN_SIGNER,
        verification_type="OTP_TYPE_EMAIL",
        contact="user@example.com",
        organization_id="org-1",
        public_key=_TOKEN_SIGNER.public_key_hex(compressed=True),
        expires_at=datetime(2030, 1, 1, tzinfo=timezone.utc),
        token_id="token-1",
    )
    return [{"token": token}], lambda **kw: tokens.verify_verification_token(
        kw["token"],  # type: ignore[arg-type]
        signer_public_key=_TOKEN_SIGNER.public_key_hex(),
        now=_token_now(),
    )


def _app_proofs() -> list[dict[str, object]]:
    encryption = ewc.KeyPair.from_private_bytes(bytes(range(2, 34)))
    payload = '{"type":"APP_PROOF_TYPE_ADDRESS_DERIVATION","timestampMs":"1758058763571"}'
    proof = {
        "scheme": "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256",
        "publicKey": encryption.public_key_hex() + _TOKEN_SIGNER.public_key_hex(),
        "proofPayload": payload,
        "signature": ewc.der_to_p1363(_TOKEN_SIGNER.sign(payload.encode())).hex(),
    }
    return [{"app_proof": proof}, {"app_proof": json.dumps(proof)}]


def _app_proof_verify(**kw: object) -> object:
    from embedded_wallet_crypto import proofs

    return proofs.verify_app_proof(kw["app_proof"])  # type: ignore[arg-type]


def _stamps_forged(result: list[bool]) -> list[bool] | None:
    return result if any(result) else None


def _oidc_verify(**kw: object) -> object:
    from datetime import datetime, timezone

    kw = dict(kw)
    now = kw.pop("now", None)
    if isinstance(now, (int, float)) and not isinstance(now, bool) and abs(now) < 1e11:
        kw["now"] = datetime.fromtimestamp(now, tz=timezone.utc) if math.isfinite(now) else now
    elif isinstance(now, str):
        try:
            kw["now"] = datetime.fromisoformat(now)
        except (ValueError, OverflowError):
            kw["now"] = now
    elif now is not None:
        kw["now"] = now
    token = kw.pop("token")
    return oidc.verify_id_token(token, **kw)  # type: ignore[arg-type]


def _webhook_valid() -> list[dict[str, object]]:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        return []
    import base64

    key = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    body = b'{"event":"x"}'
    sig = key.sign(body)
    pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    out = []
    for header in (base64.b64encode(sig).decode(), sig.hex()):
        out.append({"header": header, "body": body, "public_key_pem_or_der": pem})
    return out


_RETRY: dict[str, Any] = {}


def _retry_valid() -> list[dict[str, object]]:
    out = []
    for c in cases("signed_retry.json", "signed_retry_scenario"):
        for step in c["inputs"].get("steps", []):
            step = step.get("verify") if isinstance(step, dict) else None
            if isinstance(step, dict) and "stamp" in step:
                item = {
                    k: v
                    for k, v in step.items()
                    if k
                    in (
                        "request_id",
                        "stamp",
                        "account_session_keys",
                        "request_body_client_public_key",
                        "account_id",
                    )
                }
                if "account_session_keys" in item:
                    out.append(item)
    return out


def _retry_verify(**kw: object) -> object:
    retry = signed_retry.SignedRetry(clock=lambda: 1e9)
    return retry.verify(**kw)  # type: ignore[arg-type]
