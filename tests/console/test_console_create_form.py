"""The form that creates a connector from its plugin's config definition, validated before it submits."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.sync_api import Locator, Page, expect
from tests.rest.connectors import unique_name

from .console import open_view, wait_for_states

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


def choose_file_source(page: Page) -> None:
    open_view(page, "new")
    page.select_option("#plugin", FILE_SOURCE)
    expect(page.locator('.field[data-key="file"] input')).to_be_visible()


def field(page: Page, key: str) -> Locator:
    return page.locator(f'.field[data-key="{key}"]')


def test_form_has_a_field_for_each_key_of_the_plugins_config_definition(
    client: httpx.Client, page: Page
) -> None:
    definition = client.get(f"/connector-plugins/{FILE_SOURCE}/config").json()
    choose_file_source(page)
    for key in definition:
        expect(field(page, key["name"]).locator("input, select")).to_have_count(1)
    expect(field(page, "name").locator("input")).to_have_count(1)


def test_a_bad_config_shows_each_error_beside_its_field_and_creates_nothing(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    choose_file_source(page)
    field(page, "name").locator("input").fill(unique_name("invalid"))
    field(page, "file").locator("input").fill(str(tmp_path / "input.txt"))
    field(page, "tasks.max").locator("input").fill("many")
    page.locator('button[data-action="create"]').click()
    missing_topic = 'Missing required configuration "topic"'
    expect(field(page, "topic").locator(".field-errors")).to_contain_text(missing_topic)
    expect(field(page, "tasks.max").locator(".field-errors")).to_contain_text("Invalid value many")
    expect(field(page, "file").locator(".field-errors li")).to_have_count(0)
    expect(page.locator("#validation")).to_contain_text("see the fields marked in red")
    assert client.get("/connectors").json() == []


def test_an_error_in_a_key_outside_the_plugins_definition_gets_a_field_of_its_own(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    choose_file_source(page)
    field(page, "name").locator("input").fill(unique_name("intolerant"))
    field(page, "topic").locator("input").fill("lines")
    page.locator("#field-extra").fill("errors.tolerance=sometimes")
    page.locator('button[data-action="validate"]').click()
    expect(field(page, "errors.tolerance").locator(".field-errors")).to_contain_text("sometimes")
    assert client.get("/connectors").json() == []


def test_a_valid_config_creates_the_connector_and_opens_its_page(
    client: httpx.Client, page: Page, tmp_path: Path
) -> None:
    name, source = unique_name("formed"), tmp_path / "input.txt"
    source.write_text("one\ntwo\n")
    choose_file_source(page)
    field(page, "name").locator("input").fill(name)
    field(page, "file").locator("input").fill(str(source))
    field(page, "topic").locator("input").fill(unique_name("formed-topic"))
    page.locator('button[data-action="create"]').click()
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    assert client.get(f"/connectors/{name}/config").json()["file"] == str(source)
    expect(page.locator("#connector-state")).to_have_text("RUNNING")
