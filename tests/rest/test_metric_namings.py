"""Each `metrics.names` naming publishes only its own names for Kafka Connect's metrics; Conveyor's own
task memory gauges (the memory and its limit) have one name under every naming."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from conveyor.metrics.metric_groups import TASK_MEMORY_LIMIT_NAME, TASK_MEMORY_NAME, MetricNaming
from conveyor.metrics.worker_metrics import ConnectorMetrics, TaskMetricValues, WorkerMetrics
from conveyor.rest.connect_collector import ConnectCollector

SNAPSHOT = WorkerMetrics(
    {"task-count": 1.0, "connector-startup-attempts-total": 1.0},
    {"orders": {"connector-running-task-count": 1}},
    [ConnectorMetrics("orders", "running", "GeneratorSourceConnector", "source", "1.0")],
    [
        TaskMetricValues(
            "orders",
            0,
            "running",
            {
                "source-record-poll-total": 10,
                "offset-commit-success-percentage": 1.0,
                "memory-rss-bytes": 5e7,
                "memory-limit-bytes": 2**31,
            },
        )
    ],
)


def _names(*namings: MetricNaming) -> set[str]:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ConnectCollector(lambda: SNAPSHOT, namings))
    text = generate_latest(registry).decode()
    return {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}


def test_the_default_naming_is_the_jmx_exporters() -> None:
    assert _names(MetricNaming.JMX_DEFAULT) == {
        "kafka_connect_connect_worker_metrics_task_count",
        "kafka_connect_connect_worker_metrics_connector_startup_attempts_total",
        "kafka_connect_connect_worker_metrics_connector_running_task_count",
        "kafka_connect_connect_worker_rebalance_metrics_connect_protocol",
        "kafka_connect_connect_worker_rebalance_metrics_epoch",
        "kafka_connect_connect_worker_rebalance_metrics_completed_rebalances_total",
        "kafka_connect_connect_worker_rebalance_metrics_rebalancing",
        "kafka_connect_connect_worker_rebalance_metrics_rebalance_max_time_ms",
        "kafka_connect_connect_worker_rebalance_metrics_rebalance_avg_time_ms",
        "kafka_connect_connect_worker_rebalance_metrics_time_since_last_rebalance_ms",
        "kafka_connect_connector_metrics_status",
        "kafka_connect_connector_metrics_connector_class",
        "kafka_connect_connector_metrics_connector_type",
        "kafka_connect_connector_metrics_connector_version",
        "kafka_connect_connector_task_metrics_status",
        "kafka_connect_connector_task_metrics_offset_commit_success_percentage",
        "kafka_connect_source_task_metrics_source_record_poll_total",
        TASK_MEMORY_NAME,
        TASK_MEMORY_LIMIT_NAME,
    }


def test_strimzi_naming_alone_publishes_only_strimzis_names_and_leaves_out_what_its_rules_drop() -> None:
    assert _names(MetricNaming.STRIMZI) == {
        "kafka_connect_worker_task_count",
        "kafka_connect_worker_connector_startup_attempts_total",
        "kafka_connect_worker_connector_running_task_count",
        "kafka_connect_worker_rebalance_connect_protocol",
        "kafka_connect_worker_rebalance_epoch",
        "kafka_connect_worker_rebalance_completed_rebalances_total",
        "kafka_connect_worker_rebalance_rebalancing",
        "kafka_connect_worker_rebalance_rebalance_max_time_ms",
        "kafka_connect_worker_rebalance_rebalance_avg_time_ms",
        "kafka_connect_worker_rebalance_time_since_last_rebalance_ms",
        "kafka_connect_connector_status",
        "kafka_connect_connector_connector_class",
        "kafka_connect_connector_connector_type",
        "kafka_connect_connector_connector_version",
        "kafka_connect_connector_task_status",
        "kafka_connect_source_task_source_record_poll_total",
        TASK_MEMORY_NAME,
        TASK_MEMORY_LIMIT_NAME,
    }


def test_both_namings_publish_each_metric_under_both_names() -> None:
    assert _names(MetricNaming.STRIMZI, MetricNaming.JMX_DEFAULT) == _names(MetricNaming.STRIMZI) | _names(
        MetricNaming.JMX_DEFAULT
    )
