"""The console is plain files in the package, served at `/ui` with no build step."""

from __future__ import annotations

import tomllib

import httpx

from conveyor.rest.console import STATIC_DIR

from .conftest import REPOSITORY


def test_ui_redirects_to_the_console_page_served_from_the_package(client: httpx.Client) -> None:
    response = client.get("/ui", follow_redirects=True)
    assert response.status_code == 200
    assert str(response.url).endswith("/ui/")
    assert "<title>Conveyor console</title>" in response.text
    script = client.get("/ui/js/main.js")
    assert script.headers["content-type"].startswith("text/javascript")


def test_every_console_file_is_package_data_so_an_installed_worker_serves_it() -> None:
    package = REPOSITORY / "src" / "conveyor"
    settings = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = {path for pattern in settings["package-data"]["conveyor"] for path in package.glob(pattern)}
    console_files = {path for path in STATIC_DIR.rglob("*") if path.is_file()}
    assert console_files - shipped == set()
