"""Connectors that block in one chosen call until the test releases them: their plugin.path directory
and their configs (the plugins are in `tests/blocking_plugins/blocking_connectors.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.waiting import wait_until

from conveyor.log import open_log

PLUGIN_DIR = Path(__file__).resolve().parent / "blocking_plugins"
SOURCE = "BlockingSourceConnector"
SINK = "BlockingSinkConnector"
BLOCK_MAX_MS = 240_000
"""A blocked call returns after this long even if its test never releases it."""


@dataclass(frozen=True)
class Blocker:
    """One connector's blocking call and the files that say it began and release it."""

    directory: Path
    call: str

    @property
    def release_file(self) -> Path:
        return self.directory / f"release-{self.call}"

    def config(self, connector_class: str = SOURCE, **extra: str) -> dict[str, str]:
        return {
            "connector.class": connector_class,
            "tasks.max": "1",
            "block.in": self.call,
            "release.file": str(self.release_file),
            "block.max.ms": str(BLOCK_MAX_MS),
            **extra,
        }

    def blocked(self) -> bool:
        """Whether the call has begun blocking."""
        return self.release_file.with_name(f"{self.release_file.name}.{self.call}").exists()

    def stopped(self) -> bool:
        """Whether the connector's `stop()` has run to its end."""
        return self.release_file.with_name(f"{self.release_file.name}.stopped").exists()

    def release(self) -> None:
        self.release_file.touch()


ANSWER_S = 30.0
"""A read must answer within this; a request held behind a blocked call would wait for minutes."""


def healthy_generator(topic: str, tasks: int = 1) -> dict[str, str]:
    """A connector that keeps producing for longer than any test runs."""
    return {
        "connector.class": "GeneratorSourceConnector",
        "topic": topic,
        "tasks.max": str(tasks),
        "records": "100000000",
        "rate": "20",
    }


def records_in(log_url: str, topic: str) -> int:
    """How many records the topic holds now (0 while it does not exist)."""
    with open_log(log_url) as log:
        admin = log.admin()
        if topic not in admin.list_topics():
            return 0
        partitions = admin.describe_topics([topic])[topic].topic_partitions()
        return sum(offsets.latest for offsets in admin.list_offsets(partitions).values())


def assert_serving(url: str, healthy: str, log_url: str, topic: str, tasks: int = 1) -> None:
    """The worker at `url` answers its REST API and /metrics, and the `healthy` connector runs every task
    and keeps producing to `topic`."""
    assert httpx.get(f"{url}/metrics", timeout=ANSWER_S).status_code == 200
    wait_until(
        lambda: httpx.get(f"{url}/connectors", timeout=ANSWER_S).status_code == 200,
        "GET /connectors to answer 200 (a group answers 409 while it rebalances)",
        120.0,
        every_s=0.5,
    )

    def running() -> bool:
        status = httpx.get(f"{url}/connectors/{healthy}/status", timeout=ANSWER_S).json()
        states = [task["state"] for task in status.get("tasks", [])]
        return status.get("connector", {}).get("state") == "RUNNING" and states == ["RUNNING"] * tasks

    wait_until(running, f"{healthy} and its tasks to run", 120.0, every_s=0.5)
    before = records_in(log_url, topic)
    wait_until(lambda: records_in(log_url, topic) > before, f"{healthy} to produce more", 120.0, every_s=0.5)


def failed_in(url: str, name: str, call: str) -> dict[str, Any] | None:
    """The connector's status once it is FAILED as stuck in `call`."""
    response = httpx.get(f"{url}/connectors/{name}/status", timeout=ANSWER_S)
    if response.status_code != 200:
        return None
    status: dict[str, Any] = response.json()
    connector = status["connector"]
    stuck = connector["state"] == "FAILED" and f"blocked in {call}() since" in (connector.get("trace") or "")
    return status if stuck else None


def delete(url: str, name: str) -> None:
    """DELETE the connector through the worker at `url`: a 204, and then it is gone."""
    response = httpx.delete(f"{url}/connectors/{name}", timeout=120.0)
    assert response.status_code == 204, response.text
    wait_until(
        lambda: httpx.get(f"{url}/connectors/{name}", timeout=ANSWER_S).status_code == 404,
        f"{name} to be gone",
        60.0,
        every_s=0.25,
    )


def task_blocked_in(url: str, name: str, call: str) -> bool:
    """Whether the connector's one task is RUNNING with a status that says it is blocked in `call`."""
    response = httpx.get(f"{url}/connectors/{name}/status", timeout=ANSWER_S)
    tasks = response.json().get("tasks", []) if response.status_code == 200 else []
    return [task["state"] for task in tasks] == ["RUNNING"] and (
        f"blocked in {call}() since" in (tasks[0].get("trace") or "")
    )
