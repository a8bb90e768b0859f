"""Connectors for the REST tests: unique names, file-source configs, and waiting for a state."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from conveyor.api import ConfigDef, ConfigType, Importance, SourceConnector, SourceTask

SOURCE_CLASS = "FileStreamSource"
WAIT_S = 60.0


def unique_name(prefix: str = "lines") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def file_source_config(directory: Path, topic: str = "lines") -> dict[str, str]:
    """A FileStreamSource reading a small file of its own in `directory`."""
    source = directory / f"{uuid.uuid4().hex}.txt"
    source.write_text("first\nsecond\nthird\n")
    return {"connector.class": SOURCE_CLASS, "file": str(source), "topic": topic, "tasks.max": "1"}


def create_connector(client: httpx.Client, name: str, config: dict[str, str], **extra: Any) -> dict[str, Any]:
    response = client.post("/connectors", json={"name": name, "config": config, **extra})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_for_status(
    client: httpx.Client, name: str, connector_state: str, task_states: list[str] | None = None
) -> dict[str, Any]:
    """Poll the connector's status until it shows `connector_state` (and `task_states`, if given)."""
    deadline = time.monotonic() + WAIT_S
    last: Any = None
    while time.monotonic() < deadline:
        response = client.get(f"/connectors/{name}/status")
        if response.status_code == 200:
            last = response.json()
            tasks = [task["state"] for task in last["tasks"]]
            if last["connector"]["state"] == connector_state and task_states in (None, tasks):
                return dict(last)
        time.sleep(0.2)
    raise AssertionError(f"{name} never reached {connector_state} {task_states}; last status {last}")


TOKEN_SOURCE = "tests.rest.connectors:TokenSourceConnector"


class TokenSourceConnector(SourceConnector):
    """A source whose secrets are PASSWORD keys named neither "password" nor "secret"; plans no task."""

    CONFIG = (
        ConfigDef()
        .define("topic", ConfigType.STRING, importance=Importance.HIGH)
        .define("api.token", ConfigType.PASSWORD, importance=Importance.HIGH)
        .define("aws.secret.access.key", ConfigType.PASSWORD, default=None, importance=Importance.HIGH)
    )

    def version(self) -> str:
        return "1.0"

    def config(self) -> ConfigDef:
        return self.CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        self.CONFIG.parse(props)

    def task_class(self) -> type[SourceTask]:
        return SourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        pass
