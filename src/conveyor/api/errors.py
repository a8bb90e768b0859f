"""Errors a connector, a plugin or a configuration can raise (Kafka Connect's exception classes).

The shared kinds live in ``conveyor.errors`` (the root of every Conveyor error); the rest are the API's own.
"""

from __future__ import annotations

from conveyor.errors import AlreadyExistsError, ConfigError, ConnectError, NotFoundError

__all__ = [
    "AlreadyExistsError",
    "ConfigError",
    "ConnectError",
    "IllegalWorkerStateError",
    "NotFoundError",
    "RetriableError",
]


class RetriableError(ConnectError):
    """A failure that may succeed if retried (Kafka's ``RetriableException``).

    A sink task's ``put`` raising it makes the runtime pause and redeliver the same batch.
    """


class IllegalWorkerStateError(ConnectError):
    """The worker is in a state that does not allow the request (Kafka's ``IllegalWorkerStateException``)."""
