"""What the stuck-connector group tests share: the workers' settings and a create that rides out 409s."""

from __future__ import annotations

from tests.blocking import PLUGIN_DIR
from tests.waiting import wait_until

from .worker_group import WorkerGroup

OVERRIDES = {
    "plugin.path": str(PLUGIN_DIR),
    "connector.call.timeout.ms": "10000",
    "task.shutdown.graceful.timeout.ms": "2000",
    "spark.master": "local[2]",
}


def create(group: WorkerGroup, name: str, config: dict[str, str]) -> None:
    """Create the connector, retrying while the group answers 409 for a rebalance in progress."""

    def created() -> bool:
        response = group.request(group.workers[-1], "PUT", f"/connectors/{name}/config", config)
        assert response.status_code in (201, 409), response.text
        return response.status_code == 201

    wait_until(created, f"{name} to be created", 120.0, every_s=0.5)
