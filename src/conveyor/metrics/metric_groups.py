"""Kafka Connect's metric groups and what each metric means (its `ConnectMetricsRegistry`).

The task loops and the worker produce the values under these names; `GET /metrics` publishes them and
docs/monitoring.md lists them. Metrics whose values are words (a status, a class) are published as a
label on a sample of value 1, as the Prometheus JMX exporter's usual rules render them.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

WORKER_GROUP = "connect-worker-metrics"
REBALANCE_GROUP = "connect-worker-rebalance-metrics"
CONNECTOR_GROUP = "connector-metrics"
TASK_GROUP = "connector-task-metrics"
SOURCE_GROUP = "source-task-metrics"
SINK_GROUP = "sink-task-metrics"
ERROR_GROUP = "task-error-metrics"
PLUGINS_GROUP = "plugins"
"""Plugins' own metrics (KIP-877): `kafka.connect:type=plugins,connector=..,task=..,<plugin tags>`."""


@dataclass(frozen=True)
class MetricGroup:
    """A group's name, the tags its samples carry, and each metric's meaning."""

    name: str
    tags: tuple[str, ...]
    metrics: dict[str, str]


TASK_PLUGIN_METRICS = {
    "task-class": "The class name of the task (label).",
    "task-version": "The version of the task class (label).",
    **{
        f"{converter}-converter-{what}": f"The {what} of the {converter} converter the task uses (label)."
        for converter in ("key", "value", "header")
        for what in ("class", "version")
    },
}
"""The plugin classes and versions a task runs with (Kafka 4.1, KIP-891)."""

