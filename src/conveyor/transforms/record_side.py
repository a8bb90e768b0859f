"""Which half of a record a ``$Key`` or ``$Value`` transformation reads and rewrites."""

from __future__ import annotations

import abc
from typing import Any

from conveyor.data import ConnectRecord, Headers, Schema


class RecordSide(abc.ABC):
    """The three accessors Kafka's two-sided transformations are written against."""

    @abc.abstractmethod
    def operating_schema(self, record: ConnectRecord) -> Schema | None:
        """The schema of the half this transformation works on."""

    @abc.abstractmethod
    def operating_value(self, record: ConnectRecord) -> Any:
        """The half (key or value) this transformation works on."""

    @abc.abstractmethod
    def new_record(
        self, record: ConnectRecord, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> ConnectRecord:
        """A copy of ``record`` whose operated half (and, when given, headers) are replaced."""


class KeySide(RecordSide):
    """Mixin for the ``$Key`` variant of a transformation: it works on the record key."""

    def operating_schema(self, record: ConnectRecord) -> Schema | None:
        return record.key_schema

    def operating_value(self, record: ConnectRecord) -> Any:
        return record.key

    def new_record(
        self, record: ConnectRecord, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> ConnectRecord:
        if headers is None:
            return record.new_record(key_schema=schema, key=value)
        return record.new_record(key_schema=schema, key=value, headers=headers)


class ValueSide(RecordSide):
    """Mixin for the ``$Value`` variant of a transformation: it works on the record value."""

    def operating_schema(self, record: ConnectRecord) -> Schema | None:
        return record.value_schema

    def operating_value(self, record: ConnectRecord) -> Any:
        return record.value

    def new_record(
        self, record: ConnectRecord, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> ConnectRecord:
        if headers is None:
            return record.new_record(value_schema=schema, value=value)
        return record.new_record(value_schema=schema, value=value, headers=headers)
