"""The shell walkthrough of the docs (``docs/sandbox-walkthrough.md``) runs as written, with curl
and the ``ewc`` command, against a real ``ewc serve``: a customer, an EMAIL_OTP login, the session
key opened, a signed export retry, a funded wallet paying a quote it stamped."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

from ._server import SandboxServer

PAGE = REPO / "docs" / "sandbox-walkthrough.md"


def _script() -> str:
    (block,) = re.findall(r"```bash\n(.*?)```", PAGE.read_text(), flags=re.S)
    return block


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(tmp_path_factory.mktemp("walkthrough"), time_scale=0.25)
    running.start()
    yield running
    assert running.stop() == 0


def test_the_shell_walkthrough_runs_as_written(server: SandboxServer, tmp_path: Path) -> None:
    if shutil.which("curl") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("curl is missing (scripts/setup.sh installs it)")
        pytest.skip("curl is not installed")
    env = {
        **os.environ,
        "EWC_BASE": server.base_url,
        "EWC_AUTH": ":".join(server.auth),
        # `ewc` and `python3` as a user has them: this interpreter's environment first.
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "-c", _script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"customer Customer:\S+, wallet InternalAccount:\S+", lines[0]), lines
    assert re.fullmatch(r'\{"sessionPublicKey": "0[23][0-9a-f]{64}"\}', lines[1]), lines
    assert re.fullmatch(r"session Session:\S+", lines[2]), lines
    assert lines[3].strip() == "12"  # the exported mnemonic's words, counted, never printed
    assert re.fullmatch(r"transaction Transaction:\S+: COMPLETED", lines[4]), lines
    # The private keys went to files only the owner can read, never to the output.
    for name in ("client.hex", "session.hex", "export.hex"):
        key_file = tmp_path / name
        assert key_file.stat().st_mode & 0o777 == 0o600
        assert key_file.read_text().strip() not in done.stdout + done.stderr
