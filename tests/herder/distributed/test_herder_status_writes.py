"""The statuses the distributed herder writes itself outlive a status topic out of reach, as the task
loops' do: kept, and written once the topic answers again."""

from __future__ import annotations

from pathlib import Path

from tests.herder.distributed.cluster import group
from tests.waiting import wait_until

from conveyor.runtime.task_spec import TaskId
from conveyor.storage import StatusStore

NAME = "quiet"


def test_the_unassigned_status_of_a_task_stopped_while_statuses_cannot_be_written_is_written_later(
    tmp_path: Path,
) -> None:
    with group(tmp_path, 1) as [member]:
        herder = member.herder
        config = {
            "connector.class": "GeneratorSourceConnector",
            "topic": "quiet",
            "tasks.max": "1",
            "rate": "1",
        }
        assert member.http("PUT", f"/connectors/{NAME}/config", config).status_code == 201
        task = TaskId(NAME, 0)
        wait_until(lambda: herder.worker.task_state(task) is not None, "the task to run")
        wait_until(
            lambda: (status := herder.statuses.task(NAME, 0)) is not None and status.state == "RUNNING",
            "the task's RUNNING status",
        )
        generation = herder.generation
        herder.statuses.stop()
        try:
            assert member.http("PUT", f"/connectors/{NAME}/stop").status_code == 204
            wait_until(lambda: herder.generation > generation, "the rebalance after the task stopped")
        finally:
            herder.statuses.start()
        assert herder.failure is None

        def written_state() -> str | None:
            reader = StatusStore(member.log, herder.config.status_topic, create_missing=False)
            reader.start()
            try:
                status = reader.task(NAME, 0)
                return None if status is None else status.state
            finally:
                reader.stop()

        wait_until(lambda: written_state() == "UNASSIGNED", "the task's UNASSIGNED status written")
