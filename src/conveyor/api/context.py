"""The one way a connector or task receives its context: ``initialize`` stores it, ``context`` returns it."""

from __future__ import annotations

from typing import Generic, TypeVar

from conveyor.api.errors import ConnectError

C = TypeVar("C")


class HasContext(Generic[C]):
    """A plugin the runtime initializes with a context (of type ``C``) before it starts it."""

    _context: C | None = None

    def initialize(self, context: C) -> None:
        self._context = context

    @property
    def context(self) -> C:
        """The context given to ``initialize``."""
        if self._context is None:
            raise ConnectError(f"{type(self).__name__} has not been initialized with a context")
        return self._context
