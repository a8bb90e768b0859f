"""The ``conveyor`` data source, found by Spark on its own: ``spark.read.format("conveyor")`` just works.

Spark (4.0 and later) looks at the first use of a Python data source for installed top-level modules named
``pyspark_*`` and registers the ``DefaultSource`` each one exposes, under its ``name()``.
"""

from conveyor.spark.datasource.source import ConveyorDataSource as DefaultSource

__all__ = ["DefaultSource"]
