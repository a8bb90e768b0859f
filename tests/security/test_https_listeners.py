"""HTTPS listeners (`listeners=https://...`, Kafka Connect's `ssl.*` keys) on real workers and sockets."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.rest.tls import client_ssl_context
from conveyor.settings.worker_config import WorkerConfig

from .certificates import KEY_PASSWORD
from .conftest import Pki
from .workers import running_worker


def trusting(pki: Pki, client_certificate: Path | None = None) -> ssl.SSLContext:
    """A client context that trusts the test CA and shows `client_certificate` if given."""
    context = ssl.create_default_context(cafile=str(pki.ca_bundle))
    if client_certificate is not None:
        context.load_cert_chain(str(client_certificate))
    return context


def https_url(worker: StandaloneWorker) -> str:
    assert worker.server is not None
    return next(url for url in worker.server.server.urls if url.startswith("https://"))


def http_url(worker: StandaloneWorker) -> str:
    assert worker.server is not None
    return next(url for url in worker.server.server.urls if url.startswith("http://"))


@pytest.fixture(scope="module")
def tls_worker(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    """https and http listeners side by side; the https one has a PKCS12 key store."""
    props = {
        "listeners": "https://127.0.0.1:0,http://127.0.0.1:0",
        "rest.advertised.listener": "https",
        **pki.keystore_props(),
    }
    with running_worker(tmp_path_factory.mktemp("tls"), props) as worker:
        yield worker


@pytest.fixture(scope="module")
def mutual_tls_worker(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    """ssl.client.auth=required, with a PEM key store (encrypted key) and PEM trust store, unprefixed."""
    props = {
        "listeners": "https://127.0.0.1:0",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server_pem),
        "ssl.key.password": KEY_PASSWORD,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(pki.ca_bundle),
        "ssl.client.auth": "required",
    }
    with running_worker(tmp_path_factory.mktemp("mtls"), props) as worker:
        yield worker


@pytest.fixture(scope="module")
def requested_tls_worker(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    props = {
        "listeners": "https://127.0.0.1:0",
        **pki.keystore_props(),
        "listeners.https.ssl.client.auth": "requested",
    }
    with running_worker(tmp_path_factory.mktemp("requested-tls"), props) as worker:
        yield worker


def test_a_client_trusting_the_ca_is_served_over_https(tls_worker: StandaloneWorker, pki: Pki) -> None:
    response = httpx.get(f"{https_url(tls_worker)}/connectors", verify=trusting(pki), timeout=30)
    assert response.status_code == 200
    assert response.json() == []


def test_plain_http_sent_to_an_https_listener_is_refused(tls_worker: StandaloneWorker) -> None:
    plain = https_url(tls_worker).replace("https://", "http://")
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{plain}/connectors", timeout=30)


def test_a_client_that_does_not_trust_the_workers_certificate_refuses_it(
    tls_worker: StandaloneWorker,
) -> None:
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(f"{https_url(tls_worker)}/connectors", verify=ssl.create_default_context(), timeout=30)


def test_an_http_listener_serves_beside_the_https_one(tls_worker: StandaloneWorker) -> None:
    assert httpx.get(f"{http_url(tls_worker)}/connectors", timeout=30).status_code == 200


def test_the_worker_id_carries_the_port_of_the_advertised_listener(tls_worker: StandaloneWorker) -> None:
    assert tls_worker.herder is not None
    https_port = https_url(tls_worker).rsplit(":", 1)[1]
    assert tls_worker.herder.worker_id.endswith(f":{https_port}")


def test_a_client_certificate_the_trust_store_trusts_is_let_in_under_required(
    mutual_tls_worker: StandaloneWorker, pki: Pki
) -> None:
    verify = trusting(pki, pki.client_pem)
    response = httpx.get(f"{https_url(mutual_tls_worker)}/connectors", verify=verify, timeout=30)
    assert response.status_code == 200


def test_a_client_without_a_certificate_is_refused_under_required(
    mutual_tls_worker: StandaloneWorker, pki: Pki
) -> None:
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{https_url(mutual_tls_worker)}/connectors", verify=trusting(pki), timeout=30)


def test_a_client_certificate_of_another_ca_is_refused_under_required(
    mutual_tls_worker: StandaloneWorker, pki: Pki
) -> None:
    with pytest.raises(httpx.TransportError):
        httpx.get(
            f"{https_url(mutual_tls_worker)}/connectors", verify=trusting(pki, pki.stranger_pem), timeout=30
        )


def test_a_client_without_a_certificate_is_let_in_when_one_is_only_requested(
    requested_tls_worker: StandaloneWorker, pki: Pki
) -> None:
    response = httpx.get(f"{https_url(requested_tls_worker)}/connectors", verify=trusting(pki), timeout=30)
    assert response.status_code == 200


def test_a_client_certificate_of_another_ca_is_refused_when_one_is_requested(
    requested_tls_worker: StandaloneWorker, pki: Pki
) -> None:
    with pytest.raises(httpx.TransportError):
        verify = trusting(pki, pki.stranger_pem)
        httpx.get(f"{https_url(requested_tls_worker)}/connectors", verify=verify, timeout=30)


def inter_worker_client(config: WorkerConfig) -> httpx.Client:
    """A client with the TLS context a worker's requests to its peers use (the listener's `ssl.*`)."""
    return httpx.Client(verify=client_ssl_context(config.rest_ssl), timeout=30)


def test_another_worker_with_the_same_ssl_settings_reaches_a_listener_requiring_client_certificates(
    mutual_tls_worker: StandaloneWorker,
) -> None:
    with inter_worker_client(mutual_tls_worker.config) as client:
        assert client.get(f"{https_url(mutual_tls_worker)}/connectors").status_code == 200


def test_a_worker_without_a_key_store_cannot_reach_a_listener_requiring_client_certificates(
    mutual_tls_worker: StandaloneWorker, pki: Pki, tmp_path: Path
) -> None:
    trust_only = {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(pki.ca_bundle)}
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), **trust_only})
    with inter_worker_client(config) as client, pytest.raises(httpx.TransportError):
        client.get(f"{https_url(mutual_tls_worker)}/connectors")
