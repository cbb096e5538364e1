#!/usr/bin/env bash
# Every test and every lint: set up, then Rust (fmt, clippy, cargo test with the vectors and the
# upstream vectors), then Python (ruff, mypy --strict, stubtest), the clean-room install (the wheel
# and the sdist in bare virtualenvs, as a user installs them), then pytest with the differential
# and property tests and a quick pass over the benchmarks as tests. A short fuzzing run (every
# cargo-fuzz target of the core, then the Python contract fuzzer) comes before pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check
step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo test"
cargo test --workspace --locked -- --nocapture 2>&1 | grep -v '^test .* ok$'

step "ruff"
.venv/bin/ruff check python tests benches scripts docs/hooks
.venv/bin/ruff format --check python tests benches scripts docs/hooks
step "mypy --strict"
.venv/bin/mypy --strict python/embedded_wallet_crypto
step "stubtest"
.venv/bin/python -m mypy.stubtest embedded_wallet_crypto._native

step "docs (mkdocs build --strict: any warning fails)"
# Not --quiet: mkdocs drops warnings it does not print, and strict mode then counts none.
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict

step "clean-room install (wheel and sdist, declared dependencies only)"
bash scripts/clean_room.sh

step "fuzz (scripts/fuzz.sh 10: each cargo-fuzz target of the core for 10 s, then the contract fuzzer of the Python entry points)"
bash scripts/fuzz.sh 10

step "pytest (three workers, a test file per worker at a time)"
.venv/bin/python -m pytest tests benches --benchmark-disable -q -n 3 --dist loadfile
