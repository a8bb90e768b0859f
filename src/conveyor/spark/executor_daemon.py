"""The Python daemon of the worker's Spark executors: pyspark's own, with what task hosts import loaded first.

Spark forks one Python worker from this daemon per task host. Loading the host's modules (the task
loops, the log clients, the plugin catalog with the built-in connectors: about half a second) once in
the daemon, before any fork, and freezing them out of the garbage collector's reach, lets every host
start with them in memory it shares with the daemon instead of a private copy
(`conveyor.spark.host_preload`). Only modules that start no thread at import are loaded here, so
forking after them is safe. The workers set their memory limit without printing it
(`conveyor.spark.memory_limit`).
"""

from __future__ import annotations

from pyspark.daemon import manager

import conveyor.spark.task_partition  # noqa: F401  (imported for the workers forked from here)
from conveyor.spark import host_preload, memory_limit

if __name__ == "__main__":
    memory_limit.install()
    host_preload.preload()
    host_preload.freeze()
    manager()
