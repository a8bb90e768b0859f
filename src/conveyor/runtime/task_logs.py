"""Which log a task runs on: the worker's, the cluster a sink connector points its consumer at (how a
sink replicates from another cluster, as Kafka's `consumer.override.bootstrap.servers`), or the cluster a
source connector's producer writes to (`producer.override.bootstrap.servers`), with the connector's
`admin.override.*` settings given to the log's admin clients."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.log import url_on_brokers, url_with_client_settings
from conveyor.runtime.task_spec import TaskKind, TaskSpec
from conveyor.settings.client_overrides import ClientType, allowed_overrides
from conveyor.settings.names import BOOTSTRAP_SERVERS, CONSUMER_LOG_URL_CONFIG
from conveyor.settings.worker_config import WorkerConfig


def task_log_url(spec: TaskSpec) -> str:
    """The log a task loop runs on: a sink's consumer log when its connector names one, a source's
    producer's cluster, else the worker's.

    Resolved once per task incarnation, so the choice costs nothing per record. A sink's consumer overrides
    are checked against the worker's policy before a log they name is opened. The embedded log has no
    admin client settings, so admin overrides reach only a Kafka log.
    """
    url = spec.worker_config.log_url
    policy = spec.worker_config.client_override_policy
    if spec.kind is TaskKind.SINK:
        override = spec.connector_config.get(CONSUMER_LOG_URL_CONFIG, "").strip()
        if override:
            allowed_overrides(policy, spec.connector_config, ClientType.CONSUMER)
            url = override
    else:
        url = source_cluster_url(spec.worker_config, spec.connector_config) or url
    admin = allowed_overrides(policy, spec.connector_config, ClientType.ADMIN)
    return url_with_client_settings(url, "admin", admin)


def source_cluster_url(worker: WorkerConfig, connector_config: Mapping[str, str]) -> str | None:
    """The Kafka cluster a source connector's producer writes to when it is not the worker's (its
    `producer.override.bootstrap.servers` names other brokers), with the connector's admin overrides; None
    when it produces to the worker's log.

    KIP-618: the connector's own offsets topic lives there, so that its offsets can be written in the
    transaction of its records, and its task producers are fenced there. As Kafka's
    `sameOffsetTopicAsWorker`, brokers are compared by name, not by asking the clusters.
    """
    producer = allowed_overrides(worker.client_override_policy, connector_config, ClientType.PRODUCER)
    url = url_on_brokers(worker.log_url, producer.get(BOOTSTRAP_SERVERS, ""))
    if url is None:
        return None
    admin = allowed_overrides(worker.client_override_policy, connector_config, ClientType.ADMIN)
    return url_with_client_settings(url, "admin", admin)


def admin_overrides(spec: TaskSpec) -> dict[str, str]:
    """The connector's `admin.override.*` settings, as the worker's policy allows them."""
    return allowed_overrides(
        spec.worker_config.client_override_policy, spec.connector_config, ClientType.ADMIN
    )
