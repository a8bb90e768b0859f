"""Errors of the data model, below the root every Conveyor error shares (``conveyor.errors``)."""

from __future__ import annotations

from conveyor.errors import ConnectError

__all__ = ["ConnectError", "DataError", "SchemaBuilderError"]


class DataError(ConnectError):
    """A value, schema or serialized record is invalid (Kafka Connect's ``DataException``).

    When the record's ``topic``, ``partition`` or ``offset`` are known they are kept as attributes and
    named in the message, so that a malformed record can be found in the log.
    """

    def __init__(
        self,
        message: str,
        *,
        topic: str | None = None,
        partition: int | None = None,
        offset: int | None = None,
    ) -> None:
        self.reason = message
        self.topic = topic
        self.partition = partition
        self.offset = offset
        super().__init__(self._describe())

    def _describe(self) -> str:
        coordinates = (("topic", self.topic), ("partition", self.partition), ("offset", self.offset))
        where = [f"{label}={value}" for label, value in coordinates if value is not None]
        if not where:
            return self.reason
        return f"{self.reason} ({', '.join(where)})"

    def located(
        self, *, topic: str | None = None, partition: int | None = None, offset: int | None = None
    ) -> DataError:
        """Return a copy of this error that also names where the offending record lives."""
        located = DataError(
            self.reason,
            topic=self.topic if topic is None else topic,
            partition=self.partition if partition is None else partition,
            offset=self.offset if offset is None else offset,
        )
        located.__cause__ = self.__cause__
        return located


class SchemaBuilderError(DataError):
    """A schema builder was asked for something Connect forbids (Kafka's ``SchemaBuilderException``)."""
