#!/usr/bin/env bash
# Fuzzes the Rust core (cargo-fuzz, one libFuzzer process at a time) and the Python entry points.
# Every target of rust/core/fuzz (`cargo fuzz list`): base58, public_key (P-256 point decoding
# against aws-lc's), der_signature, stamp, session_key, hpke_open, envelope (export/import/target
# bundles, OTP bundle, strict JSON) and secp256k1 (libsecp256k1 against aws-lc: keys, verdicts).
#   scripts/fuzz.sh            # 20 s per Rust target, then the Python harness (CI)
#   scripts/fuzz.sh 600        # 10 minutes per target, and a longer Python run
# PYTHON (default .venv/bin/python) runs tests/fuzz/fuzz_entry_points.py; PY_EXAMPLES sets its
# calls per entry point (default 100 per second of the Rust budget). After a long run, refresh
# the committed corpus with `cargo fuzz cmin -O <target> <run corpus>` (see rust/core/fuzz).
# Each run draws a new seed (printed first) for every cargo-fuzz target (libFuzzer -seed=) and
# for the Python harness, so that runs do not replay the same inputs; FUZZ_SEED=N replays a
# run (with the same time per target; libFuzzer's time-bounded runs replay the same start).
# Exits non-zero on any crash, panic or contract violation, naming the seed. Stable Rust works:
# the sanitizer flags need RUSTC_BOOTSTRAP=1. Fuzz builds use their own target directory.
set -euo pipefail
SECONDS_PER_TARGET="${1:-20}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$ROOT/target/fuzz}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
ARTIFACTS="${FUZZ_ARTIFACTS:-$(mktemp -d)}"
LOGS="${FUZZ_LOGS:-$ARTIFACTS/logs}"
mkdir -p "$LOGS"
# 1 to 2^31-1 (libFuzzer takes 0 as "pick one yourself", which could not be replayed).
SEED="${FUZZ_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 2147483647 + 1 ))}"
echo "fuzz seed: $SEED (replay: FUZZ_SEED=$SEED scripts/fuzz.sh $SECONDS_PER_TARGET)"

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

cd "$ROOT/rust/core"
start=$(date +%s)
# cargo fuzz has no --locked: check that the committed fuzz/Cargo.lock is current first.
cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null
cargo fuzz build -O
echo "build: $(( $(date +%s) - start )) s"

status=0
for target in $(cargo fuzz list); do
  work="$ARTIFACTS/$target"
  mkdir -p "$work/corpus"
  # Run on a scratch copy so the committed corpus only changes on purpose (cargo fuzz cmin).
  cp -r "fuzz/corpus/$target/." "$work/corpus/" 2>/dev/null || true
  if cargo fuzz run -O "$target" "$work/corpus" -- \
      -max_total_time="$SECONDS_PER_TARGET" -seed="$SEED" -print_final_stats=1 \
      -timeout=10 -rss_limit_mb=1024 -artifact_prefix="$work/" >"$LOGS/$target.log" 2>&1; then
    echo "$target: ok $(grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units' "$LOGS/$target.log" | tail -2 | tr '\n' ' ')"
  else
    status=1
    echo "$target: FAILED with seed $SEED (log $LOGS/$target.log, artifacts in $work)"
    tail -40 "$LOGS/$target.log"
  fi
done

cd "$ROOT"
PY_EXAMPLES="${PY_EXAMPLES:-$(( SECONDS_PER_TARGET * 100 ))}"
if ! "$PYTHON" tests/fuzz/fuzz_entry_points.py --examples "$PY_EXAMPLES" --seed "$SEED"; then
  status=1
  echo "python harness: FAILED with seed $SEED"
fi
echo "fuzz.sh: total $(( $(date +%s) - start )) s, status $status, seed $SEED"
if [ "$status" -ne 0 ]; then
  echo "replay: FUZZ_SEED=$SEED scripts/fuzz.sh $SECONDS_PER_TARGET"
fi
exit "$status"
