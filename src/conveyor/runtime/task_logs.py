"""Which log a task reads its records from: the worker's, or the cluster a sink connector points its
consumer at (how a sink replicates from another cluster, as Kafka's `consumer.override.bootstrap.servers`)."""

from __future__ import annotations

from conveyor.runtime.task_spec import TaskKind, TaskSpec

CONSUMER_LOG_URL_CONFIG = "consumer.override.log.url"
"""A sink connector's setting: the log its consumer reads (its topics, group and offsets live there)."""


def task_log_url(spec: TaskSpec) -> str:
    """The log a task loop runs on: a sink's consumer log when its connector names one, else the worker's.

    Resolved once per task incarnation, so the choice costs nothing per record.
    """
    if spec.kind is TaskKind.SINK:
        override = spec.connector_config.get(CONSUMER_LOG_URL_CONFIG, "").strip()
        if override:
            return override
    return spec.worker_config.log_url
