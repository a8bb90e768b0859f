"""A small per-transformation cache of rewritten schemas, keyed by the input schema (Kafka keeps 16)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from conveyor.data import Schema


class SchemaUpdateCache:
    """Remembers ``input schema -> updated schema``; a hit on the same schema object skips hashing."""

    def __init__(self, capacity: int = 16) -> None:
        self._capacity = capacity
        self._by_identity: dict[int, tuple[Schema, Schema]] = {}
        self._by_value: OrderedDict[Schema, Schema] = OrderedDict()

    def get_or_build(self, schema: Schema, build: Callable[[Schema], Schema]) -> Schema:
        """Return the cached update of ``schema``, building and remembering it on a miss."""
        entry = self._by_identity.get(id(schema))
        if entry is not None and entry[0] is schema:
            return entry[1]
        updated = self._by_value.get(schema)
        if updated is None:
            updated = build(schema)
            self._by_value[schema] = updated
            if len(self._by_value) > self._capacity:
                self._by_value.popitem(last=False)
        else:
            self._by_value.move_to_end(schema)
        if len(self._by_identity) >= self._capacity:
            self._by_identity.clear()
        self._by_identity[id(schema)] = (schema, updated)
        return updated

    def clear(self) -> None:
        self._by_identity.clear()
        self._by_value.clear()
