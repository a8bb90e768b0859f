"""``python -m conveyor.postgres_server``: start PostgreSQL with logical replication, serve until Ctrl-C."""

from __future__ import annotations

import argparse

from conveyor.lifecycle import serve_until_stopped
from conveyor.postgres_server.server import PostgresServer


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a PostgreSQL server with wal_level=logical for demos.")
    parser.add_argument("--port", type=int, default=5432, help="the client port (0: any free port)")
    parser.add_argument("--user", default="conveyor", help="the superuser to create")
    parser.add_argument("--password", default="conveyor", help="that superuser's password")
    arguments = parser.parse_args()
    serve_until_stopped(
        PostgresServer(port=arguments.port, user=arguments.user, password=arguments.password),
        lambda server: (
            f"PostgreSQL at {server.host}:{server.port} (user {server.user}, password "
            f"{server.password}); connection.url={server.jdbc_url()}; files in {server.directory}; "
            "Ctrl-C stops it"
        ),
    )


if __name__ == "__main__":
    main()
