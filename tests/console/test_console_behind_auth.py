"""The console behind Kafka Connect's basic authentication: the browser's credentials reach every call."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, expect
from tests.security.credentials import PLAIN_USER, basic_auth_props
from tests.security.workers import running_worker

from .conftest import SCREENSHOTS, WAIT_MS

GENERATOR = {"connector.class": "GeneratorSourceConnector", "topic": "behind-auth", "tasks.max": "1"}


@pytest.fixture(scope="module")
def worker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("console-auth")
    with running_worker(folder, basic_auth_props(folder)) as worker:
        response = httpx.post(
            f"{worker.url}/connectors",
            json={"name": "guarded", "config": GENERATOR},
            auth=PLAIN_USER,
            timeout=60,
        )
        assert response.status_code == 201, response.text
        yield worker.url


def test_the_console_lists_connectors_for_a_user_with_credentials(browser: Browser, worker_url: str) -> None:
    user, password = PLAIN_USER
    context = browser.new_context(
        base_url=worker_url, http_credentials={"username": user, "password": password}
    )
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        page.goto("/ui/")
        expect(page.locator('#connectors tr[data-connector="guarded"]')).to_have_count(1)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "console_behind_basic_auth.png"), full_page=True)
    finally:
        context.close()


def test_the_console_is_refused_without_credentials(worker_url: str) -> None:
    assert httpx.get(f"{worker_url}/ui/", timeout=30).status_code == 401


def test_the_topic_browser_and_history_are_refused_without_credentials(worker_url: str) -> None:
    for path in ("/conveyor/topics", "/conveyor/history"):
        assert httpx.get(f"{worker_url}{path}", timeout=30).status_code == 401


def test_the_topic_browser_answers_a_user_with_credentials(worker_url: str) -> None:
    response = httpx.get(f"{worker_url}/conveyor/topics", auth=PLAIN_USER, timeout=30)
    assert response.status_code == 200, response.text
