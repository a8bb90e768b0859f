"""Errors of the config, offset and status stores; each says which topic and what went wrong."""

from __future__ import annotations

from conveyor.errors import ConnectError


class StorageError(ConnectError):
    """Base of every error raised by a store: a write or read of an internal topic failed."""


class StorageTimeoutError(StorageError):
    """Reading an internal topic to its end did not finish in time."""


class PrivilegedWriteError(StorageError):
    """A transactional (leader) write to the config topic failed; the worker has lost its write privileges.

    It must claim them again (after rejoining the group as leader) before writing once more.
    """
