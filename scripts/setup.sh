#!/usr/bin/env bash
# Sets up a fresh Debian machine for this project, idempotently: the Debian packages the tests
# need, a virtualenv in .venv with the pinned Python dependencies, and the Rust extension built
# in release mode (target/ is reused between runs, so a second run is quick).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: a C toolchain for aws-lc-sys; redis-server and postgresql (its initdb and
# postgres binaries, and libpq5 for psycopg) for the store tests, which start their own servers;
# chromium for the passkey browser test (Playwright drives it; it never downloads its own).
apt_packages=()
command -v cc >/dev/null 2>&1 || apt_packages+=(build-essential)
command -v python3 >/dev/null 2>&1 || apt_packages+=(python3 python3-venv)
command -v redis-server >/dev/null 2>&1 || apt_packages+=(redis-server)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || apt_packages+=(postgresql)
[ -x /usr/bin/chromium ] || apt_packages+=(chromium)
if [ "${#apt_packages[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${apt_packages[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo (Rust >= 1.85) is required; install it with rustup" >&2
    exit 2
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
.venv/bin/maturin develop --release --locked --quiet
