"""How ``ewc serve`` runs: the listening socket, the request log, one process or several.

The socket is made here, not by uvicorn, so that every accepted connection has
``TCP_NODELAY``: asyncio sets it only on sockets whose ``proto`` is ``IPPROTO_TCP``, and a socket
made with ``socket.socket(family, SOCK_STREAM)`` reports 0, so without it every response on a
kept-alive connection waited about 40 ms for the client's delayed acknowledgement (Nagle's
algorithm). uvicorn's own multi-process mode binds its socket that way; ``--workers`` therefore
starts its processes here, each serving the same socket with ``uvicorn.Server``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from typing import Any

from ._io import EXIT_FAILED, EXIT_OK, EXIT_USAGE

__all__ = ["AppFactory", "RequestLog", "listening_socket", "serve_one", "serve_workers"]

#: How long ``--workers`` waits for every process to be ready before it gives up.
WORKER_START_SECONDS = 120.0
#: How long a stopping process is given before it is killed.
WORKER_STOP_SECONDS = 30.0


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (not yet listening), made so that every connection it
    accepts has ``TCP_NODELAY``: its ``proto`` is ``IPPROTO_TCP`` (asyncio then sets the option
    on each accepted socket) and the option is set on it too (Linux copies it to each accepted
    socket, whichever event loop serves it).

    Raises:
        OSError: the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host, port))
    except OSError:
        listener.close()
        raise
    return listener


class RequestLog:
    """ASGI middleware: one line per request on standard error, ``[pid] METHOD PATH STATUS
    MILLISECONDS ms``. Never a header, a body or a query value (see
    ``sandbox.request_log.logged_path``)."""

    def __init__(self, app: Any) -> None:
        from ..sandbox.request_log import logged_path  # served: the sandbox extra is there

        self.app = app
        self._path = logged_path

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = [500]  # what uvicorn answers when the application fails before answering
        began = time.perf_counter()

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            milliseconds = (time.perf_counter() - began) * 1e3
            line = (
                f"[{os.getpid()}] {scope.get('method', '?')} {self._path(scope)} "
                f"{status[0]} {milliseconds:.1f} ms\n"
            )
            sys.stderr.write(line)
            sys.stderr.flush()


class AppFactory:
    """The application of one ``--workers`` process, made in that process (uvicorn's
    ``factory``). Pickled to the process through multiprocessing's pipe: the settings, the
    platform credentials among them, are never on a command line or in the environment."""

    def __init__(self, settings: Any, *, quiet: bool) -> None:
        self.settings = settings
        self.quiet = quiet

    def __call__(self) -> Any:
        from ..sandbox import create_app

        app = create_app(self.settings)
        return app if self.quiet else RequestLog(app)


async def serve_one(server: Any, listener: socket.socket, on_ready: Callable[[], None]) -> bool:
    """Serve on ``listener`` until SIGTERM or SIGINT; ``on_ready`` once it accepts requests.

    Returns:
        Whether the server started.
    """
    loop = asyncio.get_running_loop()
    # Our own handlers: older uvicorns would re-raise the signal after shutdown (exit by signal).
    server.install_signal_handlers = lambda: None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, _stop, server)

    async def announce() -> None:
        while not server.started and not server.should_exit:
            await asyncio.sleep(0.01)
        if server.started:
            on_ready()

    announcer = asyncio.create_task(announce())
    try:
        await server.serve(sockets=[listener])
    finally:
        announcer.cancel()
        listener.close()
    return bool(server.started)


def _stop(server: Any) -> None:
    server.should_exit = True


def _worker(config: Any, listener: socket.socket, ready: Connection) -> None:
    """One ``--workers`` process: a uvicorn server on the shared socket; sends its pid when
    ready."""
    import uvicorn

    from ..sandbox._http import protocol_with_deadline

    config.configure_logging()  # as uvicorn's own worker processes do
    config.http = protocol_with_deadline(config.app.settings.request_timeout)
    server = uvicorn.Server(config)
    asyncio.run(serve_one(server, listener, lambda: ready.send(os.getpid())))


def serve_workers(
    config: Any, listener: socket.socket, workers: int, on_ready: Callable[[], None]
) -> int:
    """``workers`` processes serving ``listener``, each with ``config`` (its app an
    :class:`AppFactory`); ``on_ready`` once all of them accept requests. SIGTERM or SIGINT
    stops them all (exit 0); a process that stops by itself stops the others (exit 1).
    """
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    receiving, sending = context.Pipe(duplex=False)
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    processes = [
        context.Process(target=_worker, args=(config, listener, sending), name=f"ewc-serve-{n}")
        for n in range(workers)
    ]
    try:
        for process in processes:
            process.start()  # the socket and the pipe go to the process as file descriptors
        sending.close()
        started = _wait_ready(processes, receiving, stop)
        if started:
            on_ready()
            while not stop.is_set() and all(process.is_alive() for process in processes):
                wait([process.sentinel for process in processes], timeout=0.5)
        ended = [process.exitcode for process in processes if not process.is_alive()]
    finally:
        _stop_all(processes)
        receiving.close()
        listener.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if stop.is_set() or (started and all(_stopped_by_signal(code) for code in ended)):
        return EXIT_OK  # stopped by a signal (a Ctrl-C reaches every process of the group)
    if not started:
        print("ewc: error: the sandbox service did not start", file=sys.stderr)
        return EXIT_USAGE
    codes = ", ".join(str(code) for code in ended)
    print(
        f"ewc: error: a worker process stopped (exit status {codes}); stopped the others",
        file=sys.stderr,
    )
    return EXIT_FAILED


def _stopped_by_signal(exitcode: int | None) -> bool:
    """A process ended by Ctrl-C or SIGTERM (sent to the whole process group), or cleanly."""
    return exitcode in (0, -signal.SIGINT, -signal.SIGTERM)


def _wait_ready(processes: list[Any], receiving: Connection, stop: threading.Event) -> bool:
    ready: set[int] = set()
    deadline = time.monotonic() + WORKER_START_SECONDS
    while len(ready) < len(processes):
        if stop.is_set() or time.monotonic() > deadline:
            return False
        if not all(process.is_alive() for process in processes):
            return False
        if receiving in wait([receiving, *(p.sentinel for p in processes)], timeout=0.5):
            try:
                ready.add(receiving.recv())
            except EOFError:
                return False
    return True


def _stop_all(processes: list[Any]) -> None:
    for process in processes:
        if process.is_alive():
            process.terminate()  # SIGTERM: uvicorn finishes the requests in flight
    deadline = time.monotonic() + WORKER_STOP_SECONDS
    for process in processes:
        if process.pid is None:
            continue
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
