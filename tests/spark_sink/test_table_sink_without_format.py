"""A table sink on a worker whose SparkSession did not load the table format fails its task, saying what
to set, and the worker keeps serving."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from conveyor.log import Log

from .support import sink_config, task_status, wait_until


@pytest.mark.parametrize(
    "target",
    [{"format": "delta"}, {"format": "iceberg", "table": "db.people"}],
    ids=["delta", "iceberg"],
)
def test_a_table_sink_on_a_worker_without_the_format_fails_naming_table_formats(
    client: httpx.Client, log: Log, output: Path, target: dict[str, str]
) -> None:
    topic = f"people-{target['format']}"
    log.admin().create_topic(topic, partitions=1)
    config = sink_config(topic, output, **target, **{"checkpoint.location": str(output / "_checkpoint")})
    if "table" in target:
        del config["path"]
    name = f"{topic}-table"
    assert client.post("/connectors", json={"name": name, "config": config}).status_code == 201

    failed = wait_until(
        lambda: (s := task_status(client, name)).get("state") == "FAILED" and s, "a FAILED task"
    )
    assert f"add '{target['format']}' to the worker's table.formats" in failed["trace"]
    assert client.get("/connectors").status_code == 200
