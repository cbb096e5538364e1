"""``ewc serve``: the sandbox service on uvicorn (needs the ``sandbox`` extra).

Prints the base URL and the page's URL when it is ready, then one line per request on standard
error (unless ``--quiet``); stops cleanly (exit 0) on SIGTERM or SIGINT. ``--workers N`` runs N
processes on one listening socket (see ``_serve_run``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from typing import Any

from ._io import EXIT_OK, EXIT_USAGE, UsageError
from ._serve_run import AppFactory, RequestLog, listening_socket, serve_one, serve_workers

# The defaults of the sandbox's Settings, repeated here: `ewc --help` must not need the extra.
DEFAULT_MAX_BODY_SIZE = 1024 * 1024
DEFAULT_REQUEST_TIMEOUT = 30.0
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0

__all__ = ["MAX_WORKERS", "add_serve_command"]

#: The most processes ``--workers`` starts.
MAX_WORKERS = 32


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
    if not (math.isfinite(args.idempotency_retention) and args.idempotency_retention > 0):
        raise UsageError("--idempotency-retention must be a positive number of seconds")
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
            idempotency_retention=args.idempotency_retention,
            max_body_size=args.max_body_size,
            request_timeout=args.request_timeout,
            keep_alive_timeout=args.keep_alive_timeout,
            names=args.names,
            seed=args.seed,
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

    if not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be between 1 and {MAX_WORKERS}")
    settings = _settings(args)
    try:
        listener = listening_socket(settings.host, settings.port)
    except OSError as problem:
        raise UsageError(f"cannot listen on {settings.host}:{settings.port}: {problem}") from None
    port = listener.getsockname()[1]
    settings.port = port
    try:
        app = create_app(settings)  # the tables and the credentials, once, before any worker
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
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    ready = (
        f"Sandbox service ({settings.environment}) ready at http://{host}:{port}{BASE_PATH}\n"
        # Passkeys work only on the relying party's host name (default localhost).
        f"Page: http://{settings.rp_id}:{port}/"
    )

    def announce() -> None:
        print(ready, flush=True)

    if args.workers > 1:
        asyncio.run(_close(app))  # each worker process makes its own
        served: Any = AppFactory(settings, quiet=args.quiet)
    else:
        served = app if args.quiet else RequestLog(app)
    config = uvicorn.Config(
        served,
        factory=args.workers > 1,
        log_level="warning",
        access_log=False,
        lifespan="on",
        # A worker process makes its own deadline protocol class (a made class does not pickle).
        http="h11" if args.workers > 1 else protocol_with_deadline(settings.request_timeout),
        timeout_keep_alive=settings.keep_alive_timeout,
    )
    if args.workers > 1:
        return serve_workers(config, listener, args.workers, announce)
    if not asyncio.run(serve_one(uvicorn.Server(config), listener, announce)):
        print("ewc: error: the sandbox service did not start", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


async def _close(app: Any) -> None:
    """Release the application's connections (its lifespan's start and end)."""
    async with app.router.lifespan_context(app):
        pass


def add_serve_command(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the sandbox service (needs the sandbox extra)",
        description=(
            "Run the sandbox service: the service interface on a local HTTP server, "
            "under the base path /2025-10-13. When it is ready it prints the base URL and the "
            "page's URL on the relying party's host (http://localhost:PORT/ by default: "
            "passkeys do not work on http://127.0.0.1), then one line per request on standard "
            "error (method, path, status, milliseconds; never a header or a query). Needs: "
            'pip install "embedded-wallet-crypto[sandbox]".'
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any)")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes serving the one port, all on the same database (default 1)",
    )
    serve.add_argument("--quiet", action="store_true", help="no request log on standard error")
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
        "--idempotency-retention",
        type=float,
        default=24 * 3600.0,
        metavar="SECONDS",
        help="how long the response to an Idempotency-Key is kept, scaled by --time-scale "
        "(default 86400: 24 hours); then the key can be used again",
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
    serve.add_argument(
        "--names",
        choices=("interface", "published"),
        default="interface",
        help="the field names, error bodies and error codes of the answers: the service "
        "interface's (default) or the published OpenAPI document's; requests are read in "
        "either spelling",
    )
    serve.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="sandbox only: ids, request ids and generated keys (session keys, wallets) "
        "derived from N, so that the same requests from a fresh database give the same ones",
    )
    serve.set_defaults(handler=_cmd_serve)
