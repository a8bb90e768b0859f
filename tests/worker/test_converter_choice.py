"""Which converter a task uses and which version is pinned for it: the connector's own, else the
worker's, each with its own `<key>.plugin.version` (KIP-891, as Kafka's Worker.newConverter)."""

from __future__ import annotations

from pathlib import Path

from conveyor.settings.converters import converter_choice
from conveyor.settings.worker_config import WorkerConfig

JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"


def worker(tmp_path: Path, **props: str) -> WorkerConfig:
    return WorkerConfig.from_props({"data.dir": str(tmp_path), **props})


def test_the_worker_s_converter_is_pinned_by_the_worker_s_version(tmp_path: Path) -> None:
    config = worker(tmp_path, **{"value.converter": JSON, "value.converter.plugin.version": "4.3.1"})
    assert converter_choice({}, config, "value.converter") == (JSON, "4.3.1", {})


def test_a_connector_s_version_pins_only_a_converter_the_connector_names(tmp_path: Path) -> None:
    config = worker(tmp_path, **{"value.converter": JSON})
    connector = {"value.converter.plugin.version": "1.0"}
    assert converter_choice(connector, config, "value.converter") == (JSON, None, {})
    named = {
        "value.converter": STRING,
        "value.converter.plugin.version": "1.0",
        "value.converter.encoding": "UTF-8",
    }
    assert converter_choice(named, config, "value.converter") == (STRING, "1.0", {"encoding": "UTF-8"})
