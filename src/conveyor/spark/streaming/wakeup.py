"""A streaming query listener that only wakes a waiting thread, without reading Spark's events.

pyspark's own listener wrapper turns every event into Python objects before it calls the listener,
reading each field, map and source of a progress report through py4j: on a loaded machine 100-300 ms
per micro-batch, on Spark's listener thread and under the driver's interpreter lock. A query task's
watcher reads the progress from the query itself once woken, so its listener gives Spark a callback
object that sets an event and returns.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from pyspark.sql.streaming.listener import (
    QueryIdleEvent,
    QueryProgressEvent,
    QueryStartedEvent,
    QueryTerminatedEvent,
    StreamingQueryListener,
)


class WakeOnEvent:
    """What Spark's JVM calls (py4j implements its Java listener interface with it): a finished
    micro-batch or the query's end sets ``wake``; the event itself is never read."""

    def __init__(self, wake: threading.Event) -> None:
        self._wake = wake

    def onQueryStarted(self, jevent: object) -> None:
        """Nothing to report until a batch finishes."""

    def onQueryProgress(self, jevent: object) -> None:
        self._wake.set()

    def onQueryIdle(self, jevent: object) -> None:
        """Idle triggers change nothing the watcher reports."""

    def onQueryTerminated(self, jevent: object) -> None:
        self._wake.set()

    class Java:
        implements: ClassVar[list[str]] = ["org.apache.spark.sql.streaming.PythonStreamingQueryListener"]


class QueryWakeup(StreamingQueryListener):
    """Registered with ``session.streams.addListener``: wakes ``wake`` when a query of the session
    finishes a micro-batch or ends (Spark calls `WakeOnEvent`, not these methods)."""

    def __init__(self, wake: threading.Event) -> None:
        self._java_side = WakeOnEvent(wake)
        self._registered: Any = None

    @property
    def _jlistener(self) -> Any:
        """The JVM listener ``addListener`` and ``removeListener`` hand to Spark (one per listener)."""
        if self._registered is None:
            from pyspark import SparkContext

            jvm = SparkContext._jvm
            assert jvm is not None, "no SparkContext is running"
            self._registered = jvm.PythonStreamingQueryListenerWrapper(self._java_side)
        return self._registered

    def onQueryStarted(self, event: QueryStartedEvent) -> None:
        self._java_side.onQueryStarted(event)

    def onQueryProgress(self, event: QueryProgressEvent) -> None:
        self._java_side.onQueryProgress(event)

    def onQueryIdle(self, event: QueryIdleEvent) -> None:
        self._java_side.onQueryIdle(event)

    def onQueryTerminated(self, event: QueryTerminatedEvent) -> None:
        self._java_side.onQueryTerminated(event)
