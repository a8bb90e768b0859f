"""The embedded log: one directory on this machine, shared by every process that opens it."""

from __future__ import annotations

from pathlib import Path

from conveyor.log.api import Admin, Consumer, GroupCoordinator, IsolationLevel, Log, Producer
from conveyor.log.client_config import normalize_config
from conveyor.log.embedded.admin import EmbeddedAdmin
from conveyor.log.embedded.consumer import EmbeddedConsumer
from conveyor.log.embedded.database import Database
from conveyor.log.embedded.groups import EmbeddedGroupCoordinator
from conveyor.log.embedded.producer import EmbeddedProducer


class EmbeddedLog(Log):
    """A log kept in a SQLite database (WAL mode) inside ``directory``."""

    def __init__(self, directory: Path, synchronous: str = "NORMAL") -> None:
        self.directory = directory.absolute()
        self._synchronous = synchronous
        self._database = Database(directory, synchronous)

    @property
    def url(self) -> str:
        return f"embedded:{self.directory}?sync={self._synchronous.lower()}"

    def __reduce__(self) -> tuple[type[EmbeddedLog], tuple[Path, str]]:
        return EmbeddedLog, (self.directory, self._synchronous)

    def admin(self) -> Admin:
        return EmbeddedAdmin(self._database)

    def producer(self, transactional_id: str | None = None, **config: object) -> Producer:
        return EmbeddedProducer(self._database, transactional_id, normalize_config(config))

    def consumer(
        self,
        group_id: str | None = None,
        isolation_level: IsolationLevel = "read_committed",
        **config: object,
    ) -> Consumer:
        return EmbeddedConsumer(self._database, group_id, isolation_level, normalize_config(config))

    def group_coordinator(self) -> GroupCoordinator:
        return EmbeddedGroupCoordinator(self._database)

    def close(self) -> None:
        self._database.close()

    def __repr__(self) -> str:
        return f"EmbeddedLog({str(self.directory)!r})"
