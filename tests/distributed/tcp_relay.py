"""A TCP relay on a loopback port to one address, which a test cuts (the address becomes unreachable
through it, every open connection reset) and restores: a network outage between clients and a server."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class TcpRelay:
    """Relays each connection to ``port`` to ``target`` while not cut."""

    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port = port
        self._target = target
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()

    def restore(self) -> None:
        """Accept connections again on the same port."""
        listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Stop accepting connections and reset every open one."""
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._open = self._open, set()
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self._target, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    server.close()
                    return
                self._open.update((client, server))
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)


@contextmanager
def tcp_relay(port: int, target: tuple[str, int]) -> Iterator[TcpRelay]:
    relay = TcpRelay(port, target)
    relay.restore()
    try:
        yield relay
    finally:
        relay.cut()
