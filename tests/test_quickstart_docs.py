"""docs/quickstart.md runs as pasted: its bash blocks, taken from the page itself, run in one shell.

They run in a temporary directory that stands for a fresh clone (its `.venv` is the test's own virtualenv),
against the real worker they start, with the page's port and scratch directory swapped for free ones so
the test shares the machine. `make demo` is left out: it installs, and the demo has tests of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.kafka_broker.jvm import free_port
from pasted_docs import bash_blocks, fixed_waits, run_pasted

DOCS = Path(__file__).parent.parent / "docs"
PAGE_PORT = "127.0.0.1:8083"
PAGE_SCRATCH = "/tmp/conveyor-quickstart"
BOUND_S = 1500


def test_the_quickstart_extracts_every_command_block_but_the_demo() -> None:
    blocks = bash_blocks(DOCS / "quickstart.md")
    assert blocks[0].startswith('export PATH="$PWD/.venv/bin:$PATH"')
    assert blocks[-1].strip() == "kill %1"


def test_no_quickstart_command_waits_a_fixed_time() -> None:
    assert fixed_waits(bash_blocks(DOCS / "quickstart.md")) == []


@pytest.mark.timeout(BOUND_S + 120)
def test_the_quickstart_commands_run_as_pasted(tmp_path: Path) -> None:
    scratch, port = tmp_path / "scratch", free_port()
    script = "\n".join(bash_blocks(DOCS / "quickstart.md"))
    script = script.replace(PAGE_SCRATCH, str(scratch)).replace(PAGE_PORT, f"127.0.0.1:{port}")
    ran = run_pasted(script, tmp_path, {"CONVEYOR_URL": f"http://127.0.0.1:{port}"}, BOUND_S)
    output = ran.output
    assert ran.returncode == 0, f"the quickstart failed (or ran past {BOUND_S} s):\n{output[-4000:]}"
    assert set((scratch / "output.txt").read_text().splitlines()) == {"hello", "world", "more"}
    assert "local-file-sink" in output
