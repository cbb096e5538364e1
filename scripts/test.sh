#!/usr/bin/env bash
# Every test and every lint, or the named parts of them.
#
#   bash scripts/test.sh [PART...]
#
# With no PART it runs them all, in this order (CI runs exactly this):
#   rust     cargo fmt --check, cargo clippy -D warnings, cargo test (the vectors and the
#            upstream vectors through the core)
#   lint     ruff check and format, mypy --strict, stubtest
#   docs     mkdocs build --strict (any warning fails), then the clean-room install (the wheel
#            and the sdist in bare virtualenvs, as a user installs them)
#   fuzz     scripts/fuzz.sh 10: each cargo-fuzz target of the core, then the contract fuzzer
#            of the Python entry points
#   python   pytest on tests/ outside tests/sandbox, and the benchmarks as tests
#   sandbox  pytest on tests/sandbox (the service over real HTTP, SQLite and PostgreSQL, Redis,
#            Chromium)
# Each run sets the machine up first (scripts/setup.sh). -h or --help prints this.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(rust lint docs fuzz python sandbox)
parts=()
for arg in "$@"; do
    case "$arg" in
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        rust|lint|docs|fuzz|python|sandbox) parts+=("$arg") ;;
        *) echo "test.sh: unknown part '$arg' (parts: ${all[*]}; see --help)" >&2; exit 2 ;;
    esac
done
[ "${#parts[@]}" -gt 0 ] || parts=("${all[@]}")
wants() { local part; for part in "${parts[@]}"; do [ "$part" = "$1" ] && return 0; done; return 1; }

bash scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }

if wants rust; then
    step "cargo fmt --check"
    cargo fmt --all -- --check
    step "cargo clippy -D warnings"
    cargo clippy --workspace --all-targets --locked -- -D warnings
    step "cargo test"
    cargo test --workspace --locked -- --nocapture 2>&1 | grep -v '^test .* ok$'
fi

if wants lint; then
    step "ruff"
    .venv/bin/ruff check python tests benches scripts docs/hooks
    .venv/bin/ruff format --check python tests benches scripts docs/hooks
    step "mypy --strict"
    .venv/bin/mypy --strict python/embedded_wallet_crypto
    step "stubtest"
    .venv/bin/python -m mypy.stubtest embedded_wallet_crypto._native
fi

if wants docs; then
    step "docs (mkdocs build --strict: any warning fails)"
    # Not --quiet: mkdocs drops warnings it does not print, and strict mode then counts none.
    NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict
    step "clean-room install (wheel and sdist, declared dependencies only)"
    bash scripts/clean_room.sh
fi

if wants fuzz; then
    step "fuzz (scripts/fuzz.sh 10: each cargo-fuzz target of the core for 10 s, then the contract fuzzer of the Python entry points)"
    bash scripts/fuzz.sh 10
fi

# pytest: three workers, a test file per worker at a time (the sandbox tests mostly wait on
# servers and scaled clocks). Both parts together are one run, so the closing summary counts all.
pytest_args=()
if wants python && wants sandbox; then
    pytest_args=(tests benches)
elif wants python; then
    pytest_args=(tests benches --ignore=tests/sandbox)
elif wants sandbox; then
    pytest_args=(tests/sandbox)
fi
if [ "${#pytest_args[@]}" -gt 0 ]; then
    step "pytest ${pytest_args[*]} (three workers, a test file per worker at a time)"
    .venv/bin/python -m pytest "${pytest_args[@]}" --benchmark-disable -q -n 3 --dist loadfile
fi
