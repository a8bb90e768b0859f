"""A Prometheus collector over a worker's Kafka Connect metrics, read afresh at every scrape.

Samples are named and labelled as the Prometheus JMX exporter's default rules name Kafka Connect's JMX
metrics (`kafka_connect_<group>_<metric>` with `connector` and `task` labels), or as Strimzi's published
`kafka-connect` rules name them, or both (`metrics.names`), so dashboards built for Kafka Connect read a
Conveyor worker unchanged. A value not measured yet is NaN, as in Kafka.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from conveyor.metrics.metric_groups import (
    CHAIN_GROUPS,
    GROUPS,
    LABEL_METRICS,
    PLUGINS_GROUP,
    TASK_MEMORY_LIMIT_METRIC,
    TASK_MEMORY_LIMIT_NAME,
    TASK_MEMORY_METRIC,
    TASK_MEMORY_NAME,
    MetricGroup,
    MetricNaming,
    metric_name,
    prometheus_name,
)
from conveyor.metrics.task_metrics import PLUGIN_METRICS_KEY
from conveyor.metrics.worker_metrics import WorkerMetrics


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    return math.nan


class _Families:
    """The metric families of one scrape, created as their first sample arrives."""

    def __init__(self, namings: tuple[MetricNaming, ...]) -> None:
        self._namings = namings
        self._families: dict[str, CounterMetricFamily | GaugeMetricFamily] = {}

    def add(self, group: MetricGroup, metric: str, labels: dict[str, str], value: Any) -> None:
        if metric in LABEL_METRICS:
            if value in (None, ""):
                return
            labels = {**labels, metric.replace("-", "_"): str(value)}
            value = 1
        for naming in self._namings:
            name = metric_name(naming, group.name, metric)
            if name is not None:
                self._sample(name, group.metrics[metric], metric.endswith("-total"), labels, value)

    def _sample(self, name: str, help_text: str, counter: bool, labels: dict[str, str], value: Any) -> None:
        family = self._families.get(name)
        if family is None:
            family = (CounterMetricFamily if counter else GaugeMetricFamily)(
                name, help_text, labels=list(labels)
            )
            self._families[name] = family
        family.add_metric(list(labels.values()), _number(value))

    def add_task_memory(self, labels: dict[str, str], value: Any) -> None:
        """Conveyor's own gauge of a task's memory, under one name whatever the naming."""
        self._sample(
            TASK_MEMORY_NAME,
            "The resident memory (RSS) in bytes of the Python process that runs "
            "the task on its executor, shared with the tasks hosted in the same process.",
            False,
            labels,
            value,
        )

    def add_task_memory_limit(self, labels: dict[str, str], value: Any) -> None:
        """Conveyor's own gauge of the limit of that memory (`task.memory.limit`), where there is one."""
        self._sample(
            TASK_MEMORY_LIMIT_NAME,
            "The resident memory (RSS) in bytes the Python process that runs the task may hold "
            "(task.memory.limit) before its tasks fail with MemoryError.",
            False,
            labels,
            value,
        )

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._families.values())


class _PluginFamilies:
    """Plugins' own metrics (KIP-877), as `kafka_connect_plugins_<name>`: the runtime's `connector` and
    `task` labels, then the plugin's tags; series of one name that differ in tags share the union of
    their label names (a missing one is empty)."""

    def __init__(self) -> None:
        self._series: dict[str, list[tuple[dict[str, str], float]]] = {}
        self._descriptions: dict[str, str] = {}

    def add(self, labels: dict[str, str], samples: list[dict[str, Any]]) -> None:
        for sample in samples:
            name = prometheus_name(PLUGINS_GROUP, str(sample["name"]))
            tags = {
                key.replace("-", "_").replace(".", "_"): str(v) for key, v in sample.get("tags", {}).items()
            }
            self._series.setdefault(name, []).append(({**labels, **tags}, _number(sample.get("value"))))
            self._descriptions.setdefault(name, str(sample.get("description") or name))

    def __iter__(self) -> Iterator[Metric]:
        for name, series in self._series.items():
            label_names = list(dict.fromkeys(key for labels, _ in series for key in labels))
            family = GaugeMetricFamily(name, self._descriptions[name], labels=label_names)
            for labels, value in series:
                family.add_metric([labels.get(key, "") for key in label_names], value)
            yield family


class ConnectCollector(Collector):
    """Collects `snapshot()` (a worker's metrics) into Prometheus families at each scrape."""

    def __init__(
        self,
        snapshot: Callable[[], WorkerMetrics],
        namings: tuple[MetricNaming, ...] = (MetricNaming.JMX_DEFAULT,),
    ) -> None:
        self._snapshot = snapshot
        self._namings = namings

    def collect(self) -> Iterator[Metric]:
        metrics = self._snapshot()
        families = _Families(self._namings)
        worker, per_connector, rebalance, connector, *task_groups = GROUPS
        _add_all(families, worker, {}, metrics.worker)
        for name, counts in metrics.connector_task_counts.items():
            _add_all(families, per_connector, {"connector": name}, counts)
        _add_all(families, rebalance, {}, vars(metrics.rebalance), underscores=True)
        for info in metrics.connectors:
            _add_all(families, connector, {"connector": info.name}, vars(info), underscores=True)
        plugins = _PluginFamilies()
        for task in metrics.tasks:
            labels = {"connector": task.connector, "task": str(task.task)}
            values = {"status": task.status, **task.values}
            for group in task_groups:
                _add_all(families, group, labels, values)
            if TASK_MEMORY_METRIC in values:
                families.add_task_memory(labels, values[TASK_MEMORY_METRIC])
            if TASK_MEMORY_LIMIT_METRIC in values:
                families.add_task_memory_limit(labels, values[TASK_MEMORY_LIMIT_METRIC])
            plugins.add(labels, values.get(PLUGIN_METRICS_KEY, []))
            for stage in task.chain:
                stage_labels = {**labels, stage.kind: stage.alias}
                _add_all(families, CHAIN_GROUPS[stage.kind], stage_labels, stage.values)
        for info in metrics.connectors:
            plugins.add({"connector": info.name}, info.plugin_metrics)
        yield from families
        yield from plugins


def _add_all(
    families: _Families,
    group: MetricGroup,
    labels: dict[str, str],
    values: Mapping[str, Any],
    *,
    underscores: bool = False,
) -> None:
    """Add the group's metrics found in `values` (keyed by metric name, or by its `_` form)."""
    for metric in group.metrics:
        key = metric.replace("-", "_") if underscores else metric
        if key in values:
            families.add(group, metric, labels, values[key])
