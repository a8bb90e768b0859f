"""What the executors' Python daemon loads before it forks task hosts, so that hosts share it.

A forked host shares the daemon's memory until it writes to it. Each module a host imports after the
fork costs it megabytes of private memory (the import machinery and the module tables it updates),
and a garbage collection over the daemon's objects copies nearly all of them. So the daemon imports
everything a task host imports (pyspark's worker, both log backends, the plugin catalog with every
built-in connector, converter and transformation) and then freezes its objects out of the collector's
reach. None of these modules starts a thread at import, which keeps forking safe.
"""

from __future__ import annotations

import gc
import importlib

HOST_MODULES = (
    "pyspark.worker",
    "conveyor.spark.task_partition",
    "conveyor.log.kafka",
    "conveyor.log.embedded",
    "encodings.idna",
)
"""Modules every task host imports on its way to its first task (`encodings.idna` for its control
connection's host name)."""


def preload() -> None:
    """Import what task hosts import and build the plugin catalog they resolve classes with."""
    for module in HOST_MODULES:
        importlib.import_module(module)
    from conveyor.plugins import list_plugins

    list_plugins()


def freeze() -> None:
    """Collect once, then move every object the daemon holds out of the collector's reach: a host's
    collections then never write to (and so copy) the pages it shares with the daemon."""
    gc.collect()
    gc.freeze()
