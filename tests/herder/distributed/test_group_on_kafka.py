"""The worker group on Apache Kafka: the same herders, with Kafka's group coordinator and topics.

Only the log URL changes: membership goes through the broker's group coordinator (protocol type
`connect`), and the config, offset and status topics and the exactly-once task producers are Kafka's.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.herder.distributed.cluster import followers_of, group, leader_of
from tests.herder.distributed.test_distributed_herder import generator, topic_values
from tests.herder.distributed.test_rebalance_protocols import tasks_running
from tests.waiting import wait_until

from conveyor.connectors.generator.verify import verify
from conveyor.log import open_log


def kafka_group_settings(bootstrap: str) -> dict[str, str]:
    """A group of its own on the shared test broker: its id and internal topics are unique to the test."""
    suffix = uuid.uuid4().hex[:8]
    return {
        "log.url": f"kafka://{bootstrap}",
        "group.id": f"group-{suffix}",
        "config.storage.topic": f"configs-{suffix}",
        "offset.storage.topic": f"offsets-{suffix}",
        "status.storage.topic": f"status-{suffix}",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "exactly.once.source.support": "enabled",
    }


def test_a_group_on_kafka_elects_a_leader_and_runs_an_exactly_once_source_across_its_workers(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    settings = kafka_group_settings(kafka_bootstrap)
    topic = f"generated-{uuid.uuid4().hex[:8]}"
    with group(tmp_path, 2, **settings) as members:
        assert leader_of(members).herder.is_leader()
        config = {**generator(topic, tasks=2, records=300), "name": "gen"}
        created = followers_of(members)[0].http("POST", "/connectors", {"name": "gen", "config": config})
        assert created.status_code == 201, created.text
        wait_until(lambda: tasks_running(members, count=2), "two tasks running", 120.0)
        with open_log(f"kafka://{kafka_bootstrap}") as log:
            result = wait_until(
                lambda: (v := verify(topic_values(log, topic), 300, 2)).distinct == 600 and v,
                "600 generated records",
                120.0,
            )
        assert result.exactly_once
        snapshot = leader_of(members).herder.configs.snapshot()
        assert snapshot.task_count_record("gen") == 2
