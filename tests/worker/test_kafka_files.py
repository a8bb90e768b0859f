"""Kafka's own `connect-standalone.properties` and `connect-file-source.properties` run unchanged.

Only the file paths and the broker's address are adjusted, and `listeners`/`data.dir` are added for the
test; `bootstrap.servers` puts the worker on the test's Apache Kafka broker. The worker runs as
`conveyor standalone` does for a user, in its own process, and stops cleanly on SIGTERM.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conveyor_process import EXIT_S, ConveyorProcess, start_conveyor

from conveyor.log import open_log

from .support import file_lines, read_values, wait_until

STARTUP_S = 120.0

# Kafka's config/connect-standalone.properties, comments shortened; only the offsets path is a tmp path.
CONNECT_STANDALONE = """\
# These are defaults. This file just demonstrates how to override some settings.
bootstrap.servers=localhost:9092

# The converters specify the format of data in Kafka and how to translate it into Connect data.
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
# Converter-specific settings can be passed in by prefixing the Converter's setting with the converter
key.converter.schemas.enable=true
value.converter.schemas.enable=true

offset.storage.file.filename={offsets}
# Flush much faster than normal, which is useful for testing/debugging
offset.flush.interval.ms=10000

# Set to a list of filesystem paths separated by commas (,) to enable class loading isolation for plugins
#plugin.path=
"""

# Kafka's config/connect-file-source.properties; only the file is an absolute tmp path.
CONNECT_FILE_SOURCE = """\
name=local-file-source
connector.class=FileStreamSource
tasks.max=1
file={file}
topic=connect-test
"""

LINES = ["hello", "from", "kafka's own files"]


@pytest.fixture
def kafka_files(tmp_path: Path, kafka_bootstrap: str) -> tuple[Path, Path, Path]:
    """The worker and connector files (pointed at the test broker), the source file, the worker's data dir."""
    source, data_dir = tmp_path / "test.txt", tmp_path / "data"
    source.write_text("".join(line + "\n" for line in LINES))
    worker_properties = tmp_path / "connect-standalone.properties"
    worker_properties.write_text(
        CONNECT_STANDALONE.format(offsets=tmp_path / "connect.offsets").replace(
            "localhost:9092", kafka_bootstrap
        )
        + f"\nlisteners=http://127.0.0.1:0\ndata.dir={data_dir}\n"
    )
    connector_properties = tmp_path / "connect-file-source.properties"
    connector_properties.write_text(CONNECT_FILE_SOURCE.format(file=source))
    return worker_properties, connector_properties, data_dir


@pytest.fixture
def worker_process(kafka_files: tuple[Path, Path, Path]) -> Iterator[ConveyorProcess]:
    worker_properties, connector_properties, _ = kafka_files
    worker = start_conveyor(
        ["standalone", str(worker_properties), str(connector_properties), "--no-status"],
        worker_properties.parent,
        STARTUP_S,
    )
    try:
        yield worker
    finally:
        worker.stop()


def payloads(values: list[bytes | None]) -> list[object]:
    return [json.loads(value)["payload"] for value in values if value is not None]


def test_kafkas_standalone_files_run_the_file_source_and_stop_cleanly_on_sigterm(
    kafka_files: tuple[Path, Path, Path], worker_process: ConveyorProcess, kafka_bootstrap: str
) -> None:
    with worker_process.client() as client:
        wait_until(
            lambda: client.get("/connectors").json() == ["local-file-source"], "the connector to be created"
        )

        def task_states() -> list[str]:
            status = client.get("/connectors/local-file-source/status").json()
            return [task["state"] for task in status.get("tasks", [])]

        wait_until(lambda: task_states() == ["RUNNING"], "the file source's task to run")
    with open_log(f"kafka://{kafka_bootstrap}") as log:
        # A broker named by CONVEYOR_KAFKA_BOOTSTRAP may hold an earlier run's lines: this run's come last.
        wait_until(
            lambda: payloads(read_values(log, "connect-test"))[-len(LINES) :] == LINES,
            "the lines in connect-test",
        )
    worker_process.process.send_signal(signal.SIGTERM)
    assert worker_process.process.wait(EXIT_S) == 0
    assert "Ignoring worker property 'offset.storage.file.filename'" in worker_process.log
    assert "Traceback" not in worker_process.log
    assert file_lines(kafka_files[0].parent / "connect.offsets") == []
