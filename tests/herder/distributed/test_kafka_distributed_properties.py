"""Kafka's own `connect-distributed.properties` (as shipped with Kafka 4.x) configures a group worker:
the keys that mean something here are used, the ones that do not apply are warnings, never errors."""

from __future__ import annotations

from pathlib import Path

from conveyor.settings.properties import read_properties
from conveyor.settings.worker_config import WorkerConfig

CONNECT_DISTRIBUTED = Path(__file__).parent / "fixtures" / "connect-distributed.properties"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"


def kafka_props(*edits: tuple[str, str]) -> dict[str, str]:
    """The file's properties, after replacing text in it as a user editing it would."""
    text = CONNECT_DISTRIBUTED.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    return read_properties(text)


def ignored_keys(config: WorkerConfig) -> set[str]:
    return {warning.split("'")[1] for warning in config.warnings}


def test_kafka_connect_distributed_properties_configure_a_group_worker() -> None:
    config = WorkerConfig.from_props(kafka_props(), standalone=False)

    assert config.group_id == "connect-cluster"
    assert (config.offsets_topic, config.configs_topic, config.status_topic) == (
        "connect-offsets",
        "connect-configs",
        "connect-status",
    )
    assert config.offset_flush_interval_ms == 10000
    assert (config.key_converter, config.value_converter) == (JSON_CONVERTER, JSON_CONVERTER)
    assert config.converter("value.converter")[1] == {"schemas.enable": "true"}


def test_its_commented_keys_take_kafka_defaults() -> None:
    config = WorkerConfig.from_props(kafka_props(), standalone=False)

    assert (config.offsets_partitions, config.status_partitions) == (25, 5)
    assert config.listeners.endswith(":8083")
    assert config.connect_protocol.value == "sessioned"


def test_its_bootstrap_servers_select_the_kafka_backend_and_every_key_applies() -> None:
    config = WorkerConfig.from_props(kafka_props(), standalone=False)

    assert ignored_keys(config) == set()
    assert config.log_url == "kafka://localhost:9092"


def test_its_partition_counts_are_used_once_uncommented() -> None:
    props = kafka_props(
        ("#offset.storage.partitions=25", "offset.storage.partitions=10"),
        ("#status.storage.partitions=5", "status.storage.partitions=3"),
    )

    config = WorkerConfig.from_props(props, standalone=False)

    assert (config.offsets_partitions, config.status_partitions) == (10, 3)
