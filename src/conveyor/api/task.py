"""The base of source and sink tasks: the units of work a connector's job is split into."""

from __future__ import annotations

import abc
from collections.abc import Mapping


class Task(abc.ABC):
    """One unit of a connector's work, started with one of the configs from ``Connector.task_configs``."""

    @abc.abstractmethod
    def version(self) -> str:
        """This task's version (usually the connector's)."""

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with this task's config."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop; for a source task this may be called from another thread while ``poll`` blocks."""
