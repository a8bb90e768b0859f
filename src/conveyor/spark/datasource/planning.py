"""What the driver learns from the log before Spark reads: partitions, their bounds, and the schema.

The schema's converters are imported only to infer it: a streaming query's planner needs the offsets
alone (see ``stream_reader``).
"""

from __future__ import annotations

from pyspark.sql.types import DataType, StructType

from conveyor.log import Admin, PartitionOffsets, TopicPartition, open_log
from conveyor.spark.datasource import offsets as offset_specs
from conveyor.spark.datasource.offsets import EARLIEST, LATEST, Offsets
from conveyor.spark.datasource.options import (
    ENDING_OFFSETS,
    STARTING_OFFSETS,
    ConveyorOptionError,
    ReadOptions,
)


def _partitions_and_bounds(
    admin: Admin, options: ReadOptions
) -> tuple[list[TopicPartition], dict[TopicPartition, PartitionOffsets]]:
    partitions = offset_specs.subscribed_partitions(admin, options.subscription)
    return partitions, admin.list_offsets(partitions)


def read_schema(options: ReadOptions) -> StructType:
    """The schema of a read: Spark's Kafka columns, with typed key/value columns under converters."""
    from conveyor.spark.datasource.columns import record_schema
    from conveyor.spark.datasource.decoding import sample_type

    key_type: DataType | None = None
    value_type: DataType | None = None
    if options.key_converter is not None or options.value_converter is not None:
        with open_log(options.log_url) as log:
            partitions = offset_specs.subscribed_partitions(log.admin(), options.subscription)
            if options.key_converter is not None:
                key_type = sample_type(log, partitions, options.key_converter, True, "key")
            if options.value_converter is not None:
                value_type = sample_type(log, partitions, options.value_converter, False, "value")
    return record_schema(options.include_headers, key_type, value_type)


def batch_bounds(options: ReadOptions) -> tuple[Offsets, Offsets]:
    """The start and end offsets of a batch read, resolved against the log now."""
    if options.ending_offsets.strip().lower() == "earliest":
        raise ConveyorOptionError(f"Option {ENDING_OFFSETS!r} cannot be earliest; use latest or JSON")
    with open_log(options.log_url) as log:
        partitions, bounds = _partitions_and_bounds(log.admin(), options)
    start = offset_specs.resolve(
        options.starting_offsets, STARTING_OFFSETS, partitions, bounds, options.isolation_level, EARLIEST
    )
    end = offset_specs.resolve(
        options.ending_offsets, ENDING_OFFSETS, partitions, bounds, options.isolation_level, LATEST
    )
    return start, end


def current_ends(admin: Admin, options: ReadOptions) -> tuple[Offsets, Offsets]:
    """The earliest offset and the readable end of every subscribed partition now (streaming)."""
    partitions, bounds = _partitions_and_bounds(admin, options)
    earliest = {tp: bounds[tp].earliest for tp in partitions}
    ends = {tp: offset_specs.end_of(bounds[tp], options.isolation_level) for tp in partitions}
    return earliest, ends


def starting_offsets(admin: Admin, options: ReadOptions) -> dict[TopicPartition, int]:
    """Where a new streaming query starts (``startingOffsets``, latest by default)."""
    partitions, bounds = _partitions_and_bounds(admin, options)
    return offset_specs.resolve(
        options.starting_offsets, STARTING_OFFSETS, partitions, bounds, options.isolation_level, EARLIEST
    )
