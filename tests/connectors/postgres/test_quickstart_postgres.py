"""docs/postgres.md's quickstart runs as pasted: its bash blocks, taken from the page itself, run in one
shell against the session's PostgreSQL (standing for `make postgres`, which the test leaves out).

As for docs/quickstart.md, they run in a directory standing for a fresh clone, with the page's worker port,
scratch directory, PostgreSQL port and database swapped for the test's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.connectors.postgres.databases import fresh_database

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.kafka_broker.jvm import free_port
from conveyor.postgres_server import PostgresServer
from pasted_docs import bash_blocks, fixed_waits, run_pasted

PAGE = Path(__file__).parents[3] / "docs" / "postgres.md"
PAGE_PORT = "127.0.0.1:8083"
PAGE_SCRATCH = "/tmp/conveyor-cdc"
BOUND_S = 1500
SPARK_NOTES = re.compile(
    r"replaced a statically registered data source|not supported in streaming|batch is falling behind"
    r"|Cannot find active jobs"
)


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "quickstart") as target:
        yield target


def page_script(scratch: Path, port: int, database: PostgresAddress) -> str:
    script = "\n".join(bash_blocks(PAGE))
    return (
        script.replace(PAGE_SCRATCH, str(scratch))
        .replace(PAGE_PORT, f"127.0.0.1:{port}")
        .replace('"database.port": "5432"', f'"database.port": "{database.port}"')
        .replace('"database.dbname": "postgres"', f'"database.dbname": "{database.dbname}"')
        .replace("-d postgres", f"-d {database.dbname}")
        .replace("127.0.0.1:5432/replica", f"127.0.0.1:{database.port}/{database.dbname}_replica")
        .replace("DATABASE replica", f"DATABASE {database.dbname}_replica")
        .replace("-d replica", f"-d {database.dbname}_replica")
    )


def spark_tables(output: str) -> list[list[list[str]]]:
    """The rows (cells stripped, header first) of each table that Spark's `show()` printed."""
    tables: list[list[list[str]]] = []
    inside = False
    for line in output.splitlines():
        if line.startswith("+-"):
            if not inside:
                tables.append([])
            inside = True
        elif line.startswith("|") and inside:
            tables[-1].append([cell.strip() for cell in line.strip("|").split("|")])
        else:
            inside = False
    return tables


def test_the_postgres_quickstart_leaves_out_only_make_postgres_and_waits_no_fixed_time() -> None:
    blocks = bash_blocks(PAGE)
    assert blocks[0].startswith("export PGPASSWORD=conveyor")
    assert blocks[-1].strip() == "kill %1"
    assert fixed_waits(blocks) == []


@pytest.mark.timeout(BOUND_S + 120)
def test_the_postgres_quickstart_commands_run_as_pasted(tmp_path: Path, database: PostgresAddress) -> None:
    scratch, port = tmp_path / "scratch", free_port()
    ran = run_pasted(page_script(scratch, port, database), tmp_path, {"PGPORT": str(database.port)}, BOUND_S)
    output = ran.output
    assert ran.returncode == 0, f"the quickstart failed (or ran past {BOUND_S} s):\n{output[-4000:]}"
    events, lake = spark_tables(output)
    assert SPARK_NOTES.findall(output) == []
    ops = [row[0] for row in events[1:]]
    assert ops == ["r", "c", "u", "d", "null"] or ops == ["r", "c", "u", "d", "NULL"], output[-4000:]
    assert [row[:3] + row[-1:] for row in lake[1:]] == [
        ["1", "pen", "2", "false"],
        ["1", "", "NULL", "true"],
        ["2", "ink", "1", "false"],
        ["2", "ink", "5", "false"],
    ], output[-4000:]
