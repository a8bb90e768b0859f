"""The root of every error Conveyor raises on purpose, and the few kinds every package shares.

It imports nothing, so that every package (``data`` and ``api`` included) may build on it; ``conveyor.api``
re-exports these names and ``conveyor.data`` the root. Each package adds its own kinds below them::

    ConnectError                    Kafka's ConnectException: something went wrong, said in its message
    ├── ConfigError                 a setting is missing or holds a bad value (Kafka's ConfigException)
    │   ├── InvalidConfigError          conveyor.log: a topic, producer or consumer setting
    │   ├── InvalidLogUrlError          conveyor.log: the log URL
    │   └── ConveyorOptionError         conveyor.spark.datasource: an option of the Spark data source
    ├── BadRequestError             a request that cannot be served as made (Kafka's BadRequestException)
    ├── ForbiddenError              a request this worker refuses, such as a badly signed internal request
    ├── NotFoundError               a connector, task, plugin or class that does not exist
    │   ├── PluginNotFoundError         conveyor.plugins
    │   └── ClassNotFound               conveyor.api.config
    ├── AlreadyExistsError          a connector of that name exists already
    ├── NotReadyError               the worker cannot serve the request yet (it is still starting)
    ├── RetriableError              conveyor.api: a failure that may pass if retried
    ├── IllegalWorkerStateError     conveyor.api
    ├── DataError                   conveyor.data: a bad value, schema or serialized record
    ├── LogError                    conveyor.log: every failure of a log backend
    ├── StorageError                conveyor.storage: a read or write of an internal topic failed
    ├── ToleranceExceededError      conveyor.runtime: a record error that errors.tolerance does not allow
    └── ...                         the Spark data source's, plugins' and connectors' own kinds

The REST API maps these onto Kafka Connect's status codes in one table, ``conveyor.rest.errors``; any
other exception is a 500.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AlreadyExistsError",
    "BadRequestError",
    "ConfigError",
    "ConnectError",
    "ForbiddenError",
    "NotFoundError",
    "NotReadyError",
]

_NO_VALUE: Any = object()


class ConnectError(Exception):
    """Base of every error Conveyor raises on purpose (Kafka Connect's ``ConnectException``)."""


class ConfigError(ConnectError):
    """A configuration is missing a key or holds a bad value (Kafka's ``ConfigException``).

    As in Java, build it from a plain message, or from the key's ``name``, its ``value`` and a reason,
    which reads ``Invalid value <value> for configuration <name>: <reason>``. Pass a password's value
    as a :class:`~conveyor.api.config.Password` so that the message shows ``[hidden]``.
    """

    def __init__(self, name_or_message: str, value: Any = _NO_VALUE, message: str | None = None) -> None:
        self.name: str | None
        self.value: Any
        if value is _NO_VALUE and message is None:
            self.name, self.value = None, None
            super().__init__(name_or_message)
            return
        self.name = name_or_message
        self.value = None if value is _NO_VALUE else value
        reason = "" if message is None else f": {message}"
        super().__init__(f"Invalid value {self.value} for configuration {self.name}{reason}")

    @classmethod
    def missing(cls, name: str) -> ConfigError:
        """The error for a required key that was not given and has no default."""
        error = cls(f'Missing required configuration "{name}" which has no default value.')
        error.name = name
        return error


class BadRequestError(ConnectError):
    """A request that cannot be served as it was made (Kafka's ``BadRequestException``)."""


class ForbiddenError(ConnectError):
    """A request this worker refuses to serve, such as an internal request with a bad signature (403)."""


class NotFoundError(ConnectError):
    """A connector, task or plugin that was asked for does not exist (Kafka's ``NotFoundException``)."""


class AlreadyExistsError(ConnectError):
    """A connector with that name already exists (Kafka's ``AlreadyExistsException``)."""


class NotReadyError(ConnectError):
    """The worker cannot serve the request yet: it has not read its internal topics to the end."""
