"""Serves a REST app with uvicorn on a background thread, bound to Kafka Connect style `listeners`."""

from __future__ import annotations

import logging
import socket
import threading
import time

import uvicorn
from fastapi import FastAPI

from conveyor.rest.listeners import DEFAULT_LISTENERS, Listener, parse_listeners

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0
GRACEFUL_SHUTDOWN_S = 5


class RestServer:
    """Owns the listening sockets and the uvicorn server; `start()` returns once requests are accepted."""

    def __init__(self, app: FastAPI, listeners: str = DEFAULT_LISTENERS) -> None:
        self._app = app
        self._listeners = parse_listeners(listeners)
        self._sockets: list[socket.socket] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL of the first listener, with the port actually bound."""
        return self.urls[0]

    @property
    def urls(self) -> list[str]:
        """The base URL of every listener, in the order `listeners` names them."""
        if not self._sockets:
            raise RuntimeError("The REST server has not been started")
        return [
            f"{listener.protocol}://{_url_host(listener.host)}:{bound.getsockname()[1]}"
            for listener, bound in zip(self._listeners, self._sockets, strict=True)
        ]

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("The REST server was already started")
        self._sockets = _bind_all(self._listeners)
        config = uvicorn.Config(
            self._app,
            log_config=None,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        )
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": self._sockets}, name="conveyor-rest", daemon=True
        )
        self._thread.start()
        self._wait_until_started(server, self._thread)
        logger.info("REST server listening at %s", self.url)

    def stop(self) -> None:
        """Stop accepting requests, let running ones finish (up to a grace period), and close the sockets."""
        if self._server is None or self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(STOP_TIMEOUT_S)
        self._close_sockets()
        if self._thread.is_alive():
            logger.warning("REST server thread did not stop within %.0f s", STOP_TIMEOUT_S)
        self._server = None
        self._thread = None

    def __enter__(self) -> RestServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _wait_until_started(self, server: uvicorn.Server, thread: threading.Thread) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if not thread.is_alive():
                self._close_sockets()
                raise RuntimeError("The REST server failed to start; see the log for the cause")
            if time.monotonic() > deadline:
                server.should_exit = True
                raise RuntimeError(f"The REST server did not start within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.01)

    def _close_sockets(self) -> None:
        for bound in self._sockets:
            bound.close()


def _bind_all(listeners: list[Listener]) -> list[socket.socket]:
    bound: list[socket.socket] = []
    try:
        for listener in listeners:
            bound.append(_bind(listener))
    except OSError:
        for open_socket in bound:
            open_socket.close()
        raise
    return bound


def _bind(listener: Listener) -> socket.socket:
    family = socket.AF_INET6 if ":" in listener.host else socket.AF_INET
    bound = socket.socket(family, socket.SOCK_STREAM)
    bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        bound.bind((listener.host, listener.port))
    except OSError:
        bound.close()
        raise
    bound.listen(2048)
    bound.set_inheritable(True)
    return bound


def _url_host(host: str) -> str:
    if host in ("", "0.0.0.0", "::"):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host
