"""Records the converters cannot decode, under Kafka Connect's ``errors.*`` settings.

With ``errors.tolerance=none`` (the default) such a record fails the read, as it fails a sink task.
With ``all`` it is left out of the result, logged with ``errors.log.enable``, and copied as stored to
the topic ``errors.deadletterqueue.topic.name`` when one is given (with the ``__connect.errors.*``
headers under ``errors.deadletterqueue.context.headers.enable``). A Spark task that is retried reads
its range again, so a record may reach the dead letter queue more than once, as in Kafka Connect.
"""

from __future__ import annotations

from functools import partial

from conveyor.log import RecordBatch
from conveyor.pipeline.error_handling import ErrorHandler, FailedRecord, Stage
from conveyor.spark.datasource.decoding import ColumnDecoder


def decodable(
    batch: RecordBatch, keys: ColumnDecoder | None, values: ColumnDecoder | None, errors: ErrorHandler
) -> RecordBatch:
    """``batch`` without the records whose key or value cannot be decoded, each reported to ``errors``
    (which raises when its settings do not tolerate them)."""
    kept = [i for i in range(len(batch)) if _decodes(batch, i, keys, values, errors)]
    return RecordBatch(
        topic=batch.topic,
        partition=batch.partition,
        offsets=[batch.offsets[i] for i in kept],
        keys=[batch.keys[i] for i in kept],
        values=[batch.values[i] for i in kept],
        headers=[batch.headers[i] for i in kept],
        timestamps=[batch.timestamps[i] for i in kept],
        next_offset=batch.next_offset,
    )


def _decodes(
    batch: RecordBatch,
    index: int,
    keys: ColumnDecoder | None,
    values: ColumnDecoder | None,
    errors: ErrorHandler,
) -> bool:
    failed = partial(
        FailedRecord,
        batch.keys[index],
        batch.values[index],
        batch.topic,
        batch.partition,
        batch.offsets[index],
        f"record {batch.topic}-{batch.partition}@{batch.offsets[index]}",
    )
    for decoder, data, stage in (
        (keys, batch.keys, Stage.KEY_CONVERTER),
        (values, batch.values, Stage.VALUE_CONVERTER),
    ):
        if decoder is not None:
            decode = partial(decoder.decode, batch.topic, [data[index]])
            if errors.execute(stage, decode, failed) is None:
                return False
    return True
