"""The worker's log format, shared by the worker and its executors' task hosts.

Every line carries the context Kafka Connect's MDC gives (`connector.context`): `[connector|task-N] ` on
a task's lines, `[connector|worker] ` on a connector's, nothing on the worker's own. The context comes
from the record (`extra={"connector": ..., "task": ...}`) or from the name of the thread that logged it.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time

from conveyor.log_lines import EscapeControlCharacters

TEXT_FORMAT = "[%(asctime)s] %(levelname)s %(context)s%(message)s (%(name)s)"
"""Kafka Connect's `[%d] %p %X{connector.context}%m (%c)`, with Python's level names."""

_THREAD_CONTEXT = re.compile(
    r"(?:spark-job|reconfigure|conveyor-control|conveyor-task)-(?P<connector>.+?)(?:-(?P<task>\d+))?$"
)


def connector_context(connector: str | None, task: str | None) -> str:
    """Kafka Connect's `connector.context`: `[c|task-N] `, `[c|worker] `, or empty on worker lines."""
    if not connector:
        return ""
    return f"[{connector}|task-{task}] " if task is not None else f"[{connector}|worker] "


class ContextFilter(logging.Filter):
    """Adds `connector`, `task` (None when the line is not about one) and `context` to each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        connector, task = getattr(record, "connector", None), getattr(record, "task", None)
        if connector is None:
            match = _THREAD_CONTEXT.match(record.threadName or "")
            if match:
                connector, task = match.group("connector"), match.group("task")
        record.connector = connector
        record.task = None if task is None else str(task)
        return True


class _Context(logging.Filter):
    """Renders the context once the record's fields are escaped."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.context = connector_context(getattr(record, "connector", None), getattr(record, "task", None))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, connector and task (null on worker lines), message."""

    def format(self, record: logging.LogRecord) -> str:
        body = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "connector": getattr(record, "connector", None),
            "task": getattr(record, "task", None),
            "message": record.getMessage(),
        }
        if record.exc_info:
            body["exception"] = self.formatException(record.exc_info)
        return json.dumps(body)


def worker_log_handler(json_lines: bool) -> logging.Handler:
    """A stderr handler writing the worker's format: JSON lines, or Kafka Connect's text layout."""
    handler = logging.StreamHandler()
    handler.addFilter(ContextFilter())
    handler.addFilter(EscapeControlCharacters())
    handler.addFilter(_Context())
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(TEXT_FORMAT))
    return handler


def json_lines_wanted() -> bool:
    """Whether the worker logs JSON lines: `CONVEYOR_LOG_FORMAT=json` (executors on the worker's machine
    inherit it)."""
    return os.environ.get("CONVEYOR_LOG_FORMAT", "").lower() == "json"


def use_worker_log_format(level: str) -> None:
    """Log in the worker's format at `level`, unless this process has set up its logging already."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(worker_log_handler(json_lines_wanted()))
        root.setLevel(level)
