"""``ewc trigger`` and ``ewc listen`` as real processes against ``ewc serve`` (SQLite; no
``webhookEndpoint`` configured: listen needs none): listen prints the verification key, then
forwards a triggered event to a local receiver with a signature that verifies with that key
(the published method), the body exactly as the events list shows it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ._client import SandboxClient
from ._server import PLATFORM_ID, PLATFORM_SECRET, SandboxServer
from ._webhooks import Hooks, event, hooks_server, published_errors, verify_published

EWC = str(Path(sys.executable).with_name("ewc"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(tmp_path_factory.mktemp("events-cli"))
    running.start()
    yield running
    assert running.stop() == 0


def environment(server: SandboxServer) -> dict[str, str]:
    return {
        **os.environ,
        "EWC_BASE_URL": server.base_url,
        "EWC_PLATFORM_CREDENTIALS": f"{PLATFORM_ID}:{PLATFORM_SECRET}",
        "PYTHONUNBUFFERED": "1",
    }


def ewc(server: SandboxServer, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EWC, *arguments],
        env=environment(server),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_trigger(server: SandboxServer) -> None:
    made = ewc(server, "trigger", "INVITATION.CLAIMED", "--data", '{"inviteeUma": "$me@x.test"}')
    assert made.returncode == 0, made.stderr
    event_type, event_id, status = made.stdout.split()
    assert (event_type, status) == ("INVITATION.CLAIMED", "(NO_ENDPOINT)")
    api = SandboxClient(server.base_url, server.auth)
    payload = event(api, event_id)["payload"]
    api.close()
    assert payload["data"]["inviteeUma"] == "$me@x.test" and published_errors(payload) == []
    refused = ewc(server, "trigger", "NOPE.NOPE")
    assert refused.returncode == 1 and "400 INVALID_EVENT_TYPE" in refused.stderr
    bad = ewc(server, "trigger", "TEST", "--data", "[1]")
    assert bad.returncode == 2 and "--data must be a JSON object" in bad.stderr
    nowhere = ewc(server, "trigger", "TEST", "--base-url", "http://127.0.0.1:9/2025-10-13")
    assert nowhere.returncode == 1 and "cannot reach the service" in nowhere.stderr


def test_listen_forwards_signed_events(server: SandboxServer) -> None:
    hooks: Hooks
    with hooks_server() as hooks:
        listening = subprocess.Popen(
            [
                *(EWC, "listen", "--forward-to", hooks.url),
                *("--events", "CUSTOMER.KYB_APPROVED", "--max-events", "1", "--interval", "0.1"),
            ],
            env=environment(server),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert listening.stdout is not None
            lines: list[str] = []
            for line in listening.stdout:
                lines.append(line)
                if line.startswith("Forwarding events to"):
                    break
            pem = "".join(lines[1:-1])
            assert pem.startswith("-----BEGIN PUBLIC KEY-----"), lines
            rest: list[str] = []
            reader = threading.Thread(target=lambda: rest.extend(listening.stdout or []))
            reader.start()
            ewc(server, "trigger", "TEST")  # filtered out by --events
            made = ewc(server, "trigger", "CUSTOMER.KYB_APPROVED")
            assert made.returncode == 0, made.stderr
            assert listening.wait(timeout=60) == 0, listening.stderr
            reader.join(timeout=10)
        finally:
            if listening.poll() is None:
                listening.kill()
                listening.wait()
        (headers, body), *others = hooks.requests
    assert others == []
    verify_published(headers["X-Grid-Signature"], body, pem)
    forwarded = json.loads(body)
    assert forwarded["type"] == "CUSTOMER.KYB_APPROVED" and published_errors(forwarded) == []
    assert headers["X-Grid-Webhook-Id"] == forwarded["id"] == made.stdout.split()[1]
    api = SandboxClient(server.base_url, server.auth)
    assert event(api, forwarded["id"])["body"].encode() == body
    assert api.get("/sandbox/webhook-public-key").text.strip() == pem.strip()
    api.close()
    assert [line.split()[1:4] for line in rest] == [
        ["CUSTOMER.KYB_APPROVED", forwarded["id"], "->"]
    ]
