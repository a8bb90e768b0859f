"""Which log a task runs on: the worker's, or the cluster a sink connector points its consumer at (how a
sink replicates from another cluster, as Kafka's `consumer.override.bootstrap.servers`), with the
connector's `admin.override.*` settings given to the log's admin clients."""

from __future__ import annotations

from conveyor.log import url_with_client_settings
from conveyor.runtime.task_spec import TaskKind, TaskSpec
from conveyor.settings.client_overrides import ClientType, allowed_overrides
from conveyor.settings.names import CONSUMER_LOG_URL_CONFIG


def task_log_url(spec: TaskSpec) -> str:
    """The log a task loop runs on: a sink's consumer log when its connector names one, else the worker's.

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
    admin = allowed_overrides(policy, spec.connector_config, ClientType.ADMIN)
    return url_with_client_settings(url, "admin", admin)


def admin_overrides(spec: TaskSpec) -> dict[str, str]:
    """The connector's `admin.override.*` settings, as the worker's policy allows them."""
    return allowed_overrides(
        spec.worker_config.client_override_policy, spec.connector_config, ClientType.ADMIN
    )
