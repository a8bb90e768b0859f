"""A `conveyor distributed` process is alive or gone: SIGTERM ends it within a bound whatever a connector
does, and a group on Kafka comes back by itself after its broker was down longer than the clients retry."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.distributed.worker_group import GENERATOR, WorkerGroup, worker_group
from tests.herder.distributed.test_distributed_herder import topic_values
from tests.waiting import wait_until

from conveyor.connectors.generator.verify import verify
from conveyor.kafka_broker import KafkaBroker
from conveyor.log import open_log

pytestmark = pytest.mark.timeout(900)

GRACEFUL_MS = 3_000
SHUTDOWN_BOUND_S = GRACEFUL_MS / 1000 + 30.0
"""`task.shutdown.graceful.timeout.ms` plus the worker's shutdown margin."""

STUCK_STOP_PLUGIN = '''
import time

from conveyor.api import ConfigDef, SourceConnector, SourceTask


class IdleTask(SourceTask):
    def version(self):
        return "1.0"

    def start(self, props):
        pass

    def poll(self):
        time.sleep(0.1)
        return None

    def stop(self):
        pass


class StuckStopConnector(SourceConnector):
    """A connector whose stop() never returns (it waits an hour)."""

    def version(self):
        return "1.0"

    def start(self, props):
        pass

    def task_class(self):
        return IdleTask

    def task_configs(self, max_tasks):
        return [{}]

    def stop(self):
        time.sleep(3600)

    def config(self):
        return ConfigDef()
'''


def test_sigterm_ends_a_worker_whose_connector_never_stops_and_names_what_it_abandoned(
    tmp_path: Path,
) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "stuck_stop_plugin.py").write_text(STUCK_STOP_PLUGIN)
    overrides = {"plugin.path": str(plugins), "task.shutdown.graceful.timeout.ms": str(GRACEFUL_MS)}
    with worker_group(tmp_path, 1, **overrides) as group:
        worker = group.workers[0]
        config = {"connector.class": "stuck_stop_plugin.StuckStopConnector", "tasks.max": "1"}
        created = group.request(worker, "POST", "/connectors", {"name": "stuck-stop", "config": config})
        assert created.status_code == 201, created.text
        wait_until(
            lambda: group.status("stuck-stop").get("connector", {}).get("state") == "RUNNING",
            "the connector running",
            120.0,
        )

        worker.process.terminate()
        try:
            worker.process.wait(SHUTDOWN_BOUND_S + 60.0)
        except Exception:
            pytest.fail(f"the worker ignored SIGTERM:\n{worker.tail()}")
        wait_until(lambda: "abandoned" in worker.log, "the worker's last lines", 10.0)
        abandoned = next(line for line in worker.output if "abandoned" in line)
        assert "stuck-stop" in abandoned and "stop()" in abandoned, abandoned


@pytest.fixture(scope="module")
def outage_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """A broker of this module's own, which its test stops and starts again: the session's broker is
    shared with other tests."""
    with KafkaBroker(tmp_path_factory.mktemp("outage-broker")) as broker:
        yield broker


def kafka_group(bootstrap: str) -> dict[str, str]:
    suffix = uuid.uuid4().hex[:8]
    return {
        "bootstrap.servers": bootstrap,
        "group.id": f"outage-{suffix}",
        "config.storage.topic": f"configs-{suffix}",
        "offset.storage.topic": f"offsets-{suffix}",
        "status.storage.topic": f"status-{suffix}",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "spark.master": "local[2]",
    }


def generator(topic: str, tasks: int, records: int) -> dict[str, str]:
    return {
        "connector.class": GENERATOR,
        "topic": topic,
        "tasks.max": str(tasks),
        "records": str(records),
        "rate": "10",
    }


def healthy(group: WorkerGroup) -> bool:
    """Every worker answers 200 on /health; one that exited is started again, as a supervisor would."""
    for worker in list(group.workers):
        if worker.process.poll() is not None:
            group.remove(worker)
            group.add_worker()
            return False
    try:
        return all(httpx.get(w.url + "/health", timeout=10).status_code == 200 for w in group.workers)
    except httpx.HTTPError:
        return False


def created(group: WorkerGroup, name: str, config: dict[str, str]) -> bool:
    """The connector exists, created now or by an earlier attempt."""
    response = group.request(group.workers[0], "POST", "/connectors", {"name": name, "config": config})
    return response.status_code == 201 or (response.status_code == 409 and "already exists" in response.text)


def said_the_coordinator_was_lost(group: WorkerGroup) -> bool:
    """Each worker has given up a first time on the group's coordinator (after the client's retry time)."""
    return all(
        "unavailable; retrying" in w.log or "Uncaught exception in herder work thread" in w.log
        for w in group.workers
    )


def test_a_group_runs_every_task_again_after_its_broker_was_down_longer_than_the_clients_retry(
    tmp_path: Path, outage_broker: KafkaBroker
) -> None:
    bootstrap = outage_broker.bootstrap_servers
    topic = f"outage-{uuid.uuid4().hex[:8]}"
    with worker_group(tmp_path, 2, **kafka_group(bootstrap)) as group:
        first = group.workers[0]
        response = group.request(
            first, "POST", "/connectors", {"name": "gen", "config": generator(topic, 2, 900)}
        )
        assert response.status_code == 201, response.text
        group.wait_for_tasks_running("gen", 2, "both tasks running", 180.0)

        outage_broker.stop()
        wait_until(
            lambda: said_the_coordinator_was_lost(group), "every worker to lose the coordinator", 180.0
        )
        outage_broker.start()

        wait_until(
            lambda: healthy(group) and created(group, "after", generator(f"{topic}-after", 1, 50)),
            "every worker healthy again, and a connector created",
            300.0,
            every_s=2.0,
        )
        with open_log(f"kafka://{bootstrap}") as log:
            wait_until(
                lambda: verify(topic_values(log, f"{topic}-after"), 50, 1).tasks[0].distinct == 50,
                "the connector created after the outage to run",
                300.0,
                every_s=2.0,
            )
            wait_until(
                lambda: all(
                    t.distinct == 900 for t in verify(topic_values(log, topic), 900, 2).tasks.values()
                ),
                "every record of the connector created before the outage",
                300.0,
                every_s=2.0,
            )
