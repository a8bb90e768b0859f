"""The Python daemon of the worker's Spark executors: pyspark's own, with the task host imported first.

Spark forks one Python worker from this daemon per task host. Importing the host's modules (the task
loops, the log clients, the built-in connectors: about half a second) once in the daemon, before any
fork, lets every host start with them in memory instead of importing them again. Only modules that
start no thread at import are loaded here, so forking after them is safe. The workers set their memory
limit without printing it (`conveyor.spark.memory_limit`).
"""

from __future__ import annotations

from pyspark.daemon import manager

import conveyor.spark.task_partition  # noqa: F401  (imported for the workers forked from here)
from conveyor.spark import memory_limit

if __name__ == "__main__":
    memory_limit.install()
    manager()
