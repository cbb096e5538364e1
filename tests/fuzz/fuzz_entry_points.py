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
import os
import random
import secrets
import sys
import time
import traceback
from collections.abc import Callable

from _fuzz_targets import build_targets
from _fuzz_values import diff, mutate, same
from embedded_wallet_crypto import WalletCryptoError

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
