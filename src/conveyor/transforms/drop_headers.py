"""DropHeaders: remove the headers with the configured names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, Transformation
from conveyor.data import ConnectRecord, Headers
from conveyor.transforms.transform_config import ConfiguredPlugin

HEADERS_CONFIG = "headers"


class DropHeaders(ConfiguredPlugin, Transformation[ConnectRecord]):
    """Remove every header whose key is listed in ``headers``."""

    CONFIG_DEF = ConfigDef().define(
        HEADERS_CONFIG,
        ConfigType.LIST,
        importance=Importance.HIGH,
        documentation="The name of the headers to be removed.",
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._names = frozenset(self.non_empty_list(settings, HEADERS_CONFIG))

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        kept = Headers(header for header in record.headers if header.key not in self._names)
        return record.new_record(headers=kept)
