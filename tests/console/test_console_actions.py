"""Each button of a connector's page changes the connector's state through the REST API as it says."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import httpx
from playwright.sync_api import Dialog, Page, expect
from tests.rest.connectors import create_connector, file_source_config, unique_name
from tests.worker.connectors import FAILING_SOURCE, FAILURE_MESSAGE

import waiting

from .connectors import FAILS_TO_START_ONCE, START_FAILURE_MESSAGE
from .console import open_connector, wait_for_states


def running_file_source(client: httpx.Client, tmp_path: Path) -> str:
    name = unique_name("acted")
    create_connector(client, name, file_source_config(tmp_path, topic=unique_name("acted-topic")))
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    return name


def click(page: Page, action: str) -> None:
    page.locator(f'.toolbar button[data-action="{action}"]').click()


def test_pause_button_pauses_the_connector_and_its_tasks(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = running_file_source(client, tmp_path)
    open_connector(page, name)
    click(page, "pause")
    wait_for_states(client, name, "PAUSED", ["PAUSED"])
    expect(page.locator("#connector-state")).to_have_text("PAUSED")


def test_resume_button_resumes_a_paused_connector(client: httpx.Client, page: Page, tmp_path: Path) -> None:
    name = running_file_source(client, tmp_path)
    client.put(f"/connectors/{name}/pause")
    wait_for_states(client, name, "PAUSED", ["PAUSED"])
    open_connector(page, name)
    click(page, "resume")
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    expect(page.locator("#connector-state")).to_have_text("RUNNING")


def test_restart_button_restarts_a_failed_connector(client: httpx.Client, page: Page, tmp_path: Path) -> None:
    name = unique_name("restarted")
    config = {"connector.class": FAILS_TO_START_ONCE, "start.marker": str(tmp_path / "started")}
    create_connector(client, name, config)
    wait_for_states(client, name, "FAILED")
    open_connector(page, name)
    expect(page.locator(".trace").first).to_contain_text(START_FAILURE_MESSAGE)
    click(page, "restart")
    wait_for_states(client, name, "RUNNING")
    expect(page.locator("#connector-state")).to_have_text("RUNNING")


def failed_once_source(client: httpx.Client, tmp_path: Path) -> str:
    """A source whose only task has failed once; restarted, it runs."""
    name = unique_name("failed")
    config = {
        "connector.class": FAILING_SOURCE,
        "tasks.max": "1",
        "fail.after.ms": "200",
        "fail.once.marker": str(tmp_path / "failed-once"),
    }
    create_connector(client, name, config)
    wait_for_states(client, name, "RUNNING", ["FAILED"])
    return name


def test_restart_failed_tasks_button_restarts_the_failed_tasks(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = failed_once_source(client, tmp_path)
    open_connector(page, name)
    expect(page.locator('#tasks tr[data-trace="0"]')).to_contain_text(FAILURE_MESSAGE)
    click(page, "restart-failed")
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    expect(page.locator('#tasks tr[data-task="0"] .task-state')).to_have_text("RUNNING")
    expect(page.locator('#tasks tr[data-trace="0"]')).to_have_count(0)


def test_restart_task_button_restarts_that_task(client: httpx.Client, page: Page, tmp_path: Path) -> None:
    name = failed_once_source(client, tmp_path)
    open_connector(page, name)
    page.locator('#tasks tr[data-task="0"] button[data-action="restart-task"]').click()
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    expect(page.locator('#tasks tr[data-task="0"] .task-state')).to_have_text("RUNNING")


def test_stop_button_stops_the_connector(client: httpx.Client, page: Page, tmp_path: Path) -> None:
    name = running_file_source(client, tmp_path)
    open_connector(page, name)
    click(page, "stop")
    wait_for_states(client, name, "STOPPED", [])
    expect(page.locator("#connector-state")).to_have_text("STOPPED")


def test_delete_button_deletes_the_connector_once_confirmed(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = running_file_source(client, tmp_path)
    open_connector(page, name)
    page.once("dialog", Dialog.accept)
    click(page, "delete")
    waiting.wait_until(lambda: name not in client.get("/connectors").json(), f"{name} to be deleted")
    expect(page).to_have_url("/ui/#/connectors")


def test_offsets_of_a_running_connector_show_but_cannot_be_changed(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = running_file_source(client, tmp_path)
    waiting.wait_until(lambda: offsets(client, name), f"{name}'s first offset commit")
    open_connector(page, name)
    expect(page.locator("#offsets-table")).to_contain_text('{"position":')
    expect(page.locator('button[data-action="reset-offsets"]')).to_be_disabled()
    expect(page.locator('button[data-action="alter-offsets"]')).to_be_disabled()


def offsets(client: httpx.Client, name: str) -> list[dict[str, object]]:
    response = client.get(f"/connectors/{quote(name, safe='')}/offsets")
    assert response.status_code == 200, response.text
    found: list[dict[str, object]] = response.json()["offsets"]
    return found


def stopped_with_offsets(client: httpx.Client, tmp_path: Path) -> str:
    name = running_file_source(client, tmp_path)
    waiting.wait_until(lambda: offsets(client, name), f"{name}'s first offset commit")
    client.put(f"/connectors/{name}/stop")
    wait_for_states(client, name, "STOPPED", [])
    return name


def test_reset_offsets_button_clears_a_stopped_connectors_offsets(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = stopped_with_offsets(client, tmp_path)
    open_connector(page, name)
    page.locator('button[data-action="reset-offsets"]').click()
    waiting.wait_until(lambda: offsets(client, name) == [], f"{name}'s offsets to be reset")
    expect(page.locator("#no-offsets")).to_be_visible()


def test_alter_offsets_button_writes_the_edited_offsets(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name = stopped_with_offsets(client, tmp_path)
    partition = offsets(client, name)[0]["partition"]
    open_connector(page, name)
    editor = page.locator("#offsets-editor")
    expect(editor).to_be_enabled()
    editor.fill(f'{{"offsets": [{{"partition": {json.dumps(partition)}, "offset": {{"position": 6}}}}]}}')
    page.locator('button[data-action="alter-offsets"]').click()
    waiting.wait_until(
        lambda: offsets(client, name) == [{"partition": partition, "offset": {"position": 6}}],
        f"{name}'s altered offset",
    )
    expect(page.locator("#offsets-table")).to_contain_text('{"position":6}')
