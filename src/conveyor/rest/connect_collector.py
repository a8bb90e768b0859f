"""A Prometheus collector over a worker's Kafka Connect metrics, read afresh at every scrape.

Samples are named and labelled as the Prometheus JMX exporter's usual rules name Kafka Connect's JMX
metrics (`kafka_connect_<group>_<metric>` with `connector` and `task` labels), so dashboards built for
Kafka Connect read a Conveyor worker unchanged. A value not measured yet is NaN, as in Kafka.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from conveyor.runtime.metric_groups import GROUPS, LABEL_METRICS, MetricGroup, prometheus_name
from conveyor.runtime.worker_metrics import WorkerMetrics


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    return math.nan


class _Families:
    """The metric families of one scrape, created as their first sample arrives."""

    def __init__(self) -> None:
        self._families: dict[str, CounterMetricFamily | GaugeMetricFamily] = {}

    def add(self, group: MetricGroup, metric: str, labels: dict[str, str], value: Any) -> None:
        name = prometheus_name(group.name, metric)
        if metric in LABEL_METRICS:
            if value in (None, ""):
                return
            labels = {**labels, metric.replace("-", "_"): str(value)}
            value = 1
        family = self._families.get(name)
        if family is None:
            family = (CounterMetricFamily if metric.endswith("-total") else GaugeMetricFamily)(
                name, group.metrics[metric], labels=list(labels)
            )
            self._families[name] = family
        family.add_metric(list(labels.values()), _number(value))

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._families.values())


class ConnectCollector(Collector):
    """Collects `snapshot()` (a worker's metrics) into Prometheus families at each scrape."""

    def __init__(self, snapshot: Callable[[], WorkerMetrics]) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        metrics = self._snapshot()
        families = _Families()
        worker, per_connector, rebalance, connector, *task_groups = GROUPS
        _add_all(families, worker, {}, metrics.worker)
        for name, counts in metrics.connector_task_counts.items():
            _add_all(families, per_connector, {"connector": name}, counts)
        _add_all(families, rebalance, {}, vars(metrics.rebalance), underscores=True)
        for info in metrics.connectors:
            _add_all(families, connector, {"connector": info.name}, vars(info), underscores=True)
        for task in metrics.tasks:
            labels = {"connector": task.connector, "task": str(task.task)}
            values = {"status": task.status, **task.values}
            for group in task_groups:
                _add_all(families, group, labels, values)
        yield from families


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
