"""DropHeaders: remove the headers with the configured names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Transformation
from conveyor.data import ConnectRecord, Headers
from conveyor.transforms.transform_config import invalid_setting, parse_settings

HEADERS_CONFIG = "headers"

CONFIG_DEF = ConfigDef().define(
    HEADERS_CONFIG,
    ConfigType.LIST,
    NO_DEFAULT,
    importance=Importance.HIGH,
    documentation="The name of the headers to be removed.",
)


class DropHeaders(Transformation[ConnectRecord]):
    """Remove every header whose key is listed in ``headers``."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        owner = type(self).__name__
        settings = parse_settings(owner, CONFIG_DEF, configs)
        names: list[str] = settings[HEADERS_CONFIG]
        if not names:
            raise invalid_setting(owner, HEADERS_CONFIG, names, "Empty list")
        self._names = frozenset(names)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        pass

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        kept = Headers(header for header in record.headers if header.key not in self._names)
        return record.new_record(headers=kept)
