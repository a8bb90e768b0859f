"""Record headers: an ordered list of (key, value, schema) that may repeat keys, as Connect's ``Headers``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from conveyor.data.schema import Schema, SchemaAndValue


@dataclass(frozen=True)
class Header:
    """One header: a key, its value, and the schema of the value (None for schema-less values)."""

    key: str
    value: Any
    schema: Schema | None = None

    def rename(self, key: str) -> Header:
        return Header(key, self.value, self.schema)

    def with_value(self, schema: Schema | None, value: Any) -> Header:
        return Header(self.key, value, schema)


class Headers:
    """A mutable, ordered collection of headers; several headers may share a key."""

    __slots__ = ("_headers",)

    def __init__(self, headers: Iterable[Header] = ()) -> None:
        self._headers: list[Header] = list(headers)

    def add(self, key: str, value: Any, schema: Schema | None = None) -> Headers:
        """Append a header and return this collection, for chaining."""
        if isinstance(value, SchemaAndValue) and schema is None:
            schema, value = value.schema, value.value
        self._headers.append(Header(key, value, schema))
        return self

    def add_header(self, header: Header) -> Headers:
        self._headers.append(header)
        return self

    def last_with_name(self, key: str) -> Header | None:
        """The most recently added header called ``key``, or None."""
        for header in reversed(self._headers):
            if header.key == key:
                return header
        return None

    def all_with_name(self, key: str) -> list[Header]:
        return [header for header in self._headers if header.key == key]

    def remove(self, key: str) -> Headers:
        """Drop every header called ``key``."""
        self._headers = [header for header in self._headers if header.key != key]
        return self

    def retain_latest(self, key: str | None = None) -> Headers:
        """Keep only the last header of ``key`` (of every key when ``key`` is None)."""
        seen: set[str] = set()
        kept: list[Header] = []
        for header in reversed(self._headers):
            if (key is None or header.key == key) and header.key in seen:
                continue
            seen.add(header.key)
            kept.append(header)
        kept.reverse()
        self._headers = kept
        return self

    def clear(self) -> Headers:
        self._headers.clear()
        return self

    def copy(self) -> Headers:
        """An independent copy; headers themselves are immutable, so they are shared."""
        return Headers(self._headers)

    def __len__(self) -> int:
        return len(self._headers)

    def __iter__(self) -> Iterator[Header]:
        return iter(self._headers)

    def __getitem__(self, index: int) -> Header:
        return self._headers[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Headers):
            return NotImplemented
        return self._headers == other._headers

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Headers({self._headers!r})"
