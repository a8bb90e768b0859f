"""The web console at `/ui`: HTML, CSS and ES modules shipped in the package, calling the public REST API.

Nothing is built or fetched at install or run time: the browser loads the files as they are.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

CONSOLE_PATH = "/ui"
STATIC_DIR = Path(__file__).parent / "static"


def install_console(app: FastAPI) -> None:
    """Serve the console's files under `/ui/`; `/ui` itself redirects there so relative URLs resolve."""

    @app.get(CONSOLE_PATH, include_in_schema=False)
    def console_root() -> RedirectResponse:
        return RedirectResponse("ui/", status_code=308)

    app.mount(CONSOLE_PATH, StaticFiles(directory=STATIC_DIR, html=True), name="console")
