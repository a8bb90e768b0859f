"""Python loggers seen and set through Kafka Connect's log4j level names (KIP-495, worker scope).

Python's levels map onto log4j's: TRACE is 5, WARN is WARNING, FATAL is CRITICAL, and OFF sits above
CRITICAL so nothing passes. `last_modified` is the epoch milliseconds of the last change made through
this object, and stays null for a logger never changed here.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ROOT_LOGGER_NAMES = ("root", "")

LEVEL_VALUES: dict[str, int] = {
    "ALL": 1,
    "TRACE": 5,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": logging.CRITICAL + 10,
}


def level_name(value: int) -> str:
    """The log4j name of a Python level: the most verbose log4j level that lets the same records through."""
    for name, threshold in sorted(LEVEL_VALUES.items(), key=lambda item: item[1]):
        if value <= threshold:
            return name
    return "OFF"


def is_valid_level(name: str) -> bool:
    return name.upper() in LEVEL_VALUES


@dataclass(frozen=True)
class LoggerLevel:
    """`{"level": ..., "last_modified": ...}` of one logger."""

    level: str
    last_modified: int | None

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "last_modified": self.last_modified}


class LoggerLevels:
    """Reads and adjusts the levels of this process's loggers; safe to call from many threads."""

    def __init__(self, clock_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000) -> None:
        self._clock_ms = clock_ms
        self._last_modified: dict[str, int] = {}
        self._lock = threading.Lock()

    def level(self, name: str) -> LoggerLevel | None:
        """The effective level of a known logger (or the root), or None if no such logger exists."""
        logger = self._known_loggers().get(_public_name(name))
        if logger is None:
            return None
        return self._level_of(_public_name(name), logger)

    def all_levels(self) -> dict[str, LoggerLevel]:
        """Every known logger whose effective level is not OFF, sorted by name."""
        levels = {name: self._level_of(name, logger) for name, logger in self._known_loggers().items()}
        return {name: level for name, level in sorted(levels.items()) if level.level != "OFF"}

    def set_level(self, namespace: str, level: str) -> list[str]:
        """Set `namespace` and every logger below it to `level`; returns the loggers that changed, sorted."""
        value = LEVEL_VALUES[level.upper()]
        namespace = _public_name(namespace)
        with self._lock:
            known = self._known_loggers()
            before = {name: self._level_of(name, logger).level for name, logger in known.items()}
            targets = self._loggers_in(namespace)
            for logger in targets.values():
                logger.setLevel(value)
            now = self._clock_ms()
            changed = sorted(
                name
                for name, logger in targets.items()
                if before.get(name) != level_name(logger.getEffectiveLevel())
            )
            for name in changed:
                self._last_modified[name] = now
        return changed

    def _loggers_in(self, namespace: str) -> dict[str, logging.Logger]:
        known = self._known_loggers()
        if namespace == "root":
            return known
        below = {name: logger for name, logger in known.items() if name.startswith(namespace + ".")}
        below[namespace] = logging.getLogger(namespace)
        return below

    def _level_of(self, name: str, logger: logging.Logger) -> LoggerLevel:
        return LoggerLevel(level_name(logger.getEffectiveLevel()), self._last_modified.get(name))

    @staticmethod
    def _known_loggers() -> dict[str, logging.Logger]:
        loggers = {
            name: logger
            for name, logger in list(logging.root.manager.loggerDict.items())
            if isinstance(logger, logging.Logger)
        }
        loggers["root"] = logging.getLogger()
        return loggers


def _public_name(name: str) -> str:
    return "root" if name.lower() in ROOT_LOGGER_NAMES else name
