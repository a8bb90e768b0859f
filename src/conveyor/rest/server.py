"""Serves REST apps with uvicorn on background threads, bound to Kafka Connect style `listeners`.

Each listener has its own uvicorn server (and thread), so http and https listeners, and the admin
listeners of KIP-495 with an app of their own, are served side by side by one `RestServer`.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import uvicorn
from starlette.types import ASGIApp

from conveyor.errors import ConfigError
from conveyor.rest.listeners import DEFAULT_LISTENERS, Listener, parse_listeners

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0
GRACEFUL_SHUTDOWN_S = 5


@dataclass(frozen=True)
class ListenerGroup:
    """Listeners that serve one app; their https ones use `ssl_context`."""

    app: ASGIApp
    listeners: tuple[Listener, ...]
    ssl_context: ssl.SSLContext | None = None

    def __post_init__(self) -> None:
        if self.ssl_context is None and any(listener.protocol == "https" for listener in self.listeners):
            raise ConfigError("An https listener needs TLS settings (a key store); see docs/security.md")


@dataclass
class _Running:
    listener: Listener
    socket: socket.socket
    server: uvicorn.Server
    thread: threading.Thread


class RestServer:
    """Owns the listening sockets and their uvicorn servers; `start()` returns once requests are accepted.

    `app` is served on `listeners` (https ones with `ssl_context`), and `admin`, when given, on its own.
    """

    def __init__(
        self,
        app: ASGIApp,
        listeners: str = DEFAULT_LISTENERS,
        *,
        ssl_context: ssl.SSLContext | None = None,
        admin: ListenerGroup | None = None,
    ) -> None:
        self._main = ListenerGroup(app, tuple(parse_listeners(listeners)), ssl_context)
        self._admin = admin
        self._running: list[_Running] = []
        self._main_count = 0

    @property
    def url(self) -> str:
        """The base URL of the first listener, with the port actually bound."""
        return self.urls[0]

    @property
    def urls(self) -> list[str]:
        """The base URL of every listener, in the order `listeners` names them."""
        return [_url(running) for running in self._started()[: self._main_count]]

    @property
    def admin_urls(self) -> list[str]:
        """The base URL of every admin listener, in the order `admin.listeners` names them."""
        return [_url(running) for running in self._started()[self._main_count :]]

    def url_of(self, protocol: str | None) -> str:
        """The URL of the first listener of `protocol` (as `rest.advertised.listener`), else the first."""
        if protocol is None:
            return self.url
        return next((url for url in self.urls if url.startswith(f"{protocol}://")), self.url)

    def start(self) -> None:
        if self._running:
            raise RuntimeError("The REST server was already started")
        groups = [self._main, *([self._admin] if self._admin is not None else [])]
        planned = [(listener, group) for group in groups for listener in group.listeners]
        sockets = _bind_all([listener for listener, _ in planned])
        self._main_count = len(self._main.listeners)
        for (listener, group), bound in zip(planned, sockets, strict=True):
            server = uvicorn.Server(_uvicorn_config(group, listener))
            thread = threading.Thread(
                target=server.run, kwargs={"sockets": [bound]}, name="conveyor-rest", daemon=True
            )
            self._running.append(_Running(listener, bound, server, thread))
            thread.start()
        try:
            for running in self._running:
                self._wait_until_started(running)
        except BaseException:
            self.stop()
            raise
        logger.info("REST server listening at %s", ", ".join(self.urls + self.admin_urls))

    def stop(self) -> None:
        """Stop accepting requests, let running ones finish (up to a grace period), and close the sockets."""
        for running in self._running:
            running.server.should_exit = True
        for running in self._running:
            running.thread.join(STOP_TIMEOUT_S)
            running.socket.close()
            if running.thread.is_alive():
                logger.warning("REST server thread did not stop within %.0f s", STOP_TIMEOUT_S)
        self._running = []

    def __enter__(self) -> RestServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _started(self) -> list[_Running]:
        if not self._running:
            raise RuntimeError("The REST server has not been started")
        return self._running

    @staticmethod
    def _wait_until_started(running: _Running) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not running.server.started:
            if not running.thread.is_alive():
                raise RuntimeError("The REST server failed to start; see the log for the cause")
            if time.monotonic() > deadline:
                raise RuntimeError(f"The REST server did not start within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.01)


def _uvicorn_config(group: ListenerGroup, listener: Listener) -> uvicorn.Config:
    context = group.ssl_context if listener.protocol == "https" else None
    return uvicorn.Config(
        group.app,
        log_config=None,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        ssl_context_factory=(lambda _config, _default: context) if context is not None else None,
    )


def _bind_all(listeners: Sequence[Listener]) -> list[socket.socket]:
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


def _url(running: _Running) -> str:
    listener = running.listener
    return f"{listener.protocol}://{_url_host(listener.host)}:{running.socket.getsockname()[1]}"


def _url_host(host: str) -> str:
    if host in ("", "0.0.0.0", "::"):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host
