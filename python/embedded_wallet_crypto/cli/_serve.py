"""``ewc serve``: the sandbox service on uvicorn (needs the ``sandbox`` extra).

Prints one line with the base URL when it is ready; stops cleanly (exit 0) on SIGTERM or
SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import signal
import socket
import sys
from typing import Any

from ._io import EXIT_OK, UsageError

# The defaults of the sandbox's Settings, repeated here: `ewc --help` must not need the extra.
DEFAULT_MAX_BODY_SIZE = 1024 * 1024
DEFAULT_REQUEST_TIMEOUT = 30.0
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0

__all__ = ["add_serve_command"]


def _pair(text: str, separator: str, what: str) -> tuple[str, str]:
    left, found, right = text.partition(separator)
    if not found or not left or not right:
        raise UsageError(f"{what} must look like {what.split()[-1]}")
    return left, right


def _settings(args: argparse.Namespace) -> Any:
    from ..sandbox import Settings

    if not (math.isfinite(args.time_scale) and args.time_scale > 0):
        raise UsageError("--time-scale must be a positive number")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    if args.max_body_size < 1:
        raise UsageError("--max-body-size must be a positive number of bytes")
    for option, value in (
        ("--request-timeout", args.request_timeout),
        ("--keep-alive-timeout", args.keep_alive_timeout),
    ):
        if not (math.isfinite(value) and 0 < value <= 86_400):
            raise UsageError(f"{option} must be a number of seconds from above 0 to 86400")
    issuers = dict(_pair(item, "=", "--oidc-issuer ISSUER=JWKS_URL") for item in args.oidc_issuer)
    credentials = [
        _pair(item, ":", "--platform-credentials ID:SECRET") for item in args.platform_credentials
    ]
    try:
        return Settings(
            host=args.host,
            port=args.port,
            database=args.database,
            environment=args.environment,
            platform_credentials=credentials,
            mail_dir=args.mail_dir,
            rp_id=args.rp_id,
            origins=list(args.origin),
            oidc_issuers=issuers,
            oidc_audiences=list(args.oidc_audience),
            time_scale=args.time_scale,
            redis=args.redis,
            max_body_size=args.max_body_size,
            request_timeout=args.request_timeout,
            keep_alive_timeout=args.keep_alive_timeout,
        )
    except ValueError as problem:
        raise UsageError(str(problem)) from None


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        from ..sandbox import BASE_PATH, create_app  # its ImportError names the extra
    except ImportError as missing:
        raise UsageError(str(missing)) from None
    import uvicorn  # present: the sandbox package checked it

    from ..sandbox._http import protocol_with_deadline

    settings = _settings(args)
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((settings.host, settings.port))
    except OSError as problem:
        listener.close()
        raise UsageError(f"cannot listen on {settings.host}:{settings.port}: {problem}") from None
    port = listener.getsockname()[1]
    settings.port = port
    try:
        app = create_app(settings)
    except ValueError as problem:
        listener.close()
        raise UsageError(str(problem)) from None
    generated = app.state.generated_credentials
    if generated is not None:
        print(
            "Created platform credentials (shown only this once): "
            f"--platform-credentials {generated[0]}:{generated[1]}",
            flush=True,
        )
    host = f"[{settings.host}]" if family == socket.AF_INET6 else settings.host
    base_url = f"http://{host}:{port}{BASE_PATH}"
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=protocol_with_deadline(settings.request_timeout),
        timeout_keep_alive=settings.keep_alive_timeout,
    )
    server = uvicorn.Server(config)
    return asyncio.run(_serve(server, listener, base_url, settings.environment))


async def _serve(server: Any, listener: socket.socket, base_url: str, environment: str) -> int:
    loop = asyncio.get_running_loop()
    # Our own handlers: uvicorn's would re-raise the signal after shutdown (exit by signal).
    server.install_signal_handlers = lambda: None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, _stop, server)

    async def announce() -> None:
        while not server.started and not server.should_exit:
            await asyncio.sleep(0.01)
        if server.started:
            print(f"Sandbox service ({environment}) ready at {base_url}", flush=True)

    announcer = asyncio.create_task(announce())
    try:
        await server.serve(sockets=[listener])
    finally:
        announcer.cancel()
        listener.close()
    if not server.started:
        print("ewc: error: the sandbox service did not start", file=sys.stderr)
        return 2
    return EXIT_OK


def _stop(server: Any) -> None:
    server.should_exit = True


def add_serve_command(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the sandbox service (needs the sandbox extra)",
        description=(
            "Run the sandbox service: the service interface on a local HTTP server, "
            "under the base path /2025-10-13. Needs: "
            'pip install "embedded-wallet-crypto[sandbox]".'
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any)")
    serve.add_argument(
        "--database",
        default="sqlite:///ewc-sandbox.db",
        metavar="URL",
        help="sqlite:///PATH (default: ewc-sandbox.db here) or postgresql://...",
    )
    serve.add_argument(
        "--environment",
        choices=("sandbox", "production"),
        default="sandbox",
        help="sandbox (magic values accepted; default) or production (every check for real)",
    )
    serve.add_argument(
        "--platform-credentials",
        action="append",
        default=[],
        metavar="ID:SECRET",
        help="HTTP Basic credentials of the platform (repeatable); "
        "without any, one pair is created at the first start and printed once",
    )
    serve.add_argument(
        "--mail-dir",
        default="ewc-sandbox-mail",
        metavar="DIR",
        help="where OTP emails are written, one file each (default: ewc-sandbox-mail)",
    )
    serve.add_argument("--rp-id", default="localhost", metavar="ID", help="WebAuthn RP ID")
    serve.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="URL",
        help="allowed WebAuthn origin (repeatable; default http://localhost:PORT)",
    )
    serve.add_argument(
        "--oidc-issuer",
        action="append",
        default=[],
        metavar="ISSUER=JWKS_URL",
        help="a trusted OIDC issuer and its JWKS URL (repeatable)",
    )
    serve.add_argument(
        "--oidc-audience",
        action="append",
        default=[],
        metavar="AUD",
        help="an accepted OIDC audience (repeatable; default ewc-sandbox)",
    )
    serve.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="FACTOR",
        help="multiplies lifetimes and delays (0.01: a 5-minute challenge lasts 3 s)",
    )
    serve.add_argument(
        "--redis", default=None, metavar="URL", help="Redis for single use and rate limits"
    )
    serve.add_argument(
        "--max-body-size",
        type=int,
        default=DEFAULT_MAX_BODY_SIZE,
        metavar="BYTES",
        help="the largest request body; past it 413 BODY_TOO_LARGE (default 1048576: 1 MiB)",
    )
    serve.add_argument(
        "--request-timeout",
        type=float,
        default=DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help="time for a whole request (headers and body) to arrive; then the connection "
        "is closed, after 408 REQUEST_TIMEOUT once its headers arrived (default 30)",
    )
    serve.add_argument(
        "--keep-alive-timeout",
        type=float,
        default=DEFAULT_KEEP_ALIVE_TIMEOUT,
        metavar="SECONDS",
        help="how long an idle connection stays open between requests (default 5)",
    )
    serve.set_defaults(handler=_cmd_serve)
