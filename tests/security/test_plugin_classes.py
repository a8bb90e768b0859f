"""A REST user can make a worker import only plugins: every plugin-class key of a connector config is
checked when the connector is created or validated, and a name outside the plugin packages is a 400
naming the key, before its module is imported.

The module the requests name is importable from the worker (it is on `sys.path`) and leaves a marker
file when imported, so an import shows even if nothing is instantiated.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conveyor.errors import ConfigError
from conveyor.settings.worker_config import WorkerConfig

from .workers import running_worker

SIDE_EFFECT = """
from pathlib import Path

Path({marker!r}).write_text("imported")


class Thing:
    pass
"""

SINK = {"connector.class": "FileStreamSink", "topics": "plugin-classes", "tasks.max": "1"}


@dataclass(frozen=True)
class SideEffect:
    """A module with an import-time side effect, and the marker that effect leaves."""

    module: str
    marker: Path

    @property
    def imported(self) -> bool:
        return self.marker.exists() or self.module in sys.modules


@pytest.fixture
def side_effect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SideEffect:
    module = f"sidefx_{uuid.uuid4().hex[:8]}"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / f"{module}.py").write_text(SIDE_EFFECT.format(marker=str(tmp_path / "marker")))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return SideEffect(module, tmp_path / "marker")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    with (
        running_worker(tmp_path_factory.mktemp("plugin-classes"), {}) as worker,
        httpx.Client(base_url=worker.url, timeout=30) as client,
    ):
        yield client


def create(client: httpx.Client, config: dict[str, str]) -> httpx.Response:
    return client.post("/connectors", json={"name": f"c-{uuid.uuid4().hex[:8]}", "config": config})


def assert_refused(response: httpx.Response, key: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["error_code"] == 400
    assert f"{key}: " in response.json()["message"]


def test_a_connector_class_outside_the_plugin_packages_is_a_400_and_not_imported(
    client: httpx.Client, side_effect: SideEffect
) -> None:
    response = create(client, {**SINK, "connector.class": f"{side_effect.module}.X"})
    assert_refused(response, "connector.class")
    assert "is not in a plugin package" in response.json()["message"]
    assert not side_effect.imported


def test_a_class_that_is_no_plugin_as_connector_class_is_a_400(client: httpx.Client) -> None:
    for name in ("subprocess.Popen", "subprocess:Popen", "http.server.HTTPServer"):
        assert_refused(create(client, {**SINK, "connector.class": name}), "connector.class")


def test_a_main_module_named_as_connector_class_is_a_400_and_not_imported(client: httpx.Client) -> None:
    assert_refused(create(client, {**SINK, "connector.class": "conveyor.cli.__main__.X"}), "connector.class")
    assert "conveyor.cli.__main__" not in sys.modules


@pytest.mark.parametrize(
    ("key", "extra"),
    [
        ("key.converter", {}),
        ("value.converter", {}),
        ("header.converter", {}),
        ("transforms.t.type", {"transforms": "t"}),
        ("predicates.p.type", {"predicates": "p"}),
    ],
)
def test_a_plugin_key_outside_the_plugin_packages_is_a_400_at_create_and_not_imported(
    client: httpx.Client, side_effect: SideEffect, key: str, extra: dict[str, str]
) -> None:
    response = create(client, {**SINK, **extra, key: f"{side_effect.module}:Thing"})
    assert_refused(response, key)
    assert not side_effect.imported
    assert client.get("/connectors").json() == []


def test_a_class_that_is_no_converter_is_a_400_at_create(client: httpx.Client) -> None:
    assert_refused(create(client, {**SINK, "value.converter": "subprocess.Popen"}), "value.converter")
    response = create(client, {**SINK, "value.converter": "org.apache.kafka.connect.transforms.Filter"})
    assert_refused(response, "value.converter")
    assert "Class must extend: conveyor.api.Converter" in response.json()["message"]
    assert client.get("/connectors").json() == []


def test_validation_reports_a_plugin_key_outside_the_plugin_packages_on_that_key(
    client: httpx.Client, side_effect: SideEffect
) -> None:
    config = {**SINK, "value.converter": f"{side_effect.module}:Thing"}
    response = client.put("/connector-plugins/FileStreamSink/config/validate", json=config)
    assert response.status_code == 200, response.text
    errors = {entry["value"]["name"]: entry["value"]["errors"] for entry in response.json()["configs"]}
    assert errors["value.converter"]
    assert not side_effect.imported


def test_validating_a_connector_class_outside_the_plugin_packages_is_a_400_and_not_imported(
    client: httpx.Client, side_effect: SideEffect
) -> None:
    name = f"{side_effect.module}.X"
    response = client.put(
        f"/connector-plugins/{name}/config/validate", json={**SINK, "connector.class": name}
    )
    assert_refused(response, "connector.class")
    assert not side_effect.imported


def test_a_plugins_config_of_a_class_outside_the_plugin_packages_is_a_404_and_not_imported(
    client: httpx.Client, side_effect: SideEffect
) -> None:
    assert client.get(f"/connector-plugins/{side_effect.module}.X/config").status_code == 404
    assert client.get("/connector-plugins/subprocess.Popen/config").status_code == 404
    assert not side_effect.imported


def test_a_worker_refuses_a_rest_extension_outside_the_plugin_packages(
    side_effect: SideEffect, tmp_path: Path
) -> None:
    props = {"rest.extension.classes": f"{side_effect.module}:Thing"}
    with pytest.raises(ConfigError) as raised, running_worker(tmp_path / "data", props):
        pass
    assert raised.value.name == "rest.extension.classes"
    assert not side_effect.imported


def test_a_worker_refuses_a_config_provider_outside_the_plugin_packages(
    side_effect: SideEffect, tmp_path: Path
) -> None:
    props = {"config.providers": "x", "config.providers.x.class": f"{side_effect.module}:Thing"}
    with pytest.raises(ConfigError) as raised:
        WorkerConfig.from_props({"data.dir": str(tmp_path), **props})
    assert raised.value.name == "config.providers.x.class"
    assert not side_effect.imported


def test_a_worker_accepts_conveyors_own_classes_by_dotted_path(client: httpx.Client) -> None:
    config = {
        **SINK,
        "connector.class": "conveyor.connectors.file.sink:FileStreamSinkConnector",
        "value.converter": "conveyor.convert.string_converter:StringConverter",
    }
    response = create(client, config)
    assert response.status_code == 201, response.text
    assert client.delete(f"/connectors/{response.json()['name']}").status_code == 204
