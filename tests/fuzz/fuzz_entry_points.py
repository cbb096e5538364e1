#!/usr/bin/env python3
"""Contract fuzzer for the public Python entry points (run by scripts/fuzz.sh).

Each entry point gets hostile values (lone surrogates, NUL, ints, floats, NaN, None, huge ints,
released memoryviews, str/bytes/dict subclasses) and byte/char mutations of valid inputs taken
from vectors/*.json (tokens and app proofs: made here with a fixed key). The contract: only a
WalletCryptoError subclass, or TypeError for a wrong Python type, may escape; a mutated input
never verifies or opens.

    python tests/fuzz/fuzz_entry_points.py --examples 2000 [--seed N] [--only NAME]

Each run draws a new seed unless one is given (``--seed N``, or ``EWC_FUZZ_SEED=N``) and prints
it first; a run with that seed and the same ``--examples`` replays the same inputs. Every
distinct violation (entry point, exception type, innermost frame) is printed once with a
reproducer and the seed; the exit status is 1 if there was any.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import secrets
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto import WalletCryptoError, hpke, oidc, otp, passkeys, signed_retry

ROOT = Path(__file__).resolve().parents[2]


def cases(name: str, operation: str) -> list[dict[str, Any]]:
    data = json.loads((ROOT / "vectors" / name).read_text(encoding="utf-8"))
    return [c for c in data["cases"] if c["operation"] == operation]


class StrSub(str):
    pass


class BytesSub(bytes):
    pass


class DictSub(dict):  # type: ignore[type-arg]
    pass


def released_view() -> memoryview:
    view = memoryview(b"\x04" * 65)
    view.release()
    return view


HOSTILE: list[Callable[[], object]] = [
    lambda: None,
    lambda: 0,
    lambda: -1,
    lambda: 32,
    lambda: 2**64,
    lambda: 10**400,
    lambda: -(10**400),
    lambda: 1.5,
    lambda: math.nan,
    lambda: math.inf,
    lambda: True,
    lambda: "",
    lambda: "\ud800",
    lambda: "\udfff" * 3,
    lambda: "\x00",
    lambda: "a\x00b",
    lambda: "\u0660\u0661",  # Arabic-Indic digits
    lambda: "\uff10" * 66,  # fullwidth zeros
    lambda: b"",
    lambda: b"\x00" * 65,
    lambda: bytearray(b"\x04" * 65),
    lambda: released_view(),
    lambda: StrSub("02" + "00" * 32),
    lambda: BytesSub(b"\x02" + b"\x00" * 32),
    lambda: DictSub(),
    lambda: {},
    lambda: [],
    lambda: (),
    lambda: {"\ud800": "\ud800"},
    lambda: object(),
    lambda: "x" * 5000,
]


def mutate(rng: random.Random, value: object) -> object:
    """A hostile value, or a small mutation of `value` (str, bytes or a JSON-able dict)."""
    if rng.random() < 0.3:
        return rng.choice(HOSTILE)()
    if isinstance(value, (bytes, bytearray)):
        data = bytearray(value)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(4)
            if op == 0 and data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            elif op == 1 and data:
                del data[rng.randrange(len(data))]
            elif op == 2:
                data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
            elif data:
                data = data[: rng.randrange(len(data))]
        out: object = bytes(data)
        return BytesSub(out) if rng.random() < 0.1 else out  # type: ignore[arg-type]
    if isinstance(value, str):
        chars = list(value)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(5)
            pool = '\ud800\x00\u00e9 {}"\\0aAzZ19+/=-_.\n'
            if op == 0 and chars:
                chars[rng.randrange(len(chars))] = rng.choice(pool)
            elif op == 1 and chars:
                del chars[rng.randrange(len(chars))]
            elif op == 2:
                chars.insert(rng.randrange(len(chars) + 1), rng.choice(pool))
            elif op == 3 and chars:
                i = rng.randrange(len(chars))
                chars[i] = chr(ord(chars[i]) ^ (1 << rng.randrange(7)))
            elif chars:
                chars = chars[: rng.randrange(len(chars))]
        text = "".join(chars)
        return StrSub(text) if rng.random() < 0.1 else text
    if isinstance(value, dict):
        copy = dict(value)
        if copy:
            key = rng.choice(list(copy))
            copy[key] = mutate(rng, copy[key])
        return DictSub(copy) if rng.random() < 0.2 else copy
    return rng.choice(HOSTILE)()


def diff(old: object, new: object) -> str:
    """A short description of a mutation (the first differing item of a dict)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if not same(old[key], new.get(key)):
                return f"[{key!r}] {old[key]!r:.60} -> {new.get(key)!r:.60}"
    return f"{old!r:.60} -> {new!r:.60}"


def same(a: object, b: object) -> bool:
    """Equal content (a bytes or str subclass with the same content is not a change)."""
    one_of_each = isinstance(a, str) != isinstance(b, str)
    if one_of_each and isinstance(a, (str, bytes)) and isinstance(b, (str, bytes)):
        text, data = (a, b) if isinstance(a, str) else (b, a)
        return text.encode("utf-8", "surrogatepass") == bytes(data)  # payloads take either
    for kind in (bytes, str):
        if isinstance(a, kind) and isinstance(b, kind):
            return kind(a) == kind(b)  # type: ignore[call-arg]
    return type(a) is type(b) and a == b


