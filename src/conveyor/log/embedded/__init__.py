"""The embedded backend: a log kept on this machine's disk, in one SQLite database per directory."""

from conveyor.log.embedded.log import EmbeddedLog

__all__ = ["EmbeddedLog"]
