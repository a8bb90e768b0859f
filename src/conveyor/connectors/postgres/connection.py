"""Where a PostgreSQL database is and how to log in, from a JDBC URL or Debezium's ``database.*`` keys,
and the one way the connectors open a connection to it.

Every connector connects through :func:`connect`, so a wrong password, an unreachable host or a missing
database fail with the same :class:`PostgresConnectionError` naming the address and what to check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import psycopg2
import psycopg2.extensions
import psycopg2.extras

from conveyor.errors import ConfigError, ConnectError

_JDBC_PREFIX = "jdbc:postgresql:"
_DEFAULT_PORT = 5432
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


class PostgresConnectionError(ConnectError):
    """A connection to PostgreSQL could not be opened or was lost."""


@dataclass(frozen=True)
class PostgresAddress:
    """A database to connect to and the credentials to log in with."""

    host: str
    port: int = _DEFAULT_PORT
    dbname: str = "postgres"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    sslmode: str = "prefer"
    connect_timeout_s: int = 10

    def describe(self) -> str:
        """``user@host:port/dbname``, for messages (never the password)."""
        who = f"{self.user}@" if self.user else ""
        return f"{who}{self.host}:{self.port}/{self.dbname}"

    def with_credentials(self, user: str | None, password: str | None) -> PostgresAddress:
        """This address with ``user``/``password`` where given (connector keys win over the URL's)."""
        return replace(self, user=user or self.user, password=password or self.password)


def parse_jdbc_url(url: str) -> PostgresAddress:
    """The address of a ``jdbc:postgresql://host[:port]/dbname[?user=..&password=..&sslmode=..]`` URL.

    >>> parse_jdbc_url("jdbc:postgresql://db.example:5433/shop?sslmode=require").describe()
    'db.example:5433/shop'
    """
    if not url.startswith(_JDBC_PREFIX):
        raise ConfigError(
            f"connection.url {url!r} is not a PostgreSQL JDBC URL: write jdbc:postgresql://host:port/dbname"
        )
    parts = urlsplit(url[len("jdbc:") :])
    if not parts.hostname:
        raise ConfigError(f"connection.url {url!r} names no host: write jdbc:postgresql://host:port/dbname")
    if "," in (parts.netloc or ""):
        raise ConfigError(f"connection.url {url!r} names several hosts; Conveyor connects to one")
    try:
        port = parts.port or _DEFAULT_PORT
    except ValueError:
        raise ConfigError(f"connection.url {url!r} has a port that is not a number") from None
    query = dict(parse_qsl(parts.query))
    sslmode = query.get("sslmode", "prefer")
    if sslmode not in SSL_MODES:
        raise ConfigError(f"connection.url {url!r}: sslmode must be one of {', '.join(SSL_MODES)}")
    return PostgresAddress(
        host=parts.hostname,
        port=port,
        dbname=unquote(parts.path.lstrip("/")) or "postgres",
        user=query.get("user"),
        password=query.get("password"),
        sslmode=sslmode,
        connect_timeout_s=int(query.get("connectTimeout", "10")),
    )


def address_from_debezium(config: Mapping[str, Any]) -> PostgresAddress:
    """The address in Debezium's ``database.hostname``, ``.port``, ``.user``, ``.password``, ``.dbname``
    and ``.sslmode`` keys."""
    host = config.get("database.hostname")
    if not host:
        raise ConfigError.missing("database.hostname")
    sslmode = str(config.get("database.sslmode") or "prefer")
    if sslmode not in SSL_MODES:
        raise ConfigError(f"database.sslmode must be one of {', '.join(SSL_MODES)}, not {sslmode!r}")
    try:
        port = int(config.get("database.port") or _DEFAULT_PORT)
    except ValueError:
        raise ConfigError(f"database.port must be a number, not {config.get('database.port')!r}") from None
    return PostgresAddress(
        host=str(host),
        port=port,
        dbname=str(config.get("database.dbname") or "postgres"),
        user=config.get("database.user"),
        password=config.get("database.password"),
        sslmode=sslmode,
    )


def connect(
    address: PostgresAddress,
    *,
    application_name: str = "conveyor",
    replication: bool = False,
    autocommit: bool = False,
) -> psycopg2.extensions.connection:
    """Open a connection (a logical replication one with ``replication``), or fail with what to check."""
    arguments: dict[str, Any] = {
        "host": address.host,
        "port": address.port,
        "dbname": address.dbname,
        "user": address.user,
        "password": address.password,
        "sslmode": address.sslmode,
        "connect_timeout": address.connect_timeout_s,
        "application_name": application_name,
    }
    if replication:
        arguments["connection_factory"] = psycopg2.extras.LogicalReplicationConnection
    try:
        connection = psycopg2.connect(**arguments)
    except psycopg2.OperationalError as error:
        raise PostgresConnectionError(
            f"Could not connect to PostgreSQL at {address.describe()}: {first_line(error)}. "
            "Check the host, port, database name, user and password, and that the server accepts "
            "connections from this machine (pg_hba.conf)"
        ) from error
    if autocommit and not replication:
        connection.autocommit = True
    return connection


def first_line(error: BaseException) -> str:
    """The first line of a driver error: libpq's messages go on with hints and context lines."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
