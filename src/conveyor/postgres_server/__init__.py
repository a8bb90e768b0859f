"""A PostgreSQL server for tests, demos and benchmarks, from the machine's own PostgreSQL binaries."""

from conveyor.postgres_server.server import (
    PostgresServer,
    PostgresServerError,
    find_binaries,
    installed_servers,
)

__all__ = ["PostgresServer", "PostgresServerError", "find_binaries", "installed_servers"]
