"""What an attacker's connector config would point a worker's clients at: a TCP listener that records
every connection made to it, and a shared library whose ELF constructor leaves a marker file when loaded."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

LIBRARY_SOURCE = r"""
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void leave_marker(void) {
    FILE *marker = fopen(MARKER, "a");
    if (marker) {
        fprintf(marker, "loaded in pid %d\n", (int)getpid());
        fclose(marker);
    }
}
"""


@dataclass
class Listener:
    """A local TCP port that accepts and counts connections (an OAuth token endpoint, a metadata
    service, a broker): any connection means a client reached where a connector config pointed it."""

    port: int
    connections: list[str] = field(default_factory=list)

    def url(self, path: str = "/token") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def recording_listener() -> Iterator[Listener]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    listener = Listener(server.getsockname()[1])
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, address = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(1.0)
                try:
                    first = connection.recv(4096).decode(errors="replace").splitlines()
                except OSError:
                    first = []
                listener.connections.append(f"{address[0]}:{address[1]} {first[0] if first else ''}")

    thread = threading.Thread(target=serve, name="recording-listener", daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()


@dataclass(frozen=True)
class MarkerLibrary:
    """A shared library that appends to `marker` when any process loads it."""

    path: Path
    marker: Path

    def loaded(self) -> bool:
        return self.marker.exists()


def build_marker_library(folder: Path) -> MarkerLibrary:
    """Compile the library with gcc into `folder`."""
    source = folder / "marker.c"
    source.write_text(LIBRARY_SOURCE)
    marker = folder / "LIBRARY_LOADED"
    library = folder / "libmarker.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", f'-DMARKER="{marker}"', "-o", str(library), str(source)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return MarkerLibrary(library, marker)
