"""The process that plans a streaming query's micro-batches loads only what planning needs.

Spark starts that process anew for every query it starts, and a connector's first record waits for it:
it plans from the log's offsets alone, so converters, the plugin catalog and error handling (which the
read tasks need) stay out of it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conveyor.log import open_log

PLAN_A_MICRO_BATCH = """
import sys
from pyspark.sql.streaming.datasource import ReadAllAvailable
from pyspark.sql.types import StructType
from conveyor.spark.datasource.source import ConveyorDataSource

options = {{
    "log.url": {log_url!r}, "subscribe": "orders", "startingOffsets": "earliest", "includeHeaders": "true",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter", "name": "orders-sink",
}}
reader = ConveyorDataSource(options).streamReader(StructType())
start = reader.initialOffset()
end = reader.latestOffset(start, ReadAllAvailable())
assert len(reader.partitions(start, end)) == 2, end
reader.stop()
print(sorted(m for m in {modules!r} if m in sys.modules))
"""

PLANNING_NEEDS_NONE_OF = (
    "conveyor.plugins",
    "conveyor.convert",
    "conveyor.pipeline.error_handling",
    "conveyor.spark.datasource.decoding",
    "conveyor.spark.datasource.range_reader",
    "pyarrow.compute",
)


def test_planning_a_streams_micro_batches_loads_no_converter_plugin_or_error_handler(tmp_path: Path) -> None:
    log_url = f"embedded:{tmp_path / 'log'}"
    with open_log(log_url) as log:
        log.admin().create_topic("orders", partitions=2)
        with log.producer() as producer:
            for partition in range(2):
                producer.send_batch("orders", [b'{"id":1}'], partition=partition)
    script = PLAN_A_MICRO_BATCH.format(log_url=log_url, modules=PLANNING_NEEDS_NONE_OF)
    printed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert printed == "[]"
