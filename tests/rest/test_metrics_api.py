"""`GET /metrics` serves Prometheus' text format, and shows the numbers `GET /connectors/{c}/status` shows."""

from __future__ import annotations

from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families
from tests.worker.connectors import COUNTING_TRANSFORM, EVERY_RECORD_PREDICATE, METERED_SOURCE

from waiting import wait_until

from .connectors import create_connector, file_source_config, unique_name, wait_for_status

WRITTEN = "kafka_connect_source_task_metrics_source_record_write_total"


def _samples(client: httpx.Client) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    text = client.get("/metrics").text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_are_served_in_prometheus_text_format(client: httpx.Client) -> None:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert "# TYPE kafka_connect_connect_worker_metrics_connector_count gauge" in response.text


def test_metrics_show_the_same_state_and_counts_as_the_connectors_status(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name("metered")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("metered-topic")))
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    labels = {"connector": name, "task": "0"}
    key = (WRITTEN, frozenset(labels.items()))
    wait_until(lambda: _samples(client).get(key) == 3, "the three lines written")
    status = client.get(f"/connectors/{name}/status").json()
    samples = _samples(client)
    assert status["tasks"][0]["metrics"]["source-record-write-total"] == samples[key] == 3
    running = frozenset({**labels, "status": "running"}.items())
    task_status = ("kafka_connect_connector_task_metrics_status", running)
    assert status["tasks"][0]["state"] == "RUNNING" and samples[task_status] == 1


def test_a_task_s_own_metrics_are_published_under_plugins_with_its_tags(client: httpx.Client) -> None:
    name = unique_name("plugin-metrics")
    create_connector(client, name, {"connector.class": METERED_SOURCE, "tasks.max": "1"})
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    key = (
        "kafka_connect_plugins_polls_total",
        frozenset({"connector": name, "task": "0", "table": "orders"}.items()),
    )
    polls = wait_until(lambda: _samples(client).get(key), "the task's polls-total published")
    assert polls >= 1


def test_a_connector_s_own_metrics_are_published_under_plugins_with_its_name(client: httpx.Client) -> None:
    name = unique_name("connector-metrics")
    create_connector(client, name, {"connector.class": METERED_SOURCE, "tasks.max": "1"})
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    key = ("kafka_connect_plugins_tables_known", frozenset({"connector": name}.items()))
    assert wait_until(lambda: _samples(client).get(key), "the connector's tables-known published") == 3


def test_a_transformation_s_and_a_predicate_s_own_metrics_carry_their_aliases(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name("transform-metrics")
    create_connector(client, name, counted_lines_config(tmp_path))
    task = {"connector": name, "task": "0"}
    seen_tags = frozenset({**task, "transformation": "count"}.items())
    seen = ("kafka_connect_plugins_records_seen_total", seen_tags)
    tested = ("kafka_connect_plugins_records_tested_total", frozenset({**task, "predicate": "all"}.items()))
    wait_until(lambda: _samples(client).get(seen) == 3, "the transformation's count of the 3 lines")
    assert _samples(client)[tested] == 3


def test_each_transformation_and_predicate_is_published_with_its_class_and_version(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name("chain-labels")
    create_connector(client, name, counted_lines_config(tmp_path))
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    task = {"connector": name, "task": "0"}
    transform = {**task, "transform": "count", "transform_class": listed(COUNTING_TRANSFORM)}
    predicate = {**task, "predicate": "all", "predicate_class": listed(EVERY_RECORD_PREDICATE)}
    samples = _samples(client)
    transform_class = "kafka_connect_connector_transform_metrics_transform_class"
    predicate_class = "kafka_connect_connector_predicate_metrics_predicate_class"
    assert samples[(transform_class, frozenset(transform.items()))] == 1
    assert samples[(predicate_class, frozenset(predicate.items()))] == 1


def listed(path: str) -> str:
    """A Python plugin's class as the plugin listing names it: its dotted path."""
    return path.replace(":", ".")


def counted_lines_config(directory: Path) -> dict[str, str]:
    """A FileStreamSource of three lines through a counting transformation under a predicate."""
    return {
        **file_source_config(directory),
        "transforms": "count",
        "transforms.count.type": COUNTING_TRANSFORM,
        "transforms.count.predicate": "all",
        "predicates": "all",
        "predicates.all.type": EVERY_RECORD_PREDICATE,
    }
