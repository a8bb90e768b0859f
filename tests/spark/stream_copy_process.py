"""A streaming query in its own process, copying one conveyor topic to another with a checkpoint.

Run as ``python stream_copy_process.py LOG_URL CHECKPOINT INPUT OUTPUT MAX_RECORDS``; it streams until
it has caught up with the input, then stops and prints ``caught-up``. The kill test kills it with
SIGKILL part-way and runs it again.
"""

from __future__ import annotations

import sys

from conveyor.spark.datasource import register
from conveyor.spark.session import get_or_create_session


def main(log_url: str, checkpoint: str, source: str, target: str, max_records: str) -> None:
    spark = get_or_create_session("local[2]", app_name="conveyor-stream-copy")
    register(spark)
    query = (
        spark.readStream.format("conveyor")
        .option("log.url", log_url)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .option("maxRecordsPerTrigger", max_records)
        .load()
        .select("key", "value")
        .writeStream.format("conveyor")
        .option("log.url", log_url)
        .option("topic", target)
        .option("checkpointLocation", checkpoint)
        .start()
    )
    query.processAllAvailable()
    query.stop()
    print("caught-up", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:6])
