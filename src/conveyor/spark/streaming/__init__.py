"""Tasks that are Spark Structured Streaming queries: their runner, progress, and transform chains.

A task class with a ``STREAMING_QUERY`` attribute (``module:function`` of a :data:`QueryBuilder`) is
run by :class:`StreamingQueryRunner` on the driver instead of as a task loop on an executor.
"""

from conveyor.spark.streaming.runner import (
    STREAMING_QUERY_ATTRIBUTE,
    QueryBuilder,
    StreamingQueryRunner,
    query_builder_of,
)

__all__ = ["STREAMING_QUERY_ATTRIBUTE", "QueryBuilder", "StreamingQueryRunner", "query_builder_of"]
