#!/usr/bin/env python3
"""Seeds each fuzz target's corpus from the project's vectors/*.json (valid and invalid inputs).

Usage: python3 rust/core/fuzz/seed_corpus.py [OUT_DIR]   (default: rust/core/fuzz/corpus)
File names are the SHA-1 of the content, as libFuzzer names its own corpus entries.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
VECTORS = ROOT / "vectors"


def cases(name: str) -> list[dict]:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))["cases"]


def unhex(text: object) -> bytes:
    try:
        return bytes.fromhex(str(text))
    except ValueError:
        return str(text).encode("utf-8", "surrogatepass")


def seeds() -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = {
        t: []
        for t in (
            "base58",
            "public_key",
            "der_signature",
            "stamp",
            "session_key",
            "hpke_open",
            "envelope",
            "secp256k1",
        )
    }
    for case in cases("base58check.json"):
        if "text" in case["inputs"]:
            out["base58"].append(case["inputs"]["text"].encode())
        elif isinstance(case.get("expected"), dict) and "text" in case["expected"]:
            out["base58"].append(case["expected"]["text"].encode())
    for case in cases("session_key.json"):
        text = case["inputs"].get("encrypted")
        if isinstance(text, str):
            out["session_key"].append(text.encode("utf-8", "surrogatepass"))
            out["base58"].append(text.encode("utf-8", "surrogatepass"))
    for case in cases("keys.json"):
        key = case["inputs"].get("public_key")
        if isinstance(key, str):
            out["public_key"].append(key.encode("utf-8", "surrogatepass"))
            out["public_key"].append(unhex(key))
    for case in cases("signatures.json"):
        inputs = case["inputs"]
        message = unhex(inputs.get("message", ""))[:255]
        out["der_signature"].append(
            bytes([len(message)]) + message + unhex(inputs.get("signature", ""))
        )
        out["public_key"].append(unhex(inputs.get("public_key", "")))
    for case in cases("stamp.json") + cases("stamp_schemes.json"):
        inputs = case["inputs"]
        if "stamp" not in inputs:  # the creation cases
            continue
        stamp = str(inputs.get("stamp", "")).encode("utf-8", "surrogatepass")
        payload = unhex(inputs.get("payload", ""))
        out["stamp"].append(stamp + b"\0" + payload)
    for case in cases("hpke.json"):
        inputs = case["inputs"]
        if "enc" in inputs and "ciphertext" in inputs:
            out["hpke_open"].append(unhex(inputs["enc"]) + unhex(inputs["ciphertext"]))
    out["public_key"] += p256_edge_seeds()
    out["envelope"] = envelope_seeds()
    out["secp256k1"] = secp256k1_seeds()
    return out


# The envelope target's first byte picks the entry point (rust/core/fuzz/fuzz_targets/envelope.rs).
_ENVELOPE_MODES = {
    "export_open": ("bundle", 0),
    "otp_encrypt": ("target_bundle", 1),
    "import_encrypt_wallet": ("import_bundle", 2),
    "import_encrypt_private_key": ("import_bundle", 2),
    "otp_decrypt": ("encrypted_otp_bundle", 3),
}


def envelope_seeds() -> list[bytes]:
    """Each vector document under its entry point's mode byte, and as JSON for the parser
    (mode 4), with the signed data it carries."""
    out: list[bytes] = []
    for name in ("export.json", "otp.json", "import.json"):
        for case in cases(name):
            field, mode = _ENVELOPE_MODES.get(case["operation"], (None, 0))
            text = case["inputs"].get(field) if field else None
            if not isinstance(text, str):
                continue
            document = text.encode("utf-8", "surrogatepass")
            out += [bytes([mode]) + document, bytes([4]) + document]
            try:
                data = json.loads(text).get("data")
            except (ValueError, AttributeError, RecursionError):
                continue
            if isinstance(data, str):
                out.append(bytes([4]) + unhex(data))
    return out


def p256_edge_seeds() -> list[bytes]:
    """Compressed P-256 keys whose x sits at the field's edges (the public_key target compares
    each with aws-lc's decoding): 0, 1, 2, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2, 2^255,
    2^224, 2^256 - p, b, and x >= p (p, p + 1, 2^256 - 1), under both prefixes."""
    p = 2**256 - 2**224 + 2**192 + 2**96 - 1
    b = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
    edges = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**255, 2**224, 2**256 - p, b]
    edges += [p, p + 1, 2**256 - 1]
    return [bytes([prefix]) + x.to_bytes(32, "big") for x in edges for prefix in (2, 3)]


def secp256k1_seeds() -> list[bytes]:
    """The secp256k1 target (rust/core/fuzz/fuzz_targets/secp256k1.rs): mode 1 (a scalar, then
    the message) for the vectors' keys and payloads; mode 0 (a compressed key, then a DER
    signature over the empty message) for their keys and signatures; and the scalars 1, n - 1."""
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    out = [bytes([1]) + (1).to_bytes(32, "big"), bytes([1]) + (n - 1).to_bytes(32, "big") + b"m"]
    for case in cases("stamp_schemes.json"):
        inputs = case["inputs"]
        private = inputs.get("private_key")
        if isinstance(private, str) and len(unhex(private)) == 32:
            out.append(bytes([1]) + unhex(private) + unhex(inputs.get("payload", ""))[:64])
        stamp = inputs.get("stamp")
        if not isinstance(stamp, str):
            continue
        try:
            fields = json.loads(base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)))
        except (ValueError, TypeError):
            continue
        if isinstance(fields, dict) and fields.get("scheme") == "SIGNATURE_SCHEME_TK_API_SECP256K1":
            key, signature = unhex(fields.get("publicKey", "")), unhex(fields.get("signature", ""))
            if len(key) == 33:
                out.append(bytes([0]) + key + signature)
    return out


def main() -> None:
    target_root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "corpus"
    total = 0
    for target, items in seeds().items():
        directory = target_root / target
        directory.mkdir(parents=True, exist_ok=True)
        for item in dict.fromkeys(items):
            (directory / hashlib.sha1(item, usedforsecurity=False).hexdigest()).write_bytes(item)
            total += 1
    print(f"{total} seeds written under {target_root}")


if __name__ == "__main__":
    main()
