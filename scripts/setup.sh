#!/usr/bin/env bash
# Sets up a fresh Debian machine for this project, idempotently.
#
#   bash scripts/setup.sh          everything the tests need: the Debian packages (a C toolchain,
#                                  redis-server, postgresql, chromium), a virtualenv in .venv with
#                                  the pinned dependencies of requirements-dev.txt, and the Rust
#                                  extension built in release mode
#   bash scripts/setup.sh --main   only what the main job needs: a C toolchain and Python's venv
#                                  module if missing, .venv with the package's own dependencies,
#                                  and the extension (no browser, database, Redis or test tools)
#
# target/ is reused between runs, so a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
case "${1:-}" in
    "") ;;
    --main) mode=main ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "setup: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

say() { printf '[setup] %s\n' "$*"; }

# Debian packages: a C toolchain for aws-lc-sys; for the tests, redis-server and postgresql (its
# initdb and postgres binaries, and libpq5 for psycopg), which the tests start themselves, and
# chromium for the browser tests (Playwright drives it; it never downloads its own).
apt_packages=()
command -v cc >/dev/null 2>&1 || apt_packages+=(build-essential)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_packages+=(python3 python3-venv)
if [ "$mode" = all ]; then
    command -v redis-server >/dev/null 2>&1 || apt_packages+=(redis-server)
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || apt_packages+=(postgresql)
    [ -x /usr/bin/chromium ] || apt_packages+=(chromium)
    command -v curl >/dev/null 2>&1 || apt_packages+=(curl)  # the shell walkthrough's test
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
    say "installing Debian packages: ${apt_packages[*]}"
    if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
        "${apt_packages[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo (Rust >= 1.85) is required; install it with rustup" >&2
    exit 2
fi

[ -x .venv/bin/python ] || { say "creating the virtualenv .venv"; python3 -m venv .venv; }
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
if [ "$mode" = main ]; then
    # The package's run-time dependencies at the versions the tests pin, and maturin.
    say "installing the package's dependencies into .venv"
    pins=$(grep -E -i '^(maturin|cryptography|pyjwt\[crypto\]|cbor2|webauthn|pyopenssl)==' \
        requirements-dev.txt || true)
    # shellcheck disable=SC2086
    "${pip[@]}" $pins pyOpenSSL
else
    say "installing the pinned development dependencies into .venv"
    "${pip[@]}" -r requirements-dev.txt
fi
say "building the Rust extension (release; the first build takes a few minutes)"
.venv/bin/maturin develop --release --locked
