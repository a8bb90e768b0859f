"""TimestampRouter: route each record to a topic named after its topic and its formatted timestamp."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, Transformation
from conveyor.data import ConnectRecord, DataError
from conveyor.transforms.date_format import JavaDateFormat
from conveyor.transforms.transform_config import ConfiguredPlugin, invalid_setting

TOPIC_FORMAT_CONFIG = "topic.format"
TIMESTAMP_FORMAT_CONFIG = "timestamp.format"


class TimestampRouter(ConfiguredPlugin, Transformation[ConnectRecord]):
    """Rename the topic to ``topic.format`` with ``${topic}`` and ``${timestamp}`` filled in."""

    CONFIG_DEF = (
        ConfigDef()
        .define(TOPIC_FORMAT_CONFIG, ConfigType.STRING, default="${topic}-${timestamp}",
            importance=Importance.HIGH,
            documentation="Format string which can contain <code>${topic}</code> and "
            "<code>${timestamp}</code> as placeholders for the topic and timestamp, respectively.")
        .define(TIMESTAMP_FORMAT_CONFIG, ConfigType.STRING, default="yyyyMMdd", importance=Importance.HIGH,
            documentation="Format string for the timestamp that is compatible with "
            "<code>java.text.SimpleDateFormat</code>.")
    )  # fmt: skip

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._topic_format: str = settings[TOPIC_FORMAT_CONFIG]
        try:
            self._timestamp_format = JavaDateFormat(settings[TIMESTAMP_FORMAT_CONFIG])
        except ValueError as error:
            raise invalid_setting(
                self.owner, TIMESTAMP_FORMAT_CONFIG, settings[TIMESTAMP_FORMAT_CONFIG], str(error)
            ) from None

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.timestamp is None:
            raise DataError(f"Timestamp missing on record: {record!r}")
        formatted = self._timestamp_format.format(record.timestamp)
        topic = self._topic_format.replace("${topic}", record.topic).replace("${timestamp}", formatted)
        return record.new_record(topic=topic)
