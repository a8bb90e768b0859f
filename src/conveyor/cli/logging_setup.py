"""Structured logs: every line carries the connector and task it concerns, when there is one."""

from __future__ import annotations

import logging

from conveyor.log_format import json_lines_wanted, worker_log_handler


def configure_logging(level: str = "INFO", json_lines: bool | None = None) -> None:
    """Log to stderr, as JSON lines when `CONVEYOR_LOG_FORMAT=json` (or `json_lines`), else as text."""
    if json_lines is None:
        json_lines = json_lines_wanted()
    root = logging.getLogger()
    root.handlers[:] = [worker_log_handler(json_lines)]
    root.setLevel(level)
    for noisy in ("py4j", "uvicorn.access", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
