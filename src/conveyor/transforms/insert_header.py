"""InsertHeader: add a header with a literal value to every record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, NonNullValidator, Transformation
from conveyor.convert.header_values import text_to_value
from conveyor.data import ConnectRecord
from conveyor.transforms.transform_config import ConfiguredPlugin

HEADER_CONFIG = "header"
VALUE_LITERAL_CONFIG = "value.literal"


class InsertHeader(ConfiguredPlugin, Transformation[ConnectRecord]):
    """Add header ``header`` with ``value.literal``, typed as Kafka's ``Values.parseString`` would type it."""

    CONFIG_DEF = (
        ConfigDef()
        .define(HEADER_CONFIG, ConfigType.STRING, validator=NonNullValidator(), importance=Importance.HIGH,
            documentation="The name of the header.")
        .define(VALUE_LITERAL_CONFIG, ConfigType.STRING, validator=NonNullValidator(),
            importance=Importance.HIGH,
            documentation="The literal value that is to be set as the header value on all records.")
    )  # fmt: skip

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._header: str = settings[HEADER_CONFIG]
        self._literal = text_to_value(settings[VALUE_LITERAL_CONFIG])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        updated = record.new_record()
        updated.headers.add(self._header, self._literal.value, self._literal.schema)
        return updated
