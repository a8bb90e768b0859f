"""A connector's client overrides cannot make a worker load code, read files or reach URLs of the
connector's choosing: such settings are refused with a 400 naming the key when the config is validated,
whatever `connector.client.config.override.policy` says, unless the worker allows them explicitly.

Tried over REST on a live worker on each log backend, with a listener that records every connection and
a shared library that leaves a marker file when loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from log_backends import BACKENDS, fresh_log_url
from waiting import wait_until

from .attacks import Listener, MarkerLibrary, build_marker_library, recording_listener
from .workers import running_worker

ALLOWED_UNSAFE_KEYS = "connector.client.config.override.allowed.unsafe.keys"
ALLOWED_PATHS = "connector.client.config.override.allowed.paths"
ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls"
WAIT_S = 120.0


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MarkerLibrary]:
    """What attacks name: it must never be loaded, not even after the test that named it."""
    built = build_marker_library(tmp_path_factory.mktemp("library"))
    yield built
    assert not built.loaded(), built.marker.read_text()


@pytest.fixture(scope="module")
def allowed_library(tmp_path_factory: pytest.TempPathFactory) -> MarkerLibrary:
    """What a worker's operator allows clients to load."""
    return build_marker_library(tmp_path_factory.mktemp("allowed-library"))


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    """Where attacks point clients: it must never see a connection, not even after the test that named it."""
    with recording_listener() as started:
        yield started
        assert started.connections == []


@pytest.fixture(scope="module")
def allowed_listener() -> Iterator[Listener]:
    """Where a worker's operator allows clients to go."""
    with recording_listener() as started:
        yield started


@pytest.fixture(scope="module", params=BACKENDS)
def worker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StandaloneWorker]:
    """A worker with the default policy, All, on each log backend."""
    folder = tmp_path_factory.mktemp(f"overrides-{request.param}")
    with running_worker(folder, {"log.url": fresh_log_url(request, request.param, folder)}) as started:
        yield started


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the file connectors' files, the allowed directory and a symlink out of it."""
    folder = tmp_path_factory.mktemp("files")
    (folder / "lines.txt").write_text("one\ntwo\n")
    allowed = folder / "allowed"
    allowed.mkdir()
    (allowed / "ca.pem").write_text("not a certificate\n")
    (allowed / "passwd-link").symlink_to("/etc/passwd")
    return folder


@pytest.fixture(scope="module")
def allowing_worker(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    allowed_listener: Listener,
    files: Path,
) -> Iterator[StandaloneWorker]:
    """A worker on Kafka whose operator allows a library, one token URL and files under one directory."""
    folder = tmp_path_factory.mktemp("allowing")
    props = {
        "log.url": fresh_log_url(request, "kafka", folder),
        ALLOWED_UNSAFE_KEYS: "plugin.library.paths,sasl.oauthbearer.token.endpoint.url",
        ALLOWED_URLS: allowed_listener.url("/allowed"),
        ALLOWED_PATHS: str(files / "allowed"),
    }
    with running_worker(folder, props) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=worker.url, timeout=60.0) as opened:
        yield opened
        _delete_all(opened)


def _delete_all(client: httpx.Client) -> None:
    for name in client.get("/connectors").json():
        client.delete(f"/connectors/{name}")


def connector_config(prefix: str, files: Path, **overrides: str) -> dict[str, str]:
    """A connector whose tasks use the client `prefix` names: a sink's consumer, a source's producer, and
    a source's admin client when it creates its topics."""
    settings = {f"{prefix}.override.{key}": value for key, value in overrides.items()}
    if prefix == "consumer":
        base = {"connector.class": "FileStreamSink", "file": str(files / "out.txt"), "topics": "lines"}
    else:
        base = {"connector.class": "FileStreamSource", "file": str(files / "lines.txt"), "topic": "lines"}
    if prefix == "admin":
        base |= {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "-1"}
    return {**base, "tasks.max": "1", **settings}


def create(client: httpx.Client, name: str, config: dict[str, str]) -> httpx.Response:
    return client.post("/connectors", json={"name": name, "config": config})


def assert_refused(response: httpx.Response, key: str, client: httpx.Client, name: str) -> str:
    """A 400 whose message names `key`, and no connector `name` left behind; the message."""
    assert response.status_code == 400, response.text
    message: str = response.json()["message"]
    assert response.json()["error_code"] == 400
    assert key in message, message
    assert name not in client.get("/connectors").json()
    return message


def validation_errors(client: httpx.Client, plugin: str, config: dict[str, str]) -> dict[str, list[str]]:
    response = client.put(f"/connector-plugins/{plugin}/config/validate", json={"name": "probe", **config})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}


@pytest.mark.parametrize("prefix", ["producer", "consumer", "admin"])
def test_a_plugin_library_override_is_refused_and_the_library_never_loaded(
    client: httpx.Client, library: MarkerLibrary, files: Path, prefix: str
) -> None:
    config = connector_config(prefix, files, **{"plugin.library.paths": str(library.path)})
    response = create(client, "library", config)
    assert_refused(response, f"{prefix}.override.plugin.library.paths", client, "library")
    assert not library.loaded()


