"""Tasks that are Spark Structured Streaming queries: their runner, progress, and transform chains.

A task class with a ``STREAMING_QUERY`` attribute (``module:function`` of a :data:`QueryBuilder`) is
run by :class:`QueryTaskRunner` on the driver instead of as a task loop on a Spark executor.
"""

from conveyor.spark.streaming.query_tasks import (
    STREAMING_QUERY_ATTRIBUTE,
    QueryBuilder,
    QueryTaskRunner,
    is_query_task,
    query_builder_of,
)

__all__ = [
    "STREAMING_QUERY_ATTRIBUTE",
    "QueryBuilder",
    "QueryTaskRunner",
    "is_query_task",
    "query_builder_of",
]
