"""Workers of one group, driven over their REST APIs: leadership, forwarding, spreading tasks."""

from __future__ import annotations

from pathlib import Path

from tests.herder.distributed.cluster import followers_of, group, leader_of, settled
from tests.waiting import wait_until

from conveyor.connectors.generator.verify import verify
from conveyor.log import Log

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"


def generator(topic: str = "generated", tasks: int = 3, records: int = 200) -> dict[str, str]:
    return {"connector.class": GENERATOR, "topic": topic, "tasks.max": str(tasks), "records": str(records)}


def topic_values(log: Log, topic: str) -> list[bytes | None]:
    """Every value in `topic` so far (none while it does not exist)."""
    if topic not in log.admin().list_topics():
        return []
    partitions = log.admin().describe_topics([topic])[topic].topic_partitions()
    with log.consumer() as consumer:
        consumer.assign(partitions)
        consumer.seek_to_beginning()
        end = consumer.end_offsets(partitions)
        values: list[bytes | None] = []
        while any(consumer.position(p) < end[p] for p in partitions):
            values.extend(record.value for record in consumer.poll(1.0))
        return values


def running_tasks(status: dict) -> list[str]:
    return [t["state"] for t in status.get("tasks", [])]


def test_three_workers_agree_on_one_leader_and_generation(tmp_path: Path) -> None:
    with group(tmp_path, 3) as members:
        assert settled(members)
        assert leader_of(members).herder.leader_url() == leader_of(members).herder.url


def test_a_connector_created_on_a_follower_is_written_by_the_leader_and_runs(tmp_path: Path) -> None:
    with group(tmp_path, 3) as members:
        follower = followers_of(members)[0]
        response = follower.http("POST", "/connectors", {"name": "gen", "config": generator()})
        assert response.status_code == 201, response.text
        for member in members:
            wait_until(
                lambda m=member: (
                    running_tasks(m.http("GET", "/connectors/gen/status").json()) == ["RUNNING"] * 3
                ),
                "every worker reports three running tasks",
            )


def test_tasks_spread_over_the_workers(tmp_path: Path) -> None:
    with group(tmp_path, 3) as members:
        members[0].http("POST", "/connectors", {"name": "gen", "config": generator(tasks=3)})
        status = wait_until(
            lambda: (
                (s := members[0].http("GET", "/connectors/gen/status").json())
                and running_tasks(s) == ["RUNNING"] * 3
                and s
            ),
            "three running tasks",
        )
        assert len({task["worker_id"] for task in status["tasks"]}) == 3


def test_every_generated_record_arrives_once(tmp_path: Path) -> None:
    with group(tmp_path, 2) as members:
        members[1].http("POST", "/connectors", {"name": "gen", "config": generator(tasks=2, records=500)})

        result = wait_until(
            lambda: (v := verify(topic_values(members[0].log, "generated"), 500, 2)).distinct == 1000 and v,
            "1000 generated records",
        )
        assert result.exactly_once