class Violation(Exception):
    pass


def forged(result: object) -> None:
    raise Violation(f"a mutated input was accepted: {result!r}"[:300])


# Each target: (name, valid argument tuples/dicts, call(args) -> result, accepts(result) -> bool).
# A call on the unmutated valid inputs is allowed to succeed; a call on mutated ones must not.


def h(text: str) -> bytes:
    return bytes.fromhex(text)


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


# Where the caller's own settings legitimately change the outcome (a stored sign count), only a
# change of these keys counts as a mutation for the forgery check.
SIGNED = {"passkeys.verify_assertion": {"assertion", "credential_public_key", "expected_challenge"}}

# Keys whose change must always be refused (the signed or sealed bytes themselves).
STRICT = {
    "verify_signature": {"message", "signature_der"},
    "verify_stamp": {"payload"},
    "verify_stamps": {"payload"},
    "hpke.open": {"ciphertext"},
    "verify_stamp (schemes)": {"payload"},
    "verify_turnkey_webhook": {"body"},
    "tokens.verify_session_jwt": {"token"},
    "tokens.verify_verification_token": {"token"},
}
# Keys the harness carries but the caller (not an attacker) sets: a change is not a mutation.
SIGNED["verify_turnkey_webhook"] = {"headers", "body"}


def unsigned_view(result: object) -> str:
    """The result without what no signature covers: a WebAuthn assertion's credentialId and
    userHandle are sent beside the signed data, and echoed back unchanged (the caller must
    match them to the stored credential)."""
    if dataclasses.is_dataclass(result) and type(result).__name__ == "VerifiedAssertion":
        result = dataclasses.replace(result, credential_id=b"", user_handle=None)  # type: ignore[type-var]
    return repr(result)


def contract(
    name: str,
    fn: Callable[..., object],
    kwargs: dict[str, object],
    mutated: bool,
    forgery: bool,
    base_result: object = None,
    strict_changed: bool = False,
) -> str | None:
    try:
        result = fn(**kwargs)
    except WalletCryptoError:
        return None
    except TypeError:
        return None
    except RecursionError:
        return "RecursionError"
    except Exception as exc:  # the whole point: anything else is a finding
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.split('site-packages/')[-1]}:{tb[-1].lineno}" if tb else "?"
        return f"{type(exc).__name__} at {where}: {str(exc)[:160]!r}"
    accepted = result is not None and result is not False
    if (
        mutated
        and forgery
        and accepted
        and (strict_changed or unsigned_view(result) != unsigned_view(base_result))
    ):
        return f"accepted a mutated input: {result!r}"[:200]
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=2000, help="calls per entry point")
    parser.add_argument(
        "--seed", type=int, default=None, help="replay a run (default: $EWC_FUZZ_SEED or a new one)"
    )
    parser.add_argument("--only")
    args = parser.parse_args()
    seed = args.seed
    if seed is None:
        given = os.environ.get("EWC_FUZZ_SEED", "").strip()
        seed = int(given) if given.isdigit() else secrets.randbelow(2**31 - 1) + 1
    print(f"seed {seed} (replay: --seed {seed} --examples {args.examples})", flush=True)
    rng = random.Random(seed)
    targets = build_targets()
    seen: dict[tuple[str, str], tuple[str, dict[str, object]]] = {}
    for name, (valid, fn, forgery) in targets.items():
        if args.only and args.only != name:
            continue
        if not valid:
            print(f"{name}: no valid inputs found in vectors, hostile values only")
            valid = [{}]
        start = time.monotonic()
        calls = 0
        base_results: dict[int, object] = {}
        for _ in range(args.examples):
            index = rng.randrange(len(valid))
            base = valid[index]
            if index not in base_results:
                try:
                    base_results[index] = fn(**dict(base))
                except Exception:  # a valid input may be refused today
                    base_results[index] = None
            kwargs = dict(base)
            changed_keys: list[str] = []
            mutated = strict_changed = False
            signed_keys = SIGNED.get(name)
            if kwargs:
                for key in rng.sample(list(kwargs), k=rng.randint(1, min(2, len(kwargs)))):
                    new = mutate(rng, kwargs[key])
                    if not same(new, kwargs[key]) and (signed_keys is None or key in signed_keys):
                        mutated = True
                        changed_keys.append(f"{key}: {diff(kwargs[key], new)}")
                        strict_changed |= key in STRICT.get(name, ())
                    kwargs[key] = new
            else:
                mutated = True
            problem = contract(
                name, fn, kwargs, mutated, forgery, base_results[index], strict_changed
            )
            calls += 1
            if problem:
                kind = (
                    problem.split(":")[0] + problem.split(" at ")[-1].split(":")[0]
                    if " at " in problem
                    else problem[:60]
                )
                if (name, kind) not in seen:
                    seen[(name, kind)] = (f"{problem}\n    changed: {changed_keys}", kwargs)
        print(f"{name}: {calls} calls in {time.monotonic() - start:.1f} s")
    for (name, _), (problem, kwargs) in seen.items():
        shown = {k: (v if len(repr(v)) < 200 else repr(v)[:200] + "...") for k, v in kwargs.items()}
        print(f"VIOLATION {name}: {problem}\n    input: {shown!r}")
    print(f"{len(seen)} distinct violations")
    if seen:
        print(f"replay: {sys.argv[0]} --seed {seed} --examples {args.examples}")
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
