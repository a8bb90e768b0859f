"""What listing the plugins imports: an executor that loads a converter lists them, and must not pay for
the REST application (FastAPI and pydantic) to do so."""

from __future__ import annotations

import subprocess
import sys


def test_listing_every_plugin_imports_no_fastapi() -> None:
    script = (
        "import sys; from conveyor.plugins import list_plugins; list_plugins(); "
        "print('fastapi' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_rest_package_still_offers_the_app_and_the_server() -> None:
    script = (
        "from conveyor.rest import RestServer, create_app; print(RestServer.__name__, create_app.__name__)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "RestServer create_app"
