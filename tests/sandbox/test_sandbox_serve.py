"""``ewc serve`` itself: its options, the credentials it makes when given none, the ready line,
and a clean stop on SIGTERM and SIGINT."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ._server import SandboxServer

EWC = str(Path(sys.executable).with_name("ewc"))
OPTIONS = [
    "--host", "--port", "--workers", "--quiet", "--database", "--environment",
    "--platform-credentials", "--mail-dir",
    "--rp-id", "--origin", "--oidc-issuer", "--oidc-audience", "--time-scale", "--redis",
    "--idempotency-retention",
    "--max-body-size", "--request-timeout", "--keep-alive-timeout", "--seed", "--names",
]  # fmt: skip


def test_the_cli_defaults_are_the_settings_defaults() -> None:
    from embedded_wallet_crypto.cli import _serve
    from embedded_wallet_crypto.sandbox import settings as _settings

    for name in ("DEFAULT_MAX_BODY_SIZE", "DEFAULT_REQUEST_TIMEOUT", "DEFAULT_KEEP_ALIVE_TIMEOUT"):
        assert getattr(_serve, name) == getattr(_settings, name), name


def test_help_lists_the_options() -> None:
    out = subprocess.run([EWC, "serve", "--help"], capture_output=True, text=True, check=True)
    given = set(re.findall(r"(--[a-z-]+)", out.stdout)) - {"--help"}
    assert given == set(OPTIONS)


@pytest.mark.parametrize(
    "arguments",
    [
        ["--database", "mysql://localhost/x"],
        ["--time-scale", "0"],
        ["--time-scale", "nan"],
        ["--idempotency-retention", "0"],
        ["--idempotency-retention", "inf"],
        ["--platform-credentials", "no-colon"],
        ["--oidc-issuer", "no-equals"],
        ["--environment", "staging"],
        ["--port", "70000"],
        ["--max-body-size", "0"],
        ["--max-body-size", "1.5"],
        ["--request-timeout", "0"],
        ["--request-timeout", "inf"],
        ["--keep-alive-timeout", "-1"],
        ["--keep-alive-timeout", "nan"],
    ],
)
def test_bad_options_exit_2(tmp_path: Path, arguments: list[str]) -> None:
    result = subprocess.run(
        [EWC, "serve", "--port", "0", "--database", f"sqlite:///{tmp_path / 'x.db'}", *arguments],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr


def _start(root: Path, database: str) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [EWC, "serve", "--port", "0", "--database", database, "--mail-dir", str(root / "mail")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=root,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "ready at" in line:
            break
    return process, lines


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_credentials_are_made_once_and_printed_once(tmp_path: Path, stop: signal.Signals) -> None:
    database = f"sqlite:///{tmp_path / 'made.db'}"
    process, lines = _start(tmp_path, database)
    made = re.search(r"--platform-credentials (\S+):(\S+)", "".join(lines))
    assert made, lines
    base_url = re.search(r"ready at (\S+)", lines[-1])
    assert base_url and base_url.group(1).endswith("/2025-10-13")
    url = f"{base_url.group(1)}/customers/internal-accounts"
    assert httpx.get(url, auth=(made.group(1), made.group(2))).status_code == 200
    assert httpx.get(url, auth=(made.group(1), "wrong")).status_code == 401
    process.send_signal(stop)
    assert process.wait(timeout=30) == 0
    # The next start on the same database prints no credentials; the pair still works.
    process, lines = _start(tmp_path, database)
    assert len(lines) == 1 and "ready at" in lines[0]
    url = re.search(r"ready at (\S+)", lines[0]).group(1)  # type: ignore[union-attr]
    response = httpx.get(f"{url}/customers/internal-accounts", auth=(made.group(1), made.group(2)))
    assert response.status_code == 200
    process.send_signal(stop)
    assert process.wait(timeout=30) == 0


def test_the_page_path_is_reserved_and_unknown_paths_are_json(tmp_path: Path) -> None:
    server = SandboxServer(tmp_path)
    server.start()
    try:
        root = server.base_url.rsplit("/", 1)[0]
        response = httpx.get(f"{root}/no-such-page")
        assert response.status_code == 404 and response.json()["code"] == "NOT_FOUND"
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize("missing", ["fastapi", "uvicorn", "sqlalchemy"])
def test_without_the_extra_serve_names_it(tmp_path: Path, missing: str) -> None:
    probe = (
        f"import sys; sys.modules[{missing!r}] = None\n"
        "from embedded_wallet_crypto.cli import main\n"
        f"sys.exit(main(['serve', '--port', '0', '--database', 'sqlite:///{tmp_path}/x.db']))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 2
    assert 'pip install "embedded-wallet-crypto[sandbox]"' in result.stderr
    assert "Traceback" not in result.stderr


def test_ewc_sandbox_is_the_package_loaded_on_first_use() -> None:
    import embedded_wallet_crypto as ewc
    from embedded_wallet_crypto.sandbox import Settings, create_app

    assert ewc.sandbox.create_app is create_app and ewc.sandbox.Settings is Settings
