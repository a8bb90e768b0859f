"""Metrics a plugin registers for itself (KIP-877), published beside the runtime's own.

A connector or task gets its :class:`PluginMetrics` from its context (``context.plugin_metrics()``).
Each metric is a name, a description, tags, and a function the runtime calls at each report (a task
reports every heartbeat; a worker scrape reads connectors at once). They are published as Kafka
Connect 4 publishes them, under ``kafka.connect:type=plugins`` with the ``connector`` (and ``task``)
tags and the plugin's own; in ``GET /metrics``: ``kafka_connect_plugins_<name>``.

Example, a source task counting the rows it skipped::

    class RowsTask(SourceTask):
        def start(self, props):
            self.skipped = 0
            metrics = self.context.plugin_metrics()
            metrics.add_metric(
                metrics.metric_name("rows-skipped-total", "Rows the task skipped.", {"table": "orders"}),
                lambda: self.skipped,
            )

A converter, transformation or predicate has no context: it gets its metrics by defining
``with_plugin_metrics`` (Kafka's ``Monitorable``), which the runtime calls once after ``configure``. Its
metrics carry the task's tags and the plugin's place: ``converter`` (``key``, ``value`` or ``header``),
``transformation`` or ``predicate`` (the alias)::

    class CountingTransform(Transformation):
        def with_plugin_metrics(self, metrics):
            metrics.add_metric(metrics.metric_name("records-seen-total"), lambda: self.seen)
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_RESERVED_TAGS = frozenset({"connector", "task"})


@dataclass(frozen=True)
class MetricName:
    """A metric's name, what it measures, and the tags that tell its series apart."""

    name: str
    description: str
    tags: tuple[tuple[str, str], ...] = ()

    @property
    def tag_map(self) -> dict[str, str]:
        return dict(self.tags)


class PluginMetrics:
    """The metrics of one plugin instance; safe to use from any of its threads.

    The runtime removes every metric when the plugin stops; ``remove_metric`` removes one earlier.
    """

    def __init__(self, runtime_tags: Mapping[str, str] | None = None) -> None:
        self._lock = threading.Lock()
        self._values: dict[MetricName, Callable[[], float | None]] = {}
        self._runtime_tags = dict(runtime_tags or {})

    def metric_name(
        self, name: str, description: str = "", tags: Mapping[str, str] | None = None
    ) -> MetricName:
        """A name for ``add_metric``; ``connector`` and ``task`` are the runtime's tags, not the plugin's."""
        if not _NAME.fullmatch(name):
            raise ValueError(f"Invalid plugin metric name {name!r}: letters, digits, '.', '_' and '-' only")
        given = dict(tags or {})
        reserved = sorted((_RESERVED_TAGS | self._runtime_tags.keys()) & given.keys())
        if reserved:
            raise ValueError(f"Tags {reserved} are set by the runtime for plugin metric {name!r}")
        for tag in given:
            if not _NAME.fullmatch(tag):
                raise ValueError(f"Invalid tag {tag!r} of plugin metric {name!r}")
        return MetricName(name, description, tuple(sorted((k, str(v)) for k, v in given.items())))

    def add_metric(self, metric: MetricName, value: Callable[[], float | None]) -> None:
        """Publish ``value()`` under ``metric`` (None: not measured yet, published as NaN); a metric with
        the same name and tags is an error."""
        with self._lock:
            if metric in self._values:
                raise ValueError(f"Plugin metric {metric.name} {metric.tag_map} is already registered")
            self._values[metric] = value

    def remove_metric(self, metric: MetricName) -> None:
        with self._lock:
            self._values.pop(metric, None)

    def close(self) -> None:
        """Remove every metric (the runtime calls it when the plugin stops)."""
        with self._lock:
            self._values.clear()

    def samples(self) -> list[dict[str, Any]]:
        """Each metric's current value: ``{"name", "description", "tags", "value"}``; a function that
        raises or returns no number gives NaN, as Kafka publishes a metric it cannot read."""
        with self._lock:
            registered = list(self._values.items())
        return [
            {
                "name": metric.name,
                "description": metric.description,
                "tags": {**metric.tag_map, **self._runtime_tags},
                "value": _read(value),
            }
            for metric, value in registered
        ]


def _read(value: Callable[[], float | None]) -> float:
    try:
        result = value()
    except Exception:
        return math.nan
    if isinstance(result, bool):
        return 1.0 if result else 0.0
    if isinstance(result, int | float):
        return float(result)
    return math.nan


@runtime_checkable
class Monitorable(Protocol):
    """A converter, transformation or predicate that registers metrics of its own (Kafka's Monitorable)."""

    def with_plugin_metrics(self, metrics: PluginMetrics) -> None:
        """Register metrics on ``metrics``; called once, after ``configure``."""


def monitor(plugin: object, runtime_tags: Mapping[str, str]) -> PluginMetrics | None:
    """The metrics given to ``plugin`` if it is :class:`Monitorable`, tagged with its place in the task."""
    if not isinstance(plugin, Monitorable):
        return None
    metrics = PluginMetrics(runtime_tags)
    plugin.with_plugin_metrics(metrics)
    return metrics


class PluginMetricsHolder:
    """Mixed into the contexts: one :class:`PluginMetrics` per plugin instance, made on first use."""

    _plugin_metrics: PluginMetrics | None = None
    _creating = threading.Lock()

    def plugin_metrics(self) -> PluginMetrics:
        """This plugin's own metrics (KIP-877)."""
        with PluginMetricsHolder._creating:
            if self._plugin_metrics is None:
                self._plugin_metrics = PluginMetrics()
            return self._plugin_metrics

    def plugin_metric_samples(self) -> list[dict[str, Any]]:
        """For the runtime: the samples of the metrics the plugin registered (none if it never asked)."""
        metrics = self._plugin_metrics
        return [] if metrics is None else metrics.samples()

    def close_plugin_metrics(self) -> None:
        """For the runtime: the plugin stopped; its metrics go."""
        metrics = self._plugin_metrics
        if metrics is not None:
            metrics.close()
