"""`GET /metrics` serves task counters and states in Prometheus' text format."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx

from .connectors import create_connector, file_source_config, unique_name, wait_for_status


def test_metrics_list_each_tasks_state_and_counters_with_connector_and_task_labels(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name("metered")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("metered-topic")))
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    pattern = re.compile(rf'^conveyor_task_records_written\{{connector="{name}",task="0"\}} (\d+)$', re.M)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        response = client.get("/metrics")
        match = pattern.search(response.text)
        if match and int(match.group(1)) == 3:
            break
        time.sleep(0.2)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert match is not None and int(match.group(1)) == 3
    assert f'conveyor_task_state{{connector="{name}",task="0",state="RUNNING"}} 1' in response.text
    assert f'conveyor_connector_state{{connector="{name}",state="RUNNING"}} 1' in response.text
    assert "# TYPE conveyor_task_records_written gauge" in response.text
