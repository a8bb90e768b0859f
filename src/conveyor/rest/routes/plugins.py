"""The connector plugins this worker can run, their config definitions, and config validation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query

from conveyor.errors import BadRequestError
from conveyor.herder.api import Herder
from conveyor.rest.bodies import ConnectorConfig
from conveyor.rest.connector_configs import CONNECTOR_CLASS_CONFIG, require_connector_class
from conveyor.rest.openapi import BODY_ERRORS, PluginInfoBody, body, errors
from conveyor.rest.query import query_bool

TAG = "connector-plugins"
ALIAS_SUFFIX = "Connector"


def plugins_router(herder: Herder) -> APIRouter:
    router = APIRouter(prefix="/connector-plugins", tags=[TAG], responses=errors(500))

    @router.get(
        "",
        summary="The plugins on this worker; all kinds with connectorsOnly=false",
        response_model=None,
        responses=body(list[PluginInfoBody], 200),
    )
    def list_plugins(
        connectors_only: Annotated[str | None, Query(alias="connectorsOnly")] = None,
    ) -> list[dict[str, Any]]:
        plugins = herder.plugins(connectors_only=query_bool(connectors_only, default=True))
        return [plugin.to_json() for plugin in plugins]

    @router.get(
        "/{plugin:segment}/config",
        summary="The config keys a plugin of any kind accepts; ?version= picks one of its versions",
        responses=errors(400, 404),
    )
    def plugin_config(plugin: str, version: str | None = None) -> list[dict[str, Any]]:
        return herder.plugin_config(plugin, version)

    @router.put(
        "/{plugin:segment}/config/validate",
        summary="Validate a connector config; always 200, with error_count and each value's errors",
        responses=errors(*BODY_ERRORS, 404),
    )
    def validate_config(plugin: str, config: Annotated[ConnectorConfig, Body()]) -> dict[str, Any]:
        require_connector_class(config)
        included = config[CONNECTOR_CLASS_CONFIG]
        if not plugin_names_match(included, plugin):
            raise BadRequestError(f"Included connector type {included} does not match request type {plugin}")
        return herder.validate_connector_config(config)

    return router


def plugin_names_match(connector_class: str, requested: str) -> bool:
    """Kafka's rule: the class, less a "Connector" suffix, must end with the requested name, less one too."""
    return _without_alias_suffix(connector_class).endswith(_without_alias_suffix(requested))


def _without_alias_suffix(name: str) -> str:
    if name.endswith(ALIAS_SUFFIX) and len(name) > len(ALIAS_SUFFIX):
        return name[: -len(ALIAS_SUFFIX)]
    return name
