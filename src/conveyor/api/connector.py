"""Connectors: the classes that configure a job and split it into task configurations.

Where a connector runs: in the worker process (the Spark driver), never on an executor. The
herder calls a running instance's methods one at a time, from its own threads (a REST request's,
or the one that follows task reconfiguration requests): a connector needs no locks unless it
starts threads of its own. Those calls hold up the herder, so they should return within seconds.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conveyor.api.config import ConfigDef, ConfigValue
from conveyor.api.context import HasContext
from conveyor.api.plugin_metrics import PluginMetricsHolder

if TYPE_CHECKING:
    from conveyor.api.source import OffsetStorageReader
    from conveyor.api.task import Task
    from conveyor.positions import TopicPartition


class ExactlyOnceSupport(enum.Enum):
    """Whether a source connector can deliver exactly once with a given config (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(enum.Enum):
    """Whether a source connector can define its own transaction boundaries (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorContext(PluginMetricsHolder, abc.ABC):
    """What the runtime offers a running connector; callable from any thread, including its own."""

    @abc.abstractmethod
    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call ``task_configs`` again, e.g. because the source's tables changed.

        Returns at once; the herder calls ``task_configs`` later on a thread of its own, and
        restarts the tasks only if the configs changed.
        """

    @abc.abstractmethod
    def raise_error(self, error: Exception) -> None:
        """Report an error from a background thread; the connector is marked FAILED with its trace.

        Its tasks keep running, and no method of the connector is called because of it.
        """


class SourceConnectorContext(ConnectorContext):
    """A source connector's context: it can also read the offsets its tasks committed.

    Declared for Kafka's API; the runtime gives connectors a plain ``ConnectorContext`` today.
    """

    @abc.abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader: ...


class SinkConnectorContext(ConnectorContext):
    """A sink connector's context."""


class Connector(HasContext[ConnectorContext], abc.ABC):
    """Configures a job and divides it into tasks; the runtime runs the tasks.

    Lifecycle: ``initialize(context)``, ``start(props)``, then ``task_class()`` and
    ``task_configs(max_tasks)`` as often as the runtime needs, and finally ``stop()``. A new config
    or a restart stops the instance and starts a new one; pausing the connector pauses its tasks only.

    ``config``, ``validate``, ``exactly_once_support``, ``can_define_transaction_boundaries`` and
    ``alter_offsets`` are called on an instance of their own that is never initialized or started:
    they must not depend on ``start``.
    """

    @abc.abstractmethod
    def version(self) -> str:
        """This connector's version, shown by ``GET /connector-plugins``."""

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with the user's config; called once before any ``task_configs``.

        If it raises, the connector is FAILED, no task starts, and ``stop`` is not called.
        """

    def reconfigure(self, props: Mapping[str, str]) -> None:
        """Take a new config; by default stop and start again.

        Kept for Kafka's API: the runtime itself never calls it, it starts a new instance instead.
        """
        self.stop()
        self.start(props)

    @abc.abstractmethod
    def task_class(self) -> type[Task]:
        """The task class to run."""

    @abc.abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One config per task to run, at most ``max_tasks`` of them.

        Called after ``start``, and again after ``request_task_reconfiguration``. An exception, or
        more configs than ``max_tasks`` (unless ``tasks.max.enforce=false``), fails the connector.
        """

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop; release what ``start`` acquired. Called once, after the connector's tasks were
        stopped (on delete, a new config, a stop, a restart or the worker's shutdown); an exception is
        logged and otherwise ignored."""

    @abc.abstractmethod
    def config(self) -> ConfigDef:
        """The connector's own settings (the runtime adds the common connector keys)."""

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        """Check a config before it is used; by default validates it against ``config()``."""
        return self.config().validate(connector_configs)


class SourceConnector(Connector):
    """A connector whose tasks read from an external system and produce records."""

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether this config allows exactly-once delivery; ``None`` means the connector cannot tell."""
        return None

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        """Whether tasks can use ``transaction.boundary=connector`` with this config."""
        return ConnectorTransactionBoundaries.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """React to a user altering or resetting (``None``) offsets; ``True`` if handled externally too.

        ``offsets`` pairs each source partition with its new offset (Java's map, as pairs because
        Python mappings cannot be keys). Called while the connector is STOPPED, before the offsets
        are written: raising fails the request and writes nothing. The return value is not used yet.
        """
        return False


class SinkConnector(Connector):
    """A connector whose tasks consume records and write them to an external system."""

    TOPICS_CONFIG = "topics"
    TOPICS_REGEX_CONFIG = "topics.regex"

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """React to a user altering or resetting (``None``) offsets; ``True`` if handled externally too.

        Called while the connector is STOPPED, before the consumer group's offsets change: raising
        fails the request and changes nothing. The return value is not used yet.
        """
        return False
