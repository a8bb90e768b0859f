"""Opening the console's views and reading the worker's state the views should show."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
from playwright.sync_api import Page

import waiting


def open_view(page: Page, view: str = "connectors") -> None:
    """Load `/ui` at one view (`connectors`, `workers`, `new`, or `connectors/<name>`) and wait for data."""
    page.goto(f"/ui/#/{view}")
    page.wait_for_selector("body[data-refreshed]")


def open_connector(page: Page, name: str) -> None:
    open_view(page, f"connectors/{quote(name, safe='')}")


def status(client: httpx.Client, name: str) -> dict[str, Any]:
    response = client.get(f"/connectors/{quote(name, safe='')}/status")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_for_states(client: httpx.Client, name: str, connector: str, tasks: list[str] | None = None) -> None:
    """Wait until the REST API reports `connector` (and `tasks`, if given) for `name`, once it exists."""

    def reached() -> bool:
        response = client.get(f"/connectors/{quote(name, safe='')}/status")
        if response.status_code == 404:
            return False
        body = response.json()
        task_states = [task["state"] for task in body["tasks"]]
        return body["connector"]["state"] == connector and (tasks is None or task_states == tasks)

    waiting.wait_until(reached, f"{name} to be {connector} {tasks or ''}", timeout_s=60)
