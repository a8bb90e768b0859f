"""Kafka Connect's REST API on FastAPI: `create_app` builds it over a herder, `RestServer` serves it."""

from conveyor.rest.app import create_app
from conveyor.rest.server import RestServer

__all__ = ["RestServer", "create_app"]
