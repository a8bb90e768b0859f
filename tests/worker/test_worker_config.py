"""Worker properties are parsed once, by one definition, into typed settings with Kafka's defaults."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from conveyor.api import ConfigError
from conveyor.log.kafka import KafkaSettings
from conveyor.settings.worker_config import ExactlyOnceSourceSupport, WorkerConfig


def parse(tmp_path: Path) -> WorkerConfig:
    return WorkerConfig.from_props({"data.dir": str(tmp_path)})


def test_unset_keys_take_kafka_connects_documented_defaults(tmp_path: Path) -> None:
    config = parse(tmp_path)
    assert config.offset_flush_interval_ms == 60000
    assert config.offset_flush_timeout_ms == 5000
    assert config.graceful_shutdown_timeout_ms == 5000
    assert config.offsets_partitions == 25
    assert config.status_partitions == 5
    assert config.offsets_topic == "connect-offsets"
    assert config.exactly_once_source_support is ExactlyOnceSourceSupport.DISABLED
    assert config.producer_transaction_timeout_ms == 60000
    assert config.group_id == "connect-standalone"


def test_values_are_typed(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {"data.dir": str(tmp_path), "offset.flush.interval.ms": " 250 ", "topic.tracking.enable": "FALSE"}
    )
    assert config.offset_flush_interval_ms == 250
    assert config.topic_tracking_enable is False


def test_exactly_once_source_support_is_an_enum_and_ignores_case(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "exactly.once.source.support": "Enabled"})
    assert config.exactly_once_source_support is ExactlyOnceSourceSupport.ENABLED
    assert config.exactly_once_source_enabled


def test_a_bad_number_raises_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        WorkerConfig.from_props({"data.dir": str(tmp_path), "offset.flush.interval.ms": "soon"})
    assert str(raised.value) == (
        "Invalid value soon for configuration offset.flush.interval.ms: Not a number of type LONG"
    )
    assert raised.value.name == "offset.flush.interval.ms"


def test_an_unknown_exactly_once_mode_raises_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        WorkerConfig.from_props({"data.dir": str(tmp_path), "exactly.once.source.support": "sometimes"})
    assert str(raised.value).startswith(
        "Invalid value sometimes for configuration exactly.once.source.support:"
    )


def test_a_key_conveyor_does_not_support_is_warned_about_by_name(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {"data.dir": str(tmp_path), "metric.reporters": "x", "metrics.num.samples": "3"}
    )
    assert "Ignoring worker property 'metric.reporters': Conveyor does not support it" in config.warnings
    assert "Ignoring worker property 'metrics.num.samples': Conveyor does not support it" in config.warnings


def test_an_ignored_key_keeps_its_reason(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "offset.storage.file.filename": "/tmp/x"})
    assert config.warnings == (
        "Ignoring worker property 'offset.storage.file.filename': "
        "standalone offsets are kept in the log's offsets topic",
    )


def test_plugin_path_lists_directories_to_load_plugins_from(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "plugin.path": "/opt/connectors, /opt/more"})
    assert (config.plugin_path, config.warnings) == (("/opt/connectors", "/opt/more"), ())


def test_converter_and_spark_settings_are_not_warned_about(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {"data.dir": str(tmp_path), "key.converter.schemas.enable": "false", "spark.ui.port": "4041"}
    )
    assert config.warnings == ()


def test_the_worker_converter_comes_with_its_prefixed_settings(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "value.converter.schemas.enable": "false"})
    assert config.converter("value.converter") == (
        "org.apache.kafka.connect.json.JsonConverter",
        {"schemas.enable": "false"},
    )


def test_the_settings_survive_pickling_for_the_executors(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "exactly.once.source.support": "enabled"})
    assert pickle.loads(pickle.dumps(config)) == config


def test_a_worker_value_can_name_a_config_provider_variable(tmp_path: Path) -> None:
    secrets = tmp_path / "worker-secrets.properties"
    secrets.write_text("group=payments\n")
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path),
            "config.providers": "file",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
            "group.id": f"${{file:{secrets}:group}}",
        }
    )
    assert config.group_id == "payments"
    assert config.warnings == ()


def test_bootstrap_servers_without_log_url_select_the_kafka_backend_with_client_settings(
    tmp_path: Path,
) -> None:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path),
            "bootstrap.servers": "a:9092, b:9093",
            "security.protocol": "SSL",
            "producer.linger.ms": "10",
            "consumer.fetch.min.bytes": "2",
            "admin.request.timeout.ms": "5000",
        }
    )
    settings = KafkaSettings.from_url(config.log_url)
    assert settings.bootstrap_servers == "a:9092,b:9093"
    assert settings.client_config("producer")["security.protocol"] == "SSL"
    assert settings.client_config("producer")["linger.ms"] == "10"
    assert "linger.ms" not in settings.client_config("consumer")
    assert settings.client_config("consumer")["fetch.min.bytes"] == "2"
    assert settings.client_config("admin")["request.timeout.ms"] == "5000"
    assert not [warning for warning in config.warnings if "producer.linger.ms" in warning]


def test_log_url_wins_over_bootstrap_servers(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {"data.dir": str(tmp_path), "bootstrap.servers": "a:9092", "log.url": f"embedded:{tmp_path}/log"}
    )
    assert config.log_url == f"embedded:{tmp_path}/log"


def test_internal_topics_have_kafka_connects_replication_factor_in_a_group_and_the_brokers_alone(
    tmp_path: Path,
) -> None:
    grouped = WorkerConfig.from_props({"data.dir": str(tmp_path)}, standalone=False)
    alone = WorkerConfig.from_props({"data.dir": str(tmp_path)})
    assert (grouped.offsets_replication_factor, grouped.configs_replication_factor) == (3, 3)
    assert grouped.status_replication_factor == 3
    assert (alone.offsets_replication_factor, alone.status_replication_factor) == (-1, -1)
    set_one = WorkerConfig.from_props({"data.dir": str(tmp_path), "config.storage.replication.factor": "2"})
    assert set_one.configs_replication_factor == 2


def test_a_replication_factor_of_zero_is_refused_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"offset\.storage\.replication\.factor"):
        WorkerConfig.from_props({"data.dir": str(tmp_path), "offset.storage.replication.factor": "0"})


def test_a_cluster_master_with_the_embedded_log_is_warned_about(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "spark.master": "spark://spark-master:7077"})
    assert config.warnings == (
        "spark.master=spark://spark-master:7077 may run tasks on other machines, which cannot open the "
        f"embedded log at {tmp_path / 'log'}: give the worker bootstrap.servers to run on Kafka",
    )


def test_a_cluster_master_on_kafka_is_not_warned_about(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {"data.dir": str(tmp_path), "spark.master": "yarn", "bootstrap.servers": "kafka-0:9092"}
    )
    assert config.warnings == ()


def test_a_task_host_has_a_memory_limit_of_two_gibibytes_by_default(tmp_path: Path) -> None:
    assert parse(tmp_path).task_memory_limit_bytes == 2 * 1024**3


@pytest.mark.parametrize(
    ("given", "limit"),
    [("512m", 512 * 1024**2), ("2G", 2 * 1024**3), ("1536mb", 1536 * 1024**2), ("300", 300 * 1024**2)],
)
def test_a_task_memory_limit_is_a_size_as_spark_writes_them(tmp_path: Path, given: str, limit: int) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "task.memory.limit": given})
    assert config.task_memory_limit_bytes == limit


@pytest.mark.parametrize("off", ["0", "none", "None"])
def test_a_task_memory_limit_of_zero_or_none_turns_it_off(tmp_path: Path, off: str) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "task.memory.limit": off})
    assert config.task_memory_limit_bytes is None


@pytest.mark.parametrize("bad", ["lots", "-1g", "2x", "1.5g"])
def test_a_bad_task_memory_limit_raises_config_error_naming_the_key(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError) as raised:
        WorkerConfig.from_props({"data.dir": str(tmp_path), "task.memory.limit": bad})
    assert raised.value.name == "task.memory.limit"
    assert str(raised.value).startswith(
        f"Invalid value {bad} for configuration task.memory.limit: Give a size"
    )
