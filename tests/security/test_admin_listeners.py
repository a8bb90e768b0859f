"""`admin.listeners` (KIP-495): where a real worker serves its `/admin` endpoints, and where it does not."""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.rest import RestServer

from .conftest import Pki
from .workers import running_worker


def rest(worker: StandaloneWorker) -> RestServer:
    assert worker.server is not None
    return worker.server.server


@pytest.fixture(scope="module")
def worker(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    """Regular http listener; admin listeners on http and https (with admin.listeners.https.ssl.* keys)."""
    props = {
        "admin.listeners": "http://127.0.0.1:0,https://127.0.0.1:0",
        **pki.keystore_props("admin.listeners.https."),
    }
    with running_worker(tmp_path_factory.mktemp("admin"), props) as started:
        yield started


@pytest.fixture(scope="module")
def default_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("default-admin"), {}) as started:
        yield started


@pytest.fixture(scope="module")
def no_admin_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("no-admin"), {"admin.listeners": ""}) as started:
        yield started


def test_admin_endpoints_are_absent_from_a_listener_not_named_in_admin_listeners(
    worker: StandaloneWorker,
) -> None:
    assert httpx.get(f"{worker.url}/admin/loggers", timeout=30).status_code == 404
    assert httpx.get(f"{worker.url}/connectors", timeout=30).status_code == 200


def test_an_admin_listener_serves_the_admin_endpoints(worker: StandaloneWorker) -> None:
    admin_http = rest(worker).admin_urls[0]
    response = httpx.get(f"{admin_http}/admin/loggers", timeout=30)
    assert response.status_code == 200
    assert "root" in response.json()


def test_an_admin_listener_serves_nothing_but_the_admin_endpoints(worker: StandaloneWorker) -> None:
    admin_http = rest(worker).admin_urls[0]
    assert httpx.get(f"{admin_http}/connectors", timeout=30).status_code == 404


def test_an_https_admin_listener_uses_the_admin_listeners_ssl_keys(
    worker: StandaloneWorker, pki: Pki
) -> None:
    admin_https = rest(worker).admin_urls[1]
    assert admin_https.startswith("https://")
    trusting = ssl.create_default_context(cafile=str(pki.ca_bundle))
    assert httpx.get(f"{admin_https}/admin/loggers", verify=trusting, timeout=30).status_code == 200


def test_an_empty_admin_listeners_disables_the_admin_endpoints(no_admin_worker: StandaloneWorker) -> None:
    assert httpx.get(f"{no_admin_worker.url}/admin/loggers", timeout=30).status_code == 404
    assert rest(no_admin_worker).admin_urls == []


def test_without_admin_listeners_the_admin_endpoints_are_on_the_regular_listener(
    default_worker: StandaloneWorker,
) -> None:
    assert httpx.get(f"{default_worker.url}/admin/loggers", timeout=30).status_code == 200
    assert rest(default_worker).admin_urls == []
