"""`RestServer` serves an app on its listeners from a background thread, and lets go of them on stop."""

from __future__ import annotations

import socket

import httpx
import pytest
from fastapi import FastAPI

from conveyor.errors import ConfigError
from conveyor.rest import RestServer
from conveyor.rest.listeners import parse_listeners
from conveyor.rest.server import ListenerGroup


def greeting_app() -> FastAPI:
    app = FastAPI()

    @app.get("/greeting")
    def greeting() -> dict[str, str]:
        return {"hello": "world"}

    return app


def test_port_zero_binds_a_free_port_and_the_url_names_it() -> None:
    with RestServer(greeting_app(), listeners="http://127.0.0.1:0") as server:
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        response = httpx.get(f"http://127.0.0.1:{port}/greeting")
    assert host == "127.0.0.1"
    assert int(port) > 0
    assert response.json() == {"hello": "world"}


def test_start_returns_only_once_requests_are_accepted() -> None:
    server = RestServer(greeting_app(), "http://127.0.0.1:0")
    server.start()
    try:
        assert httpx.get(f"{server.url}/greeting").status_code == 200
    finally:
        server.stop()


def test_after_stop_the_port_refuses_connections() -> None:
    server = RestServer(greeting_app(), "http://127.0.0.1:0")
    server.start()
    url = server.url
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/greeting")


def test_a_port_already_in_use_fails_start_with_the_os_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = RestServer(greeting_app(), f"http://127.0.0.1:{port}")
        with pytest.raises(OSError):
            server.start()


def test_every_listener_serves_the_same_app() -> None:
    with RestServer(greeting_app(), "http://127.0.0.1:0,http://127.0.0.1:0") as server:
        urls = server.urls
        bodies = [httpx.get(f"{url}/greeting").json() for url in urls]
    assert len(set(urls)) == 2
    assert bodies == [{"hello": "world"}] * 2


def test_the_url_is_unknown_before_start() -> None:
    with pytest.raises(RuntimeError, match="not been started"):
        _ = RestServer(greeting_app(), "http://127.0.0.1:0").url


def test_an_https_listener_without_a_tls_context_is_refused() -> None:
    with pytest.raises(ConfigError, match="needs TLS settings"):
        RestServer(greeting_app(), "https://127.0.0.1:0")


def test_admin_listeners_serve_their_own_app_beside_the_main_listeners() -> None:
    admin_app = FastAPI()

    @admin_app.get("/admin/hello")
    def admin_hello() -> dict[str, str]:
        return {"hello": "admin"}

    admin = ListenerGroup(admin_app, tuple(parse_listeners("http://127.0.0.1:0")))
    with RestServer(greeting_app(), "http://127.0.0.1:0", admin=admin) as server:
        (main_url,), (admin_url,) = server.urls, server.admin_urls
        assert httpx.get(f"{admin_url}/admin/hello").json() == {"hello": "admin"}
        assert httpx.get(f"{admin_url}/greeting").status_code == 404
        assert httpx.get(f"{main_url}/admin/hello").status_code == 404
