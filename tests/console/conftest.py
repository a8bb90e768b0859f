"""The web console in a real browser: Debian's Chromium, driven by Playwright, against a real worker.

One browser and one worker serve the whole session; each test gets a fresh page, leaves a screenshot
under `build/screenshots/`, and has its connectors deleted after it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

REPOSITORY = Path(__file__).resolve().parents[2]
# The failing test source is named `tests.worker.connectors:...`, for this process and the executors.
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

from tests.rest.serving import serving  # noqa: E402
from tests.rest.workers import unstarted_herder  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = REPOSITORY / "build" / "screenshots"
WAIT_MS = 60_000

# Conditions on a page are awaited, never timed: a busy machine only makes the wait longer.
expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Debian's headless Chromium (`make test` installs it); Playwright's own browsers are never fetched."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    launched = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=["--disable-dev-shm-usage"]
    )
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A REST client of one real standalone worker; failed tasks stay failed until a test restarts them."""
    data_dir = tmp_path_factory.mktemp("console-worker")
    with unstarted_herder(data_dir, **{"task.restart.enable": "false"}) as herder:
        herder.start()
        try:
            with serving(herder) as client:
                yield client
        finally:
            herder.stop()


@pytest.fixture
def client(served: httpx.Client) -> Iterator[httpx.Client]:
    """The worker's REST client; the connectors a test creates are deleted after it."""
    yield served
    for name in served.get("/connectors").json():
        served.delete(f"/connectors/{quote(name, safe='')}")


@pytest.fixture
def page(browser: Browser, client: httpx.Client, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page whose relative URLs go to the worker; a screenshot of it is kept after the test."""
    context = browser.new_context(base_url=str(client.base_url), viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    opened.screenshot(path=str(SCREENSHOTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert errors == [], f"the console raised in the browser: {errors}"
