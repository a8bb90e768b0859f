"""Several versions of one plugin on plugin.path (KIP-891), seen over HTTP from a `conveyor standalone`
worker: each is listed, a ``*.plugin.version`` key pins one (a version, a range, or the highest by
default), the one pinned runs on Spark and its status says which, and a version not installed is a 400.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from tests.conveyor_process import ConveyorProcess, start_standalone
from tests.waiting import wait_until

from .plugin_files import unique_module, versioned_plugin_source, write_plugin_directory

VERSIONS = ("1.0", "1.5", "2.0")
STARTUP_S = 240.0
RUNNING_S = 120.0


@pytest.fixture(scope="module")
def module_name() -> str:
    return unique_module("versioned")


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, module_name: str) -> Iterator[ConveyorProcess]:
    """A standalone worker whose plugin.path holds three versions of one plugin, a directory each."""
    directory = tmp_path_factory.mktemp("versions")
    plugin_path = directory / "plugins"
    for version in VERSIONS:
        write_plugin_directory(plugin_path, module_name, version, versioned_plugin_source(version))
    props = {
        "listeners": "http://127.0.0.1:0",
        "data.dir": str(directory / "data"),
        "plugin.path": str(plugin_path),
        "offset.flush.interval.ms": "500",
    }
    started = start_standalone(directory, props, STARTUP_S)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def client(worker: ConveyorProcess) -> Iterator[httpx.Client]:
    """The worker's REST client; the connectors a test creates are deleted after it."""
    with worker.client() as rest:
        yield rest
        for name in rest.get("/connectors").json():
            rest.delete(f"/connectors/{quote(name, safe='')}")


def _listed_versions(client: httpx.Client, simple_name: str, query: str = "") -> dict[str, set[str]]:
    """The versions listed of the class ``simple_name``, by plugin type."""
    found: dict[str, set[str]] = {}
    for plugin in client.get(f"/connector-plugins{query}").json():
        if plugin["class"].endswith(f".{simple_name}"):
            found.setdefault(plugin["type"], set()).add(plugin.get("version"))
    return found


def _source(module_name: str, name: str, **extra: str) -> dict[str, Any]:
    return {
        "name": name,
        "config": {"connector.class": f"{module_name}.VersionedSource", "tasks.max": "1", **extra},
    }


def _running_status(client: httpx.Client, name: str) -> dict[str, Any]:
    """The connector's status once it and its task run (fails with the status if a task fails)."""

    def running() -> dict[str, Any] | None:
        status: dict[str, Any] = client.get(f"/connectors/{name}/status").json()
        states = [status.get("connector", {}).get("state")] + [
            task["state"] for task in status.get("tasks", [])
        ]
        assert "FAILED" not in states, status
        return status if len(states) == 2 and set(states) == {"RUNNING"} else None

    return wait_until(running, f"{name} and its task to run", RUNNING_S, every_s=0.5)


def test_every_installed_version_of_a_connector_is_listed(client: httpx.Client) -> None:
    assert _listed_versions(client, "VersionedSource") == {"source": set(VERSIONS)}


def test_every_installed_version_of_a_transformation_and_predicate_is_listed_with_its_metadata_version(
    client: httpx.Client,
) -> None:
    query = "?connectorsOnly=false"
    assert _listed_versions(client, "VersionedStamp", query) == {"transformation": set(VERSIONS)}
    assert _listed_versions(client, "VersionedAlways", query) == {"predicate": set(VERSIONS)}


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_a_connector_pinned_to_a_version_runs_that_version_and_its_status_says_so(
    client: httpx.Client, module_name: str, version: str
) -> None:
    name = f"pinned-{version.replace('.', '-')}"
    response = client.post(
        "/connectors", json=_source(module_name, name, **{"connector.plugin.version": version})
    )
    assert response.status_code == 201, response.text
    status = _running_status(client, name)
    assert status["connector"]["version"] == version
    assert [task["version"] for task in status["tasks"]] == [version]


def test_a_version_range_runs_the_highest_installed_version_it_accepts(
    client: httpx.Client, module_name: str
) -> None:
    config = _source(module_name, "ranged", **{"connector.plugin.version": "[1.0,2.0)"})
    assert client.post("/connectors", json=config).status_code == 201
    status = _running_status(client, "ranged")
    assert status["connector"]["version"] == "1.5"
    assert [task["version"] for task in status["tasks"]] == ["1.5"]


def test_without_a_version_the_highest_installed_version_runs(client: httpx.Client, module_name: str) -> None:
    assert client.post("/connectors", json=_source(module_name, "latest")).status_code == 201
    assert _running_status(client, "latest")["connector"]["version"] == "2.0"


