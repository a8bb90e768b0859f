"""`offsets.storage.topic`: an exactly-once source keeps its offsets in a topic of its own, and resumes."""

from __future__ import annotations

import json
import time
from pathlib import Path

from conveyor.connectors import verify

from .support import (
    create_connector,
    exactly_once,
    generator_config,
    read_topic,
    read_values,
    rest_client,
    running_worker,
    task_metrics,
    unique,
    wait_until,
)

RECORDS = 3_000


def test_an_exactly_once_source_resumes_from_its_own_offsets_topic_after_a_worker_restart(
    tmp_path: Path,
) -> None:
    topic, name, offsets_topic = unique("own-offsets"), unique("generator"), unique("generator-offsets")
    config = generator_config(
        topic, records=str(RECORDS), **{"batch.size": "100", "offsets.storage.topic": offsets_topic}
    )
    with running_worker(tmp_path, **exactly_once(True)) as worker, rest_client(worker) as client:
        create_connector(client, name, config)
        wait_until(lambda: len(read_values(worker.log, topic)) >= RECORDS, "every record produced")
    with running_worker(tmp_path, **exactly_once(True)) as worker:
        wait_until(
            lambda: "source-record-poll-total" in task_metrics(worker, name),
            "the restarted task's first poll",
        )
        time.sleep(1.0)
        own = [json.loads(r.key) for r in read_topic(worker.log, offsets_topic) if r.key]
        shared = [json.loads(r.key) for r in read_topic(worker.log, "connect-offsets") if r.key]
        values = read_values(worker.log, topic)
    assert [name, {"task": 0}] in own
    assert all(key[0] != name for key in shared)
    result = verify(values, expected_per_task=RECORDS, expected_tasks=1)
    assert (result.duplicates, result.gaps) == (0, 0)
