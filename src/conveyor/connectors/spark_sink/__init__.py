"""Spark sink connectors: a connector whose task is a Spark Structured Streaming query.

Importing this package does not import or start Spark; the query is built by ``conveyor.spark``.
"""

from conveyor.connectors.spark_sink.config import SPARK_FILE_SINK_CONFIG_DEF, SparkFileSinkSettings
from conveyor.connectors.spark_sink.connector import SparkFileSinkConnector
from conveyor.connectors.spark_sink.task import SparkStreamingSinkTask

__all__ = [
    "SPARK_FILE_SINK_CONFIG_DEF",
    "SparkFileSinkConnector",
    "SparkFileSinkSettings",
    "SparkStreamingSinkTask",
]
