"""Kafka Connect's REST API on FastAPI: `create_app` builds it over a herder, `RestServer` serves it.

Both are imported on first use, so that reading a submodule (the REST extensions Conveyor ships, listed
among the plugins by every process that loads a converter) does not import FastAPI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conveyor.rest.app import create_app
    from conveyor.rest.server import RestServer

__all__ = ["RestServer", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from conveyor.rest.app import create_app

        return create_app
    if name == "RestServer":
        from conveyor.rest.server import RestServer

        return RestServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
