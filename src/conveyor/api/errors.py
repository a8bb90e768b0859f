"""Errors a connector, a plugin or a configuration can raise (Kafka Connect's exception classes)."""

from __future__ import annotations

from typing import Any

from conveyor.data import ConnectError

__all__ = [
    "AlreadyExistsError",
    "ConfigError",
    "ConnectError",
    "IllegalWorkerStateError",
    "NotFoundError",
    "RetriableError",
]

_NO_VALUE: Any = object()


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


class RetriableError(ConnectError):
    """A failure that may succeed if retried (Kafka's ``RetriableException``).

    A sink task's ``put`` raising it makes the runtime pause and redeliver the same batch.
    """


class NotFoundError(ConnectError):
    """A connector, task or plugin that was asked for does not exist (Kafka's ``NotFoundException``)."""


class AlreadyExistsError(ConnectError):
    """A connector with that name already exists (Kafka's ``AlreadyExistsException``)."""


class IllegalWorkerStateError(ConnectError):
    """The worker is in a state that does not allow the request (Kafka's ``IllegalWorkerStateException``)."""