def test_a_plugin_library_override_spelt_with_underscores_is_refused(
    client: httpx.Client, library: MarkerLibrary, files: Path
) -> None:
    """The Kafka clients read `plugin_library_paths` as `plugin.library.paths`."""
    config = connector_config("producer", files, **{"plugin_library_paths": str(library.path)})
    assert_refused(
        create(client, "underscores", config), "producer.override.plugin_library_paths", client, "underscores"
    )
    assert not library.loaded()


def oidc_settings(token_url: str) -> dict[str, str]:
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.client.id": "a",
        "sasl.oauthbearer.client.secret": "b",
        "sasl.oauthbearer.token.endpoint.url": token_url,
    }


@pytest.mark.parametrize("prefix", ["producer", "consumer", "admin"])
def test_an_oauth_token_url_override_is_refused_and_never_reached(
    client: httpx.Client, listener: Listener, files: Path, prefix: str
) -> None:
    config = connector_config(prefix, files, **oidc_settings(listener.url("/ssrf")))
    response = create(client, "ssrf", config)
    assert_refused(response, f"{prefix}.override.sasl.oauthbearer.token.endpoint.url", client, "ssrf")
    assert listener.connections == []


def test_a_sink_log_url_carrying_an_oauth_token_url_is_refused_and_never_reached(
    client: httpx.Client, listener: Listener, files: Path, kafka_bootstrap: str
) -> None:
    """A sink's consumer may read another Kafka log, whose URL carries client settings of its own."""
    query = "&".join(f"{key}={value}" for key, value in oidc_settings(listener.url("/ssrf-log")).items())
    config = connector_config("consumer", files, **{"log.url": f"kafka://{kafka_bootstrap}?{query}"})
    message = assert_refused(
        create(client, "ssrf-log", config), "consumer.override.log.url", client, "ssrf-log"
    )
    assert "sasl.oauthbearer.token.endpoint.url" in message
    assert listener.connections == []


UNSAFE_SETTINGS = [
    ("ssl.engine.location", "/tmp/engine.so"),
    ("ssl.engine.id", "dynamic"),
    ("ssl.providers", "/tmp/provider.so"),
    ("sasl.kerberos.kinit.cmd", "touch /tmp/kinit-ran"),
    ("sasl.kerberos.keytab", '/tmp/x"; touch /tmp/keytab-ran; "'),
    ("sasl.kerberos.principal", "x; touch /tmp/principal-ran"),
    ("ssl.ca.location", "/etc/passwd"),
    ("ssl.key.location", "/etc/shadow"),
    ("ssl.certificate.location", "/etc/passwd"),
    ("ssl.crl.location", "/etc/passwd"),
    ("ssl.keystore.location", "/etc/passwd"),
    ("ssl.truststore.location", "/etc/passwd"),
    ("https.ca.location", "/etc/passwd"),
    ("sasl.oauthbearer.assertion.file", "/etc/passwd"),
    ("sasl.oauthbearer.assertion.private.key.file", "/etc/passwd"),
    ("sasl.oauthbearer.assertion.jwt.template.file", "/etc/passwd"),
    ("sasl.oauthbearer.jwks.endpoint.url", "http://127.0.0.1:9/jwks"),
    ("sasl.oauthbearer.metadata.authentication.type", "azure_imds"),
    ("offset.store.path", "/tmp/offsets"),
    ("debug", "all"),
    ("log.queue", "true"),
    ("internal.termination.signal", "15"),
    ("interceptors", "x"),
    ("opaque", "x"),
    ("error_cb", "x"),
]


@pytest.mark.parametrize(("setting", "value"), UNSAFE_SETTINGS, ids=[s for s, _ in UNSAFE_SETTINGS])
def test_validation_refuses_an_unsafe_client_setting_under_its_key(
    client: httpx.Client, files: Path, setting: str, value: str
) -> None:
    config = connector_config("producer", files, **{setting: value})
    errors = validation_errors(client, "FileStreamSource", config)
    key = f"producer.override.{setting}"
    assert list(errors) == [key], errors
    assert setting in errors[key][0]


def test_safe_overrides_pass_validation_under_the_all_policy(client: httpx.Client, files: Path) -> None:
    safe = {
        "linger.ms": "10",
        "bootstrap.servers": "127.0.0.1:9092",
        "ssl.ca.location": "probe",
        "sasl.kerberos.principal": "connector-a/host@EXAMPLE.COM",
        "sasl.oauthbearer.metadata.authentication.type": "none",
        "client.rack": "rack-1",
        "log_level": "6",
    }
    assert validation_errors(client, "FileStreamSource", connector_config("producer", files, **safe)) == {}


