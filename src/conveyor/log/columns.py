"""Keys or values of a batch kept as the log stores them: one buffer, and where each record starts.

A :class:`BinaryColumn` is a ``Sequence[bytes]`` that splits its buffer into ``bytes`` objects only when
a record is read one at a time, and hands the whole column to Arrow without copying it
(:meth:`BinaryColumn.to_arrow`), which is what Spark's read tasks need. Slices are views.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    import pyarrow as pa


class BinaryColumn(Sequence[bytes | None]):
    """Records ``i`` of a column is ``buffer[bounds[i]:bounds[i + 1]]``; no record is null."""

    __slots__ = ("_bounds", "_buffer", "_items")

    def __init__(self, buffer: bytes, bounds: array[int]) -> None:
        self._buffer = buffer
        self._bounds = bounds
        self._items: list[bytes | None] | None = None

    @classmethod
    def joined(cls, columns: Iterable[BinaryColumn]) -> BinaryColumn:
        """One column holding the records of ``columns`` in order (their bytes copied once)."""
        import numpy as np

        parts = list(columns)
        buffer = b"".join(memoryview(c._buffer)[c._bounds[0] : c._bounds[-1]] for c in parts)
        pieces, end = [np.zeros(1, dtype=np.int64)], 0
        for column in parts:
            own = np.frombuffer(column._bounds, dtype=np.int64)
            pieces.append(own[1:] - own[0] + end)
            end += int(own[-1] - own[0])
        bounds = array("q")
        bounds.frombytes(np.concatenate(pieces).tobytes())
        return cls(buffer, bounds)

    @classmethod
    def concatenated(cls, columns: Iterable[BinaryColumn]) -> BinaryColumn:
        """As ``joined``, without numpy: for the few thousand records of a poll, in a process that need
        not import it."""
        parts = list(columns)
        buffer = b"".join(memoryview(c._buffer)[c._bounds[0] : c._bounds[-1]] for c in parts)
        bounds, end = array("q", [0]), 0
        for column in parts:
            own = column._bounds
            shift = end - own[0]
            bounds.extend(map(shift.__add__, own[1:]) if shift else own[1:])
            end += own[-1] - own[0]
        return cls(buffer, bounds)

    def to_arrow(self) -> pa.Array:
        """The column as an Arrow binary array over the same buffer."""
        import numpy as np
        import pyarrow as pa

        bounds = np.frombuffer(self._bounds, dtype=np.int64)
        offsets = (bounds - bounds[0]).astype(np.int32 if bounds[-1] - bounds[0] < 2**31 else np.int64)
        data = pa.py_buffer(memoryview(self._buffer)[self._bounds[0] : self._bounds[-1]])
        kind = pa.binary() if offsets.dtype == np.int32 else pa.large_binary()
        return pa.Array.from_buffers(kind, len(self), [None, pa.py_buffer(offsets), data])

    def __len__(self) -> int:
        return len(self._bounds) - 1

    @overload
    def __getitem__(self, index: int) -> bytes | None: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[bytes | None]: ...

    def __getitem__(self, index: int | slice) -> bytes | Sequence[bytes | None] | None:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self._records()[index]
            return BinaryColumn(self._buffer, self._bounds[start : max(start, stop) + 1])
        if self._items is None:
            position = range(len(self))[index]
            return self._buffer[self._bounds[position] : self._bounds[position + 1]]
        return self._items[index]

    def __iter__(self) -> Iterator[bytes | None]:
        return iter(self._records())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return list(self) == list(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"BinaryColumn({self._records()!r})"

    def _records(self) -> list[bytes | None]:
        if self._items is None:
            buffer, bounds = self._buffer, self._bounds
            self._items = [buffer[a:b] for a, b in pairwise(bounds)]
        return self._items


def binary_array(column: Sequence[bytes | None]) -> pa.Array:
    """``column`` as an Arrow binary array: without copying for a :class:`BinaryColumn`."""
    if isinstance(column, BinaryColumn):
        return column.to_arrow()
    import pyarrow as pa

    return pa.array(column, pa.binary())
