"""The settings of the file stream connectors, with Kafka's names and defaults."""

from __future__ import annotations

from conveyor.api import ConfigDef, ConfigType, Importance, Range
from conveyor.connectors.source_keys import topic_key

FILE_CONFIG = "file"
TASK_BATCH_SIZE_CONFIG = "batch.size"
DEFAULT_TASK_BATCH_SIZE = 2000

FILENAME_FIELD = "filename"
POSITION_FIELD = "position"

SOURCE_CONFIG_DEF = (
    ConfigDef()
    .define(FILE_CONFIG, ConfigType.STRING, default=None, importance=Importance.HIGH,
        documentation="Source filename. If not specified, the standard input will be used")
    .define_key(topic_key("The topic to publish data to"))
    .define(TASK_BATCH_SIZE_CONFIG, ConfigType.INT, default=DEFAULT_TASK_BATCH_SIZE,
        validator=Range.at_least(1), importance=Importance.LOW,
        documentation="The maximum number of records the source task can read from the file at one time")
)  # fmt: skip

SINK_CONFIG_DEF = ConfigDef().define(
    FILE_CONFIG,
    ConfigType.STRING,
    default=None,
    importance=Importance.HIGH,
    documentation="Destination filename. If not specified, the standard output will be used",
)


def reads_a_file(filename: str | None) -> bool:
    """Whether the source reads a real file (offsets tracked) rather than the standard input."""
    return bool(filename)