def test_a_worker_that_allows_a_library_explicitly_loads_it(
    allowing_worker: StandaloneWorker, allowed_library: MarkerLibrary, files: Path
) -> None:
    """The marker shows a loaded library: without the worker's permission it stays absent."""
    with httpx.Client(base_url=allowing_worker.url, timeout=60.0) as client:
        try:
            config = connector_config(
                "producer", files, **{"plugin.library.paths": str(allowed_library.path)}
            )
            response = create(client, "allowed-library", config)
            assert response.status_code == 201, response.text
            wait_until(allowed_library.loaded, "the library to be loaded", WAIT_S)
        finally:
            _delete_all(client)


def test_a_worker_that_allows_a_token_url_explicitly_lets_the_client_reach_it(
    allowing_worker: StandaloneWorker, allowed_listener: Listener, files: Path
) -> None:
    """A listener sees a listed URL: without the worker's permission it sees nothing."""
    with httpx.Client(base_url=allowing_worker.url, timeout=60.0) as client:
        try:
            config = connector_config("producer", files, **oidc_settings(allowed_listener.url("/allowed")))
            response = create(client, "allowed-url", config)
            assert response.status_code == 201, response.text
            wait_until(
                lambda: any("/allowed" in seen for seen in allowed_listener.connections),
                "a token request",
                WAIT_S,
            )
        finally:
            _delete_all(client)


def test_an_allowed_token_url_key_still_refuses_an_unlisted_url(
    allowing_worker: StandaloneWorker, listener: Listener, files: Path
) -> None:
    """Both are needed: the key in the unsafe keys the worker allows, and the URL in its allowed URLs."""
    with httpx.Client(base_url=allowing_worker.url, timeout=60.0) as client:
        config = connector_config("producer", files, **oidc_settings(listener.url("/unlisted")))
        message = assert_refused(
            create(client, "unlisted", config),
            "producer.override.sasl.oauthbearer.token.endpoint.url",
            client,
            "unlisted",
        )
    assert ALLOWED_URLS in message
    assert listener.connections == []


def test_a_file_setting_under_the_allowed_paths_passes_validation(
    allowing_worker: StandaloneWorker, files: Path
) -> None:
    config = connector_config("producer", files, **{"ssl.ca.location": str(files / "allowed" / "ca.pem")})
    with httpx.Client(base_url=allowing_worker.url, timeout=60.0) as client:
        assert validation_errors(client, "FileStreamSource", config) == {}


@pytest.mark.parametrize("target", ["passwd-link", "../lines.txt"])
def test_a_file_setting_leaving_the_allowed_paths_is_refused(
    allowing_worker: StandaloneWorker, files: Path, target: str
) -> None:
    """A symlink or `..` inside the allowed directory is followed before the check."""
    config = connector_config("producer", files, **{"ssl.ca.location": str(files / "allowed" / target)})
    with httpx.Client(base_url=allowing_worker.url, timeout=60.0) as client:
        errors = validation_errors(client, "FileStreamSource", config)
    assert list(errors) == ["producer.override.ssl.ca.location"], errors
    assert ALLOWED_PATHS in errors["producer.override.ssl.ca.location"][0]


@pytest.mark.parametrize("key", ["source.cluster.log.url", "target.cluster.log.url"])
def test_a_mirror_cluster_url_carrying_a_plugin_library_is_refused_and_never_loaded(
    client: httpx.Client, library: MarkerLibrary, kafka_bootstrap: str, tmp_path: Path, key: str
) -> None:
    """MirrorMaker's connectors open the logs their config names, with the client settings of the URLs."""
    clusters = {
        "source.cluster.log.url": f"embedded:{tmp_path / 'source'}",
        "target.cluster.log.url": f"embedded:{tmp_path / 'target'}",
        key: f"kafka://{kafka_bootstrap}?plugin.library.paths={library.path}",
    }
    config = {"connector.class": "MirrorSourceConnector", "tasks.max": "1", **clusters}
    message = assert_refused(create(client, "mirror", config), key, client, "mirror")
    assert "plugin.library.paths" in message
    assert not library.loaded()


def test_putting_a_config_with_an_unsafe_override_is_refused(
    client: httpx.Client, library: MarkerLibrary, files: Path
) -> None:
    config = connector_config("producer", files, **{"plugin.library.paths": str(library.path)})
    response = client.put("/connectors/put-library/config", json=config)
    assert_refused(response, "producer.override.plugin.library.paths", client, "put-library")
    assert not library.loaded()


def test_patching_an_unsafe_override_into_a_running_connector_is_refused_and_changes_nothing(
    client: httpx.Client, library: MarkerLibrary, files: Path
) -> None:
    config = connector_config("producer", files)
    assert create(client, "patched", config).status_code == 201
    patch = {"producer.override.plugin.library.paths": str(library.path)}
    response = client.patch("/connectors/patched/config", json=patch)
    assert response.status_code == 400, response.text
    assert "producer.override.plugin.library.paths" in response.json()["message"]
    assert "producer.override.plugin.library.paths" not in client.get("/connectors/patched/config").json()
    assert not library.loaded()
