"""Structured logs: every line carries the connector and task it concerns, when there is one."""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import time

from conveyor.log_lines import EscapeControlCharacters

connector_context: contextvars.ContextVar[str | None] = contextvars.ContextVar("connector", default=None)

_TASK_NAME = re.compile(r"(?:spark-job|reconfigure|conveyor-control)-(?P<connector>.+?)(?:-(?P<task>\d+))?$")


class ContextFilter(logging.Filter):
    """Adds `connector` and `task` to each record, from the thread that logged it."""

    def filter(self, record: logging.LogRecord) -> bool:
        connector, task = getattr(record, "connector", None), getattr(record, "task", None)
        if connector is None:
            match = _TASK_NAME.match(record.threadName or "")
            if match:
                connector, task = match.group("connector"), match.group("task")
        record.connector = connector or connector_context.get() or "-"
        record.task = task if task is not None else "-"
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        body = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "connector": getattr(record, "connector", "-"),
            "task": getattr(record, "task", "-"),
            "message": record.getMessage(),
        }
        if record.exc_info:
            body["exception"] = self.formatException(record.exc_info)
        return json.dumps(body)


def configure_logging(level: str = "INFO", json_lines: bool | None = None) -> None:
    """Log to stderr, as JSON lines when `CONVEYOR_LOG_FORMAT=json` (or `json_lines`), else as text."""
    if json_lines is None:
        json_lines = os.environ.get("CONVEYOR_LOG_FORMAT", "").lower() == "json"
    handler = logging.StreamHandler()
    handler.addFilter(ContextFilter())
    handler.addFilter(EscapeControlCharacters())
    if json_lines:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter(
                "[%(asctime)s] %(levelname)s [%(connector)s|task-%(task)s] %(message)s (%(name)s)"
            )
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("py4j", "uvicorn.access", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
