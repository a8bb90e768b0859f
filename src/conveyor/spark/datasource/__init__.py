"""The ``conveyor`` Spark data source: ``spark.read``/``readStream``/``write``/``writeStream`` over the log.

Call ``register(spark)`` once per session (again is harmless), then use ``format("conveyor")``.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from conveyor.spark.datasource.options import ConveyorOptionError
from conveyor.spark.datasource.source import ConveyorDataSource

_REGISTERED_FLAG = "conveyor.datasource.registered"


def register(spark: SparkSession) -> None:
    """Make ``format("conveyor")`` available in ``spark``; registering twice does nothing more."""
    if spark.conf.get(_REGISTERED_FLAG, "false") == "true":
        return
    spark.dataSource.register(ConveyorDataSource)
    spark.conf.set(_REGISTERED_FLAG, "true")


__all__ = ["ConveyorDataSource", "ConveyorOptionError", "register"]
