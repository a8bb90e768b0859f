"""`metrics.names`: `GET /metrics` names Kafka Connect's metrics as the JMX exporter's default rules do,
as Strimzi's published `kafka-connect` rules do, or both; the Strimzi names are checked against a copy of
those rules, applied as the JMX exporter applies them to the MBeans Kafka Connect registers."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.metrics.metric_groups import (
    GROUPS,
    LABEL_METRICS,
    TASK_MEMORY_LIMIT_NAME,
    TASK_MEMORY_NAME,
    prometheus_name,
)
from scraping import Samples, scrape, value

from .support import (
    JSON_CONVERTER,
    create_connector,
    delete_all_connectors,
    generator_config,
    rest_client,
    running_worker,
    unique,
    wait_for_states,
    wait_until,
)

RULES = Path(__file__).parent / "data" / "strimzi-kafka-connect-rules.yml"
RECORDS = 200


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    name: str
    labels: dict[str, str]
    value: float | None


def _rules() -> list[Rule]:
    config: dict[str, Any] = yaml.safe_load(RULES.read_text())
    return [
        Rule(re.compile(rule["pattern"]), rule["name"], rule.get("labels") or {}, rule.get("value"))
        for rule in config["rules"]
    ]


def _substituted(template: str, match: re.Match[str]) -> str:
    return re.sub(r"\$(\d+)", lambda ref: match.group(int(ref.group(1))), template)


def _exporter_name(name: str) -> str:
    """The JMX exporter's sanitizing of a name (lowercaseOutputName is on in Strimzi's rules)."""
    return re.sub(r"_+", "_", re.sub(r"[^a-zA-Z0-9_:]", "_", name)).lower()


def _strimzi_sample(
    rules: list[Rule], group: str, tags: dict[str, str], metric: str, label_value: str | None, sample: float
) -> tuple[tuple[str, frozenset[tuple[str, str]]], float] | None:
    """What Strimzi's first matching rule makes of an MBean attribute, as the JMX exporter renders it."""
    keys = "".join(f", {key}={tags[key]}" for key in ("connector", "task") if key in tags)
    bean = f"kafka.connect<type={group}{keys}"
    line = f"{bean}><>{metric}" + (f": {label_value}" if label_value is not None else "")
    for rule in rules:
        match = rule.pattern.fullmatch(line)
        if match is None:
            continue
        labels = {
            _exporter_name(_substituted(key, match)): _substituted(template, match)
            for key, template in rule.labels.items()
        }
        return (_exporter_name(_substituted(rule.name, match)), frozenset(labels.items())), (
            rule.value if rule.value is not None else sample
        )
    return None


JMX_DEFAULT_NAMES = {
    prometheus_name(group.name, metric): (group.name, metric) for group in GROUPS for metric in group.metrics
}


def _same(left: float, right: float) -> bool:
    return (math.isnan(left) and math.isnan(right)) or left == right


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("names"), **{"metrics.names": "strimzi,jmx-default"}) as w:
        yield w


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


def _busy_worker(client: httpx.Client, tmp_path: Path) -> Samples:
    """A scrape of a worker running a source and a sink that tolerates errors, once records went through."""
    topic, source, sink = unique("numbers"), unique("source"), unique("sink")
    create_connector(client, source, generator_config(topic, records=str(RECORDS)))
    create_connector(
        client,
        sink,
        {
            "connector.class": "FileStreamSink",
            "topics": topic,
            "file": str(tmp_path / "sink.txt"),
            "value.converter": JSON_CONVERTER,
            "errors.tolerance": "all",
        },
    )
    for name in (source, sink):
        wait_for_states(client, name, "RUNNING", ["RUNNING"])

    def scraped() -> Samples | None:
        samples = scrape(client)
        labels = {"connector": sink, "task": "0"}
        read = value(samples, "kafka_connect_sink_task_metrics_sink_record_read_total", **labels)
        return samples if read == RECORDS else None

    return wait_until(scraped, "the sink to read every record")


def _jmx_default_samples(samples: Samples) -> Iterator[tuple[str, dict[str, str], str, str | None, float]]:
    """Each jmx-default sample as the MBean attribute it renders: group, tags, metric, word value."""
    for (name, labels), sample in samples.items():
        known = JMX_DEFAULT_NAMES.get(name)
        if known is None:
            continue
        group, metric = known
        tags = dict(labels)
        word = tags.pop(metric.replace("-", "_"), None) if metric in LABEL_METRICS else None
        yield group, tags, metric, word, sample


def test_strimzi_names_are_those_strimzis_rules_give_every_published_metric(
    client: httpx.Client, tmp_path: Path
) -> None:
    samples = _busy_worker(client, tmp_path)
    rules = _rules()
    expected: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for group, tags, metric, word, sample in _jmx_default_samples(samples):
        strimzi = _strimzi_sample(rules, group, tags, metric, word, sample)
        if strimzi is not None:
            expected[strimzi[0]] = strimzi[1]
    published = {
        key: sample
        for key, sample in samples.items()
        if key[0] not in JMX_DEFAULT_NAMES
        and key[0] not in (TASK_MEMORY_NAME, TASK_MEMORY_LIMIT_NAME)
        and not key[0].startswith("kafka_connect_plugins_")
    }
    assert set(published) == set(expected)
    assert [key for key, sample in published.items() if not _same(sample, expected[key])] == []
    assert {name for name, _ in expected} >= {
        "kafka_connect_connector_status",
        "kafka_connect_connector_task_status",
        "kafka_connect_source_task_source_record_poll_total",
        "kafka_connect_sink_task_sink_record_read_total",
        "kafka_connect_task_error_total_record_errors",
        "kafka_connect_worker_connector_count",
        "kafka_connect_worker_connector_running_task_count",
        "kafka_connect_worker_rebalance_connect_protocol",
    }