GROUPS: tuple[MetricGroup, ...] = (
    MetricGroup(
        WORKER_GROUP,
        (),
        {
            "connector-count": "The number of connectors run in this worker.",
            "task-count": "The number of tasks run in this worker.",
            "connector-startup-attempts-total": "The total number of connector startups attempted here.",
            "connector-startup-success-total": "The total number of connector starts that succeeded.",
            "connector-startup-success-percentage": "The fraction of this worker's connector starts that "
            "succeeded.",
            "connector-startup-failure-total": "The total number of connector starts that failed.",
            "connector-startup-failure-percentage": "The fraction of connector starts that failed.",
            "task-startup-attempts-total": "The total number of task startups attempted here.",
            "task-startup-success-total": "The total number of task starts that succeeded (the task reported "
            "RUNNING or PAUSED from its executor).",
            "task-startup-success-percentage": "The fraction of this worker's task starts that succeeded.",
            "task-startup-failure-total": "The total number of task starts that failed.",
            "task-startup-failure-percentage": "The fraction of this worker's task starts that failed.",
        },
    ),
    MetricGroup(
        WORKER_GROUP,
        ("connector",),
        {
            "connector-total-task-count": "The number of tasks of the connector here.",
            "connector-running-task-count": "The number of running tasks of the connector here.",
            "connector-paused-task-count": "The number of paused tasks of the connector here.",
            "connector-failed-task-count": "The number of failed tasks of the connector here.",
            "connector-unassigned-task-count": "The number of unassigned tasks of the connector here.",
            "connector-restarting-task-count": "The number of restarting tasks of the connector here.",
            "connector-destroyed-task-count": "The number of destroyed tasks of the connector here.",
        },
    ),
    MetricGroup(
        REBALANCE_GROUP,
        (),
        {
            "connect-protocol": "The Connect protocol used by this cluster (label; `standalone` for a "
            "standalone worker).",
            "leader-name": "The name of the group leader (label).",
            "epoch": "The epoch or generation number of this worker.",
            "completed-rebalances-total": "The total number of rebalances completed by this worker.",
            "rebalancing": "Whether this worker is currently rebalancing (1) or not (0).",
            "rebalance-max-time-ms": "The maximum time in milliseconds spent by this worker to rebalance.",
            "rebalance-avg-time-ms": "The average time in milliseconds spent by this worker to rebalance.",
            "time-since-last-rebalance-ms": "The time in milliseconds since this worker completed the most "
            "recent rebalance.",
        },
    ),
    MetricGroup(
        CONNECTOR_GROUP,
        ("connector",),
        {
            "status": "The status of the connector: unassigned, running, paused, failed, restarting or "
            "stopped (label).",
            "connector-class": "The name of the connector class (label).",
            "connector-type": "The type of the connector: source or sink (label).",
            "connector-version": "The version of the connector class, as reported by the connector (label).",
        },
    ),
    MetricGroup(
        TASK_GROUP,
        ("connector", "task"),
        {
            "status": "The status of the connector task: unassigned, running, paused, failed, restarting "
            "(label).",
            "running-ratio": "The fraction of time this task has spent in the running state.",
            "pause-ratio": "The fraction of time this task has spent in the paused state.",
            "offset-commit-max-time-ms": "The maximum time in milliseconds taken to commit offsets.",
            "offset-commit-avg-time-ms": "The average time in milliseconds taken to commit offsets.",
            "offset-commit-success-percentage": "The average fraction of this task's offset commit attempts "
            "that succeeded.",
            "offset-commit-failure-percentage": "The average fraction of this task's offset commit attempts "
            "that failed.",
            "batch-size-max": "The number of records in the largest batch the task has processed so far.",
            "batch-size-avg": "The average number of records in the batches the task has processed so far.",
            **TASK_PLUGIN_METRICS,
        },
    ),
    MetricGroup(
        SOURCE_GROUP,
        ("connector", "task"),
        {
            "source-record-poll-total": "The total number of records produced/polled (before transformation) "
            "by this task belonging to the named source connector in this worker.",
            "source-record-poll-rate": "The average per-second number of records produced/polled (before "
            "transformation) by this task.",
            "source-record-write-total": "The number of records output from the transformations and written "
            "to the log for this task.",
            "source-record-write-rate": "The average per-second number of records output from the "
            "transformations and written to the log for this task.",
            "poll-batch-max-time-ms": "The maximum time in milliseconds taken by this task to poll for a "
            "batch of source records.",
            "poll-batch-avg-time-ms": "The average time in milliseconds taken by this task to poll for a "
            "batch of source records.",
            "source-record-active-count": "The number of records that have been produced by this task but "
            "not yet completely written to the log with their offsets.",
            "source-record-active-count-max": "The maximum number of records that have been produced by this "
            "task but not yet completely written to the log.",
            "source-record-active-count-avg": "The average number of records that have been produced by this "
            "task but not yet completely written to the log.",
            "transaction-size-min": "The number of records in the smallest transaction committed so far.",
            "transaction-size-max": "The number of records in the largest transaction committed so far.",
            "transaction-size-avg": "The average number of records in the transactions the task has "
            "committed so far.",
        },
    ),
    MetricGroup(
        SINK_GROUP,
        ("connector", "task"),
        {
            "sink-record-read-total": "The total number of records read from the log by this task belonging "
            "to the named sink connector in this worker, since the task was last restarted.",
            "sink-record-read-rate": "The average per-second number of records read from the log for this "
            "task, before transformations are applied.",
            "sink-record-send-total": "The total number of records output from the transformations and sent "
            "(put) to this task.",
            "sink-record-send-rate": "The average per-second number of records output from the "
            "transformations and sent (put) to this task.",
            "sink-record-active-count": "The number of records that have been read from the log but not yet "
            "completely committed/flushed/acknowledged by the sink task.",
            "sink-record-active-count-max": "The maximum number of records that have been read from the log "
            "but not yet completely committed by the sink task.",
            "sink-record-active-count-avg": "The average number of records that have been read from the log "
            "but not yet completely committed by the sink task.",
            "partition-count": "The number of topic partitions assigned to this task.",
            "offset-commit-seq-no": "The current sequence number for offset commits.",
            "offset-commit-completion-total": "The total number of offset commit completions that were "
            "completed successfully.",
            "offset-commit-completion-rate": "The average per-second number of offset commits completed "
            "successfully.",
            "offset-commit-skip-total": "The total number of offset commits skipped (nothing new to commit).",
            "offset-commit-skip-rate": "The average per-second number of offset commit completions that were "
            "received too late and skipped/ignored.",
            "put-batch-max-time-ms": "The maximum time taken by this task to put a batch of sink records.",
            "put-batch-avg-time-ms": "The average time taken by this task to put a batch of sink records.",
        },
    ),
    MetricGroup(
        ERROR_GROUP,
        ("connector", "task"),
        {
            "total-record-failures": "The number of record processing failures in this task, retries "
            "included.",
            "total-record-errors": "The number of record processing errors in this task.",
            "total-records-skipped": "The number of records skipped due to errors.",
            "total-retries": "The number of operations retried.",
            "total-errors-logged": "The number of errors that were logged.",
            "deadletterqueue-produce-requests": "The number of attempted writes to the dead letter queue.",
            "deadletterqueue-produce-failures": "The number of failed writes to the dead letter queue.",
            "last-error-timestamp": "The epoch timestamp in milliseconds when this task last encountered an "
            "error.",
        },
    ),
)

