"""The SparkFileSink's classes load without Spark, check their settings, and refuse to run as task loops."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conveyor.api import ConfigError, ConnectError
from conveyor.connectors.spark_sink import (
    SparkFileSinkConnector,
    SparkFileSinkSettings,
    SparkStreamingSinkTask,
)
from conveyor.connectors.spark_sink.query import table_name
from conveyor.plugins import load_plugin_class


def test_the_connector_resolves_by_its_alias_without_importing_spark() -> None:
    script = (
        "import sys; from conveyor.plugins import load_plugin_class; "
        "load_plugin_class('SparkFileSink'); print('pyspark' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    assert load_plugin_class("SparkFileSinkConnector") is SparkFileSinkConnector


def test_one_task_runs_the_query_whatever_tasks_max_says() -> None:
    connector = SparkFileSinkConnector()
    connector.start({"name": "c", "topics": "t", "path": "/tmp/out"})
    assert len(connector.task_configs(4)) == 1
    assert connector.task_class() is SparkStreamingSinkTask


def test_the_checkpoint_defaults_to_a_directory_inside_the_output() -> None:
    settings = SparkFileSinkSettings.parse("orders", {"topics": "t", "path": "/out/"})
    assert settings.checkpoint_location == "/out/_checkpoint"
    assert (settings.format, settings.trigger_interval_ms, settings.sql) == ("parquet", 500, None)


@pytest.mark.parametrize(
    "config",
    [
        {"topics": "t", "path": "/out", "format": "avro"},
        {"topics": "t"},
        {"path": "/out"},
        {"topics": "t", "topics.regex": "t.*", "path": "/out"},
        {"topics": "t", "format": "iceberg", "checkpoint.location": "/cp"},
        {"topics": "t", "format": "iceberg", "table": "db.t", "path": "/out", "checkpoint.location": "/cp"},
        {"topics": "t", "format": "delta"},
        {"topics": "t", "format": "delta", "path": "/out", "table": "t"},
        {"topics": "t", "format": "parquet", "path": "/out", "table": "t"},
        {"topics": "t", "format": "delta", "table": "t"},
    ],
    ids=[
        "unknown format",
        "no path",
        "no topics",
        "topics and topics.regex",
        "iceberg without table",
        "iceberg with a path",
        "delta without path or table",
        "delta with path and table",
        "files into a table",
        "a table without checkpoint",
    ],
)
def test_bad_settings_are_config_errors(config: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        SparkFileSinkSettings.parse("c", config)


def test_the_marker_task_takes_no_records() -> None:
    with pytest.raises(ConnectError, match="Structured Streaming"):
        SparkStreamingSinkTask().put([])


def test_tasks_max_is_the_least_number_of_spark_tasks_reading_a_micro_batch() -> None:
    settings = SparkFileSinkSettings.parse("c", {"topics": "t", "path": "/out", "tasks.max": "4"})
    assert settings.tasks_max == 4
    assert SparkFileSinkSettings.parse("c", {"topics": "t", "path": "/out"}).tasks_max == 1


def test_a_delta_table_by_path_keeps_its_checkpoint_inside_it() -> None:
    settings = SparkFileSinkSettings.parse("c", {"topics": "t", "format": "delta", "path": "/lake/people"})
    assert (settings.path, settings.table, settings.checkpoint_location) == (
        "/lake/people",
        None,
        "/lake/people/_checkpoint",
    )


def test_an_iceberg_table_is_named_in_the_workers_iceberg_catalog() -> None:
    settings = SparkFileSinkSettings.parse(
        "c", {"topics": "t", "format": "iceberg", "table": "crm.people", "checkpoint.location": "/cp"}
    )
    assert (table_name(settings), settings.path, settings.checkpoint_location) == (
        "iceberg.crm.people",
        "",
        "/cp",
    )