def test_transformations_and_predicates_pinned_to_versions_run_on_the_executors(
    client: httpx.Client, module_name: str
) -> None:
    config = _source(
        module_name,
        "chained",
        **{
            "transforms": "stamp",
            "transforms.stamp.type": f"{module_name}.VersionedStamp",
            "transforms.stamp.plugin.version": "1.5",
            "transforms.stamp.predicate": "always",
            "predicates": "always",
            "predicates.always.type": f"{module_name}.VersionedAlways",
            "predicates.always.plugin.version": "[1.0,1.5)",
        },
    )
    assert client.post("/connectors", json=config).status_code == 201
    _running_status(client, "chained")


@pytest.mark.parametrize(
    ("key", "extra"),
    [
        ("connector.plugin.version", {}),
        (
            "transforms.stamp.plugin.version",
            {"transforms": "stamp", "transforms.stamp.type": "VersionedStamp"},
        ),
        (
            "predicates.always.plugin.version",
            {"predicates": "always", "predicates.always.type": "VersionedAlways"},
        ),
    ],
)
def test_a_version_not_installed_is_a_400_naming_the_key_and_the_installed_versions(
    client: httpx.Client, module_name: str, key: str, extra: dict[str, str]
) -> None:
    config = _source(module_name, "absent", **extra, **{key: "3.0"})
    response = client.post("/connectors", json=config)
    assert response.status_code == 400
    message = response.json()["message"]
    assert f"{key}: " in message
    assert "1.0, 1.5, 2.0" in message


def test_a_converter_version_not_installed_is_a_400_naming_the_key(
    client: httpx.Client, module_name: str
) -> None:
    config = _source(
        module_name,
        "absent-converter",
        **{
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.plugin.version": "0.0.1",
        },
    )
    response = client.post("/connectors", json=config)
    assert response.status_code == 400
    assert "value.converter.plugin.version: " in response.json()["message"]


def test_a_version_that_is_no_version_range_is_a_400_naming_the_key(
    client: httpx.Client, module_name: str
) -> None:
    config = _source(module_name, "garbled", **{"connector.plugin.version": "[1.0"})
    response = client.post("/connectors", json=config)
    assert response.status_code == 400
    assert "connector.plugin.version: " in response.json()["message"]


@pytest.mark.parametrize(
    ("plugin", "prefix"),
    [("VersionedSource", "source"), ("VersionedStamp", "stamp"), ("VersionedAlways", "always")],
)
@pytest.mark.parametrize(("version", "answered"), [("1.0", "1_0"), ("[1.0,2.0)", "1_5"), (None, "2_0")])
def test_a_plugin_config_is_the_config_of_the_version_asked_for(
    client: httpx.Client, plugin: str, prefix: str, version: str | None, answered: str
) -> None:
    params = {"version": version} if version is not None else {}
    response = client.get(f"/connector-plugins/{plugin}/config", params=params)
    assert response.status_code == 200, response.text
    assert [key["name"] for key in response.json()] == [f"{prefix}.only.in.{answered}"]


def test_a_plugin_config_of_a_version_not_installed_is_a_400_listing_the_installed_ones(
    client: httpx.Client,
) -> None:
    response = client.get("/connector-plugins/VersionedSource/config", params={"version": "3.0"})
    assert response.status_code == 400
    assert "1.0, 1.5, 2.0" in response.json()["message"]


def _samples(client: httpx.Client, family: str, connector: str) -> list[str]:
    return [
        line
        for line in client.get("/metrics").text.splitlines()
        if line.startswith(f"{family}{{") and f'connector="{connector}"' in line
    ]


def test_the_metrics_carry_the_versions_of_the_connector_task_and_converters_in_use(
    client: httpx.Client, module_name: str
) -> None:
    json_converter = "org.apache.kafka.connect.json.JsonConverter"
    converter_version = next(
        plugin["version"]
        for plugin in client.get("/connector-plugins?connectorsOnly=false").json()
        if plugin["class"] == json_converter
    )
    config = _source(
        module_name,
        "measured",
        **{
            "connector.plugin.version": "1.5",
            "value.converter": "JsonConverter",
            "value.converter.plugin.version": converter_version,
        },
    )
    assert client.post("/connectors", json=config).status_code == 201
    _running_status(client, "measured")
    task = "kafka_connect_connector_task_metrics"
    assert (
        f'connector_class="{module_name}.VersionedSource"'
        in _samples(client, "kafka_connect_connector_metrics_connector_class", "measured")[0]
    )
    assert (
        'connector_version="1.5"'
        in _samples(client, "kafka_connect_connector_metrics_connector_version", "measured")[0]
    )
    assert 'task_version="1.5"' in _samples(client, f"{task}_task_version", "measured")[0]
    assert (
        f'task_class="{module_name}.VersionedSourceTask"'
        in _samples(client, f"{task}_task_class", "measured")[0]
    )
    assert (
        f'value_converter_class="{json_converter}"'
        in _samples(client, f"{task}_value_converter_class", "measured")[0]
    )
    assert (
        f'value_converter_version="{converter_version}"'
        in _samples(client, f"{task}_value_converter_version", "measured")[0]
    )
