"""The base of source and sink tasks: the units of work a connector's job is split into.

Where a task runs: each task is one long-running Spark task on an executor, and every method of
one task instance (``initialize``, ``start``, the work calls, ``stop``) is called on that Spark
task's one thread, one call at a time. A task needs no locks unless it starts threads of its own.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping


class Task(abc.ABC):
    """One unit of a connector's work, started with one of the configs from ``Connector.task_configs``.

    Each incarnation is a new instance: a restart (after a failure, or because the connector's
    config changed) builds another one and calls ``initialize`` and ``start`` on it; nothing carries
    over from the previous incarnation but what was committed.
    """

    @abc.abstractmethod
    def version(self) -> str:
        """This task's version (usually the connector's)."""

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with this task's config; called once, after ``initialize``, before any other call.

        May block while it connects; the task reports RUNNING only once the loop runs. If it raises,
        the task is FAILED and ``stop`` is not called.
        """

    @abc.abstractmethod
    def stop(self) -> None:
        """Release what ``start`` acquired; called once, last, on the task's own thread.

        It comes after the loop ended: after the final commit when the task was asked to stop; after
        a failure, right after the sink task's closing ``pre_commit`` and ``close`` of its partitions
        (as Kafka's), and with nothing more committed for a source task. No call follows it. Unlike
        Kafka's, it is never called from another thread while ``poll`` or ``put`` runs, so those calls
        must return on their own. The worker waits ``task.shutdown.graceful.timeout.ms`` (5 s by
        default) for the loop to end, commit and stop; then it cancels the Spark job, and whatever was
        not committed is redone by the next incarnation.
        """
