"""A read task builds its Arrow columns without pandas.

pyarrow imports pandas at the first ``pa.array`` or ``pa.scalar`` made of Python values. Every new Python
worker would pay that import (a fraction of a second, tens of megabytes) in its first micro-batch.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conveyor.convert.json_converter import JsonConverter
from conveyor.data import OPTIONAL_STRING_SCHEMA, Schema, SchemaBuilder, Struct, Type
from conveyor.log import open_log

ORDER = SchemaBuilder.struct().field("id", Schema(Type.INT64)).field("status", OPTIONAL_STRING_SCHEMA).build()

READ_A_RANGE = """
import sys
from conveyor.spark.datasource.options import parse_read_options
from conveyor.spark.datasource.planning import read_schema
from conveyor.spark.datasource.range_reader import RangeReader
from conveyor.spark.datasource.ranges import OffsetRange

options = parse_read_options({{
    "log.url": {log_url!r}, "subscribe": "orders", "includeHeaders": "true",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}}, streaming=True)
batches = list(RangeReader(options, read_schema(options)).read(OffsetRange("orders", 0, 0, 3)))
assert sum(batch.num_rows for batch in batches) == 3
assert batches[0].column("value").to_pylist()[2] == {{"id": 2, "status": "NEW"}}
assert batches[0].column("key").null_count == 3
print("pandas" in sys.modules)
"""


def test_reading_json_envelopes_without_keys_or_headers_does_not_import_pandas(tmp_path: Path) -> None:
    log_url = f"embedded:{tmp_path / 'log'}"
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    orders = [Struct.unchecked(ORDER, [i, "NEW"]) for i in range(3)]
    with open_log(log_url) as log:
        log.admin().create_topic("orders", partitions=1)
        with log.producer() as producer:
            producer.send_batch("orders", converter.from_connect_batch("orders", ORDER, orders), partition=0)
    printed = subprocess.run(
        [sys.executable, "-c", READ_A_RANGE.format(log_url=log_url)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.strip()
    assert printed == "False"
