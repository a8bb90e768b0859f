"""Spark's memory limit of executor Python processes (`spark.executor.pyspark.memory`), set without noise.

pyspark's worker prints the limits it finds and sets to stderr at every task a process starts, which would
put two raw lines in the worker's log each time a task host starts. The daemon installs `set_quietly` in
their place before it forks workers: the same limit, and only a failure to set it is logged.
"""

from __future__ import annotations

import contextlib
import io
import logging

from pyspark import worker_util

logger = logging.getLogger(__name__)

_spark_setup = worker_util.setup_memory_limits


def set_quietly(memory_limit_mb: int) -> None:
    """Spark's `setup_memory_limits`, with what it prints kept off stderr unless it failed."""
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        _spark_setup(memory_limit_mb)
    if "Failed to set memory limit" in printed.getvalue():
        logger.warning("Could not limit this executor process's memory: %s", printed.getvalue().strip())


def install() -> None:
    """Have pyspark's worker (imported after the daemon forks) set its memory limit quietly."""
    worker_util.setup_memory_limits = set_quietly
