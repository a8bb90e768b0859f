"""The ``conveyor`` Spark data source: ``spark.read``/``readStream``/``write``/``writeStream`` over the log.

Call ``register(spark)`` in the thread that uses ``format("conveyor")`` (again is harmless). The data
source itself (and pyarrow with it) is imported on first use, so that a worker that only reads this
package's offsets and options does not hold it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from conveyor.spark.datasource.options import ConveyorOptionError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from conveyor.spark.datasource.source import ConveyorDataSource

_REGISTERED_FLAG = "conveyor.datasource.registered"


def register(spark: SparkSession) -> None:
    """Make ``format("conveyor")`` available in ``spark`` to the calling thread; twice does nothing more.

    Spark looks Python data sources up in the *calling JVM thread's* active session, which a thread that
    did not create the session has not got: ``spark`` is made that thread's active session first. The
    session's own flag is not trusted alone: its data source manager is asked too, so a session that
    carries the flag without the source (its conf outlived it) registers it again.
    """
    _activate(spark)
    if spark.conf.get(_REGISTERED_FLAG, "false") == "true" and _known(spark):
        return
    from conveyor.spark.datasource.source import ConveyorDataSource

    spark.dataSource.register(ConveyorDataSource)
    spark.conf.set(_REGISTERED_FLAG, "true")


def _activate(spark: SparkSession) -> None:
    """Make ``spark`` the active session of the JVM thread that serves the calling Python thread."""
    jvm = spark._jvm
    if jvm is not None:
        jvm.SparkSession.setActiveSession(spark._jsparkSession)


def _known(spark: SparkSession) -> bool:
    """Whether the session's data source manager has ``conveyor`` (False if it cannot be asked)."""
    try:
        return bool(spark._jsparkSession.sessionState().dataSourceManager().dataSourceExists("conveyor"))
    except Exception:
        return False


def __getattr__(name: str) -> type[ConveyorDataSource]:
    if name == "ConveyorDataSource":
        from conveyor.spark.datasource.source import ConveyorDataSource

        return ConveyorDataSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ConveyorDataSource", "ConveyorOptionError", "register"]
