"""Connector configs for the herder tests, and waiting for the states the herder publishes."""

from __future__ import annotations

import time
from pathlib import Path

from conveyor.herder.standalone import StandaloneHerder

NAME = "conn"
FAILING_SOURCE = "tests.worker.connectors:FailingSourceConnector"
RECORDING_SINK = "tests.worker.connectors:RecordingSinkConnector"
WAIT_S = 30.0


def file_source(directory: Path, topic: str = "lines") -> dict[str, str]:
    """A FileStreamSource reading a two-line file of its own."""
    source = directory / f"{topic}.txt"
    source.write_text("first\nsecond\n")
    return {"connector.class": "FileStreamSource", "file": str(source), "topic": topic, "tasks.max": "1"}


def failing_once_source(directory: Path) -> dict[str, str]:
    """A source whose first task incarnation fails; later ones run."""
    return {
        "connector.class": FAILING_SOURCE,
        "fail.after.ms": "50",
        "fail.once.marker": str(directory / "failed-once"),
        "tasks.max": "1",
    }


def recording_sink(directory: Path, topic: str = "in") -> dict[str, str]:
    (directory / "values").mkdir(exist_ok=True)
    return {
        "connector.class": RECORDING_SINK,
        "topics": topic,
        "tasks.max": "1",
        "events.file": str(directory / "events.jsonl"),
        "values.dir": str(directory / "values"),
    }


def states(herder: StandaloneHerder, name: str = NAME) -> tuple[str, list[str]]:
    status = herder.connector_status(name)
    return status.connector.state, [task.state for task in sorted(status.tasks, key=lambda t: t.id)]


def wait_for_states(herder: StandaloneHerder, connector: str, tasks: list[str], name: str = NAME) -> None:
    deadline = time.monotonic() + WAIT_S
    last = states(herder, name)
    while last != (connector, tasks):
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} never became {connector} {tasks}; last {last}")
        time.sleep(0.05)
        last = states(herder, name)
