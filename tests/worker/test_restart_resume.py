"""A whole worker restarted on the same data dir resumes from its offsets and keeps its connectors.

Kafka's `connect_test::test_file_source_and_sink` and `test_pause_state_persistent`: after a clean
restart only the new lines are processed. Connector configs live in the log's config topic, so
(unlike Kafka's standalone mode) they survive the restart without being named again.
"""

from __future__ import annotations

import time
from pathlib import Path

from .support import (
    create_connector,
    file_lines,
    rest_client,
    running_worker,
    states,
    wait_for_states,
    wait_until,
)

SETTLE_S = 1.0


def lines(prefix: str, count: int) -> list[str]:
    return [f"{prefix}-{n}" for n in range(count)]


def append(path: Path, new_lines: list[str]) -> None:
    with path.open("a") as handle:
        handle.writelines(line + "\n" for line in new_lines)


def test_a_restarted_worker_processes_only_the_lines_added_while_it_was_down(tmp_path: Path) -> None:
    source, sink = tmp_path / "source.txt", tmp_path / "sink.txt"
    before, during = lines("before", 50), lines("during", 30)
    append(source, before)
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        create_connector(
            client, "file-source", {"connector.class": "FileStreamSource", "file": str(source), "topic": "t"}
        )
        create_connector(
            client, "file-sink", {"connector.class": "FileStreamSink", "file": str(sink), "topics": "t"}
        )
        wait_until(lambda: len(file_lines(sink)) == len(before), "the first lines in the sink file")
    append(source, during)
    with running_worker(tmp_path / "data") as worker:
        wait_until(lambda: len(file_lines(sink)) >= len(before + during), "the new lines in the sink file")
        time.sleep(SETTLE_S)
    assert file_lines(sink) == before + during


def test_connector_configs_survive_a_worker_restart(tmp_path: Path) -> None:
    config = {"connector.class": "FileStreamSource", "file": str(tmp_path / "in.txt"), "topic": "kept"}
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        create_connector(client, "kept", config)
        saved = client.get("/connectors/kept/config").json()
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        assert client.get("/connectors").json() == ["kept"]
        assert client.get("/connectors/kept/config").json() == saved
        wait_for_states(client, "kept", "RUNNING", ["RUNNING"])


def test_a_paused_connector_is_still_paused_after_a_worker_restart(tmp_path: Path) -> None:
    config = {"connector.class": "FileStreamSource", "file": str(tmp_path / "in.txt"), "topic": "paused"}
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        create_connector(client, "paused", config)
        client.put("/connectors/paused/pause")
        wait_for_states(client, "paused", "PAUSED", ["PAUSED"])
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        wait_for_states(client, "paused", "PAUSED", ["PAUSED"])
        time.sleep(SETTLE_S)
        assert states(client, "paused") == ("PAUSED", ["PAUSED"])
