"""docs/cli.md runs as pasted: its bash blocks, taken from the page itself, run in one shell.

As the quickstart's test does: in a temporary directory that stands for a fresh clone, against the two
real workers the page starts, with the page's ports and scratch directory swapped for free ones.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.kafka_broker.jvm import free_port
from pasted_docs import bash_blocks, fixed_waits, run_pasted

PAGE = Path(__file__).parent.parent / "docs" / "cli.md"
PAGE_PORTS = ("127.0.0.1:8083", "127.0.0.1:8084")
PAGE_SCRATCH = "/tmp/conveyor-cli"
BOUND_S = 1200


def test_the_cli_page_starts_its_workers_first_and_stops_them_last() -> None:
    blocks = bash_blocks(PAGE)
    assert blocks[0].startswith('export PATH="$PWD/.venv/bin:$PATH"')
    assert blocks[-1].strip() == "kill %1 %2"


def test_no_cli_page_command_waits_a_fixed_time() -> None:
    assert fixed_waits(bash_blocks(PAGE)) == []


@pytest.mark.timeout(BOUND_S + 120)
def test_the_cli_page_commands_run_as_pasted(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    script = "\n".join(bash_blocks(PAGE)).replace(PAGE_SCRATCH, str(scratch))
    for page_port in PAGE_PORTS:
        script = script.replace(page_port, f"127.0.0.1:{free_port()}")
    ran = run_pasted(script, tmp_path, {"COLUMNS": "200"}, BOUND_S)
    output = ran.output
    assert ran.returncode == 0, f"the page failed (or ran past {BOUND_S} s):\n{output[-4000:]}"
    assert "Created connector local-file-source" in output
    assert '"position": 12' in (scratch / "moved.json").read_text()
    assert "healthy" in output
