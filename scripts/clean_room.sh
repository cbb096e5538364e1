#!/usr/bin/env bash
# The install as a user meets it: build the wheel and the sdist, install each into a bare
# virtualenv with nothing but its declared dependencies (no requirements-dev.txt), and from outside
# the source tree import the package, run every Python example of README.md and docs/formats.md,
# check that a missing extra (redis, postgres, async, client) names itself, run `ewc demo` and
# `ewc vectors verify`, load the client and the service's models with the client extra alone, and
# run the client guide's examples with the sandbox and client extras. Run by scripts/test.sh after setup (it needs the .venv's maturin).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1
maturin=${MATURIN:-$repo/.venv/bin/maturin}

say() { printf -- '-- clean room: %s\n' "$*"; }
# Runs a command with its output kept aside, shown only when it fails.
quietly() { "$@" >"$work/log" 2>&1 || { cat "$work/log"; return 1; }; }

say "build the wheel"
quietly "$maturin" build --release --locked --out "$work/wheels"
wheel=$(ls "$work"/wheels/*.whl)
say "bare virtualenv + $(basename "$wheel")"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "$wheel"
"$work/venv/bin/pip" check

cd "$work"   # nothing from the source tree on sys.path from here on
py="$work/venv/bin/python"
say "import"
"$py" -c 'import embedded_wallet_crypto as ewc; print("embedded_wallet_crypto", ewc.__version__)'
say "README examples"
"$py" "$repo/scripts/doc_examples.py" "$repo/README.md"
say "formats.md examples (tokens, stamp schemes, proofs, webhooks on the declared dependencies)"
"$py" "$repo/scripts/doc_examples.py" "$repo/docs/formats.md"
say "an extra that is not installed names itself"
"$py" - <<'PY'
from embedded_wallet_crypto.stores import PostgresStore, RedisStore

for store, argument, extra in (
    (RedisStore, "redis://127.0.0.1:1/0", "embedded-wallet-crypto[redis]"),
    (PostgresStore, "postgresql://127.0.0.1:1/x", "embedded-wallet-crypto[postgres]"),
):
    try:
        store(argument)
    except ImportError as err:
        assert extra in str(err), err
        print("ImportError:", err)
    else:
        raise SystemExit(f"{store.__name__} without its extra did not raise ImportError")

# The `async` extra (httpx): no declared dependency brings it in.
import importlib.util

assert importlib.util.find_spec("httpx") is None, "httpx installed without the async extra"
try:
    from embedded_wallet_crypto.oidc import AsyncJwksProvider  # noqa: F401
except ImportError as err:
    assert "embedded-wallet-crypto[async]" in str(err), err
    print("ImportError:", err)
else:
    raise SystemExit("AsyncJwksProvider without httpx did not raise ImportError")

# The `client` extra (httpx) too.
try:
    import embedded_wallet_crypto.client  # noqa: F401
except ImportError as err:
    assert "embedded-wallet-crypto[client]" in str(err), err
    print("ImportError:", err)
else:
    raise SystemExit("embedded_wallet_crypto.client without httpx did not raise ImportError")
PY
say "the sandbox page's static files are in the wheel"
"$py" -c 'from importlib import resources; d = resources.files("embedded_wallet_crypto") / "sandbox" / "static"; assert all((d / f).is_file() for f in ("index.html", "page.js")), d'
say "ewc serve without the sandbox extra names the extra"
if "$work/venv/bin/ewc" serve --port 0 --database "sqlite:///$work/serve.db" >"$work/serve.out" 2>&1; then
  echo "ewc serve started without the sandbox extra"; exit 1
fi
grep -F 'pip install "embedded-wallet-crypto[sandbox]"' "$work/serve.out" || { cat "$work/serve.out"; exit 1; }
say "ewc demo"
"$work/venv/bin/ewc" demo | tail -n 1
say "ewc vectors verify"
"$work/venv/bin/ewc" vectors verify "$repo/vectors" | tail -n 1

say "with the client extra alone, the client and the service's models load (import stays light)"
"$work/venv/bin/pip" install --quiet "$wheel[client]"
"$work/venv/bin/pip" check
"$py" - <<'PY'
import importlib.util, subprocess, sys

assert importlib.util.find_spec("fastapi") is None, "fastapi installed with the client extra alone"
loaded = subprocess.run(
    [sys.executable, "-c", "import embedded_wallet_crypto, sys; print(' '.join(sys.modules))"],
    capture_output=True, text=True, check=True,
).stdout.split()
assert not [m for m in loaded if m.split(".")[0] in ("httpx", "pydantic")], "import not light"
from embedded_wallet_crypto.client import OPERATIONS, Client  # noqa: F401
from embedded_wallet_crypto.sandbox.models.quotes import QuoteOut

assert next(o for o in OPERATIONS if o.qualified_name == "quotes.get").response_model is QuoteOut
try:
    from embedded_wallet_crypto.sandbox import create_app  # noqa: F401
except ImportError as err:
    assert "embedded-wallet-crypto[sandbox]" in str(err), err
    print("ImportError:", err)
else:
    raise SystemExit("the sandbox's create_app loaded without the sandbox extra")
PY

say "with the sandbox extra, ewc serve starts, answers and stops on SIGTERM"
"$work/venv/bin/pip" install --quiet "$wheel[sandbox]"
"$work/venv/bin/pip" check
"$py" - "$work" <<'PY'
import re, signal, subprocess, sys, urllib.request

work = sys.argv[1]
serve = subprocess.Popen(
    [f"{work}/venv/bin/ewc", "serve", "--port", "0", "--database", f"sqlite:///{work}/serve.db",
     "--mail-dir", f"{work}/mail", "--platform-credentials", "id:secret"],
    stdout=subprocess.PIPE, text=True,
)
line = serve.stdout.readline()
url = re.search(r"ready at (\S+)", line)
assert url, f"no ready line: {line!r}"
with urllib.request.urlopen(f"{url.group(1)}/openapi.json", timeout=10) as response:
    assert response.status == 200
serve.send_signal(signal.SIGTERM)
assert serve.wait(timeout=30) == 0, "ewc serve did not stop cleanly"
print(line.strip())
PY

say "with the client extra, the client guide's examples run against ewc serve"
"$work/venv/bin/pip" install --quiet "$wheel[sandbox,client]"
"$work/venv/bin/pip" check
"$py" "$repo/scripts/doc_examples.py" "$repo/docs/client.md"

say "sdist, installed by pip into another bare virtualenv"
cd "$repo"
quietly "$maturin" sdist --out "$work/sdist"
python3 -m venv "$work/venv-sdist"
# The sdist builds in a temporary directory; reuse this checkout's compiled dependencies.
CARGO_TARGET_DIR="$repo/target" "$work/venv-sdist/bin/pip" install --quiet "$work"/sdist/*.tar.gz
cd "$work"
"$work/venv-sdist/bin/pip" check
"$work/venv-sdist/bin/ewc" keygen >/dev/null
"$work/venv-sdist/bin/python" -c 'import embedded_wallet_crypto.passkeys, embedded_wallet_crypto.oidc'
say "passed"
