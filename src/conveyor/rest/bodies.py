"""The JSON request bodies the REST API accepts, with Kafka Connect's leniency about config values.

Kafka Connect reads configs as `Map<String, String>` through Jackson, which turns JSON numbers and
booleans into their text; Conveyor does the same, so `"tasks.max": 1` is accepted as `"1"`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator


def _scalar_as_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


ConfigValue = Annotated[str, BeforeValidator(_scalar_as_text)]
ConnectorConfig = dict[str, ConfigValue]
ConfigPatch = dict[str, ConfigValue | None]


def _upper_case(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


class InitialState(StrEnum):
    """KIP-980's `initial_state` of a new connector; matched in any case, as Kafka does."""

    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class OffsetEntry(BaseModel):
    """One partition and the offset to give it; a null offset resets that partition."""

    partition: dict[str, Any] | None = None
    offset: dict[str, Any] | None = None


class ConnectorOffsetsRequest(BaseModel):
    """`PATCH /connectors/{c}/offsets`."""

    offsets: list[OffsetEntry] | None = None


def _offsets_list(value: Any) -> Any:
    """``initial_offsets`` as the PATCH body (``{"offsets": [...]}``) or as its list alone."""
    return value.get("offsets") if isinstance(value, dict) else value


class CreateConnectorRequest(BaseModel):
    """`POST /connectors`: a name, a config, and optionally the state the connector starts in and the
    offsets it starts from (KIP-995)."""

    name: str | None = None
    config: ConnectorConfig | None = None
    initial_state: Annotated[InitialState | None, BeforeValidator(_upper_case)] = None
    initial_offsets: Annotated[list[OffsetEntry] | None, BeforeValidator(_offsets_list)] = None


class LoggerLevelRequest(BaseModel):
    """`PUT /admin/loggers/{name}`: the log4j level name to set."""

    level: str | None = None
