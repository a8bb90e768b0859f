"""Checks Kafka Connect's REST layer makes on a connector config before handing it to the herder."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from conveyor.errors import BadRequestError

NAME_CONFIG = "name"
CONNECTOR_CLASS_CONFIG = "connector.class"


def with_connector_name(name: str, config: Mapping[str, str]) -> dict[str, str]:
    """The config with `name` set to the connector's name; a different `name` already in it is a 400."""
    included = config.get(NAME_CONFIG)
    if included is not None and included != name:
        raise BadRequestError(
            f"Connector name configuration ({included}) doesn't match connector name in the URL ({name})"
        )
    return {**config, NAME_CONFIG: name}


def require_connector_class(config: Mapping[str, str]) -> None:
    """A config without `connector.class` names no plugin to run: a 400, before the herder sees it."""
    if not config.get(CONNECTOR_CLASS_CONFIG):
        raise BadRequestError(
            f"Connector config contains no connector type: '{CONNECTOR_CLASS_CONFIG}' is missing"
        )


def connector_location(base_url: str, name: str) -> str:
    """The `Location` of a created connector: an absolute URL, as JAX-RS resolves Kafka's relative one."""
    return f"{base_url.rstrip('/')}/connectors/{quote(name, safe='')}"
