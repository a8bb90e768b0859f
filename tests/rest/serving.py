"""Serves a herder's REST API on a free local port for the length of a test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from conveyor.herder.api import Herder
from conveyor.rest import RestServer, create_app


@contextmanager
def serving(herder: Herder, *, admin_enabled: bool = True) -> Iterator[httpx.Client]:
    """An HTTP client bound to a running `RestServer` over `herder`."""
    server = RestServer(create_app(herder, admin_enabled=admin_enabled), listeners="http://127.0.0.1:0")
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=30.0) as client:
            yield client
    finally:
        server.stop()
