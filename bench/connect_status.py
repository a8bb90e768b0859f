"""What a benchmark asks of a Connect REST API, Conveyor's or Kafka Connect's alike."""

from __future__ import annotations

import httpx


def failure_trace(url: str, name: str) -> str | None:
    """The trace of connector `name` or of one of its tasks if it failed, from the worker at `url`, so
    that a bench waiting for rows stops with the reason instead of waiting out its deadline."""
    response = httpx.get(f"{url}/connectors/{name}/status", timeout=30)
    if response.status_code != 200:
        return None
    status = response.json()
    for part in [status.get("connector", {}), *status.get("tasks", [])]:
        if part.get("state") == "FAILED":
            return str(part.get("trace", status))[:3000]
    return None