TRANSFORM_GROUP = "connector-transform-metrics"
PREDICATE_GROUP = "connector-predicate-metrics"
CHAIN_GROUPS = {
    "transform": MetricGroup(
        TRANSFORM_GROUP,
        ("connector", "task", "transform"),
        {
            "transform-class": "The class name of the transformation class (label).",
            "transform-version": "The version of the transformation class (label).",
        },
    ),
    "predicate": MetricGroup(
        PREDICATE_GROUP,
        ("connector", "task", "predicate"),
        {
            "predicate-class": "The class name of the predicate class (label).",
            "predicate-version": "The version of the predicate class (label).",
        },
    ),
}
"""Kafka 4.1's groups of a task's transformations and predicates (KIP-891), by the tag naming the alias."""

TASK_MEMORY_METRIC = "memory-rss-bytes"
"""Conveyor's own task metric: the RSS of the executor's Python process that runs the task."""
TASK_MEMORY_NAME = "conveyor_task_memory_rss_bytes"
"""Its name in `GET /metrics`, with the `connector` and `task` labels, under every naming."""
TASK_MEMORY_LIMIT_METRIC = "memory-limit-bytes"
"""Conveyor's own task metric: the limit of that process's RSS (`task.memory.limit`), when it has one."""
TASK_MEMORY_LIMIT_NAME = "conveyor_task_memory_limit_bytes"
"""Its name in `GET /metrics`, with the `connector` and `task` labels, under every naming."""

LABEL_METRICS = frozenset(
    {"status", "connector-class", "connector-type", "connector-version", "connect-protocol", "leader-name"}
    | set(TASK_PLUGIN_METRICS)
    | {metric for group in CHAIN_GROUPS.values() for metric in group.metrics}
)
"""Metrics whose value is a word: published as a label of that name (with `-` as `_`) on a sample of 1."""


def prometheus_name(group: str, metric: str) -> str:
    """The name the JMX exporter's usual rule gives a Connect metric: `kafka_connect_<group>_<metric>`."""
    return f"kafka_connect_{group}_{metric}".replace("-", "_").replace(".", "_").lower()


class MetricNaming(enum.StrEnum):
    """How `GET /metrics` names Kafka Connect's metrics (the worker's `metrics.names`)."""

    JMX_DEFAULT = "jmx-default"
    """The JMX exporter's default rule: `kafka_connect_<group>_<metric>`."""
    STRIMZI = "strimzi"
    """Strimzi's published `kafka-connect` exporter rules (`kafka_connect_worker_*`, ...)."""


_STRIMZI_TASK_METRIC = re.compile(
    r".+-total|.+-count|.+-ms|.+-ratio|.+-seq-no|.+-rate|.+-max|.+-avg|.+-failures|.+-requests"
    r"|.+-timestamp|.+-logged|.+-errors|.+-retries|.+-skipped"
)
"""The task metrics Strimzi's rules export; the others (`*-percentage`, `transaction-size-min`) they drop."""

_STRIMZI_PREFIXES = {
    WORKER_GROUP: "kafka_connect_worker",
    REBALANCE_GROUP: "kafka_connect_worker_rebalance",
    CONNECTOR_GROUP: "kafka_connect_connector",
}


def strimzi_name(group: str, metric: str) -> str | None:
    """The name Strimzi's `kafka-connect` rules give a Connect metric; None for one they do not export."""
    prefix = _STRIMZI_PREFIXES.get(group)
    if prefix is None:
        if group == TASK_GROUP and metric == "status":
            return "kafka_connect_connector_task_status"
        if not _STRIMZI_TASK_METRIC.fullmatch(metric):
            return None
        prefix = "kafka_connect_" + group.removesuffix("-metrics")
    return f"{prefix}_{metric}".replace("-", "_").lower()


def metric_name(naming: MetricNaming, group: str, metric: str) -> str | None:
    """The name `naming` gives a Connect metric; None when that naming leaves it out."""
    if naming is MetricNaming.STRIMZI:
        return strimzi_name(group, metric)
    return prometheus_name(group, metric)
