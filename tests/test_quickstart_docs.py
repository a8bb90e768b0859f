"""docs/quickstart.md runs as pasted: its bash blocks, taken from the page itself, run in one shell.

They run in a temporary directory that stands for a fresh clone (its `.venv` is the test's own virtualenv),
against the real worker they start, with the page's port and scratch directory swapped for free ones so
the test shares the machine. `make demo` is left out: it installs, and the demo has tests of its own.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).parent.parent / "docs"
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.DOTALL | re.MULTILINE)
PAGE_PORT = "127.0.0.1:8083"
PAGE_SCRATCH = "/tmp/conveyor-quickstart"
BOUND_S = 1500


def bash_blocks(page: Path) -> list[str]:
    """The page's bash blocks in order, but those that run `make` (installing a virtualenv)."""
    return [block for block in BLOCK.findall(page.read_text()) if not block.startswith("make ")]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_quickstart_extracts_every_command_block_but_the_demo() -> None:
    blocks = bash_blocks(DOCS / "quickstart.md")
    assert blocks[0].startswith('export PATH="$PWD/.venv/bin:$PATH"')
    assert blocks[-1].strip() == "kill %1"


def test_no_quickstart_command_waits_a_fixed_time() -> None:
    script = "\n".join(bash_blocks(DOCS / "quickstart.md"))
    assert [line for line in script.splitlines() if re.match(r"\s*sleep \d", line)] == []


@pytest.mark.timeout(BOUND_S + 120)
def test_the_quickstart_commands_run_as_pasted(tmp_path: Path) -> None:
    clone, scratch, port = tmp_path / "clone", tmp_path / "scratch", free_port()
    clone.mkdir()
    (clone / ".venv").symlink_to(Path(sys.executable).parent.parent)
    script = "set -e\n" + "\n".join(bash_blocks(DOCS / "quickstart.md"))
    script = script.replace(PAGE_SCRATCH, str(scratch)).replace(PAGE_PORT, f"127.0.0.1:{port}")
    env = {**os.environ, "CONVEYOR_URL": f"http://127.0.0.1:{port}"}
    transcript = tmp_path / "transcript.txt"
    with transcript.open("w") as out:
        shell = subprocess.Popen(
            ["bash", "-c", script],
            cwd=clone,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            shell.wait(timeout=BOUND_S)
        except subprocess.TimeoutExpired:
            pass
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shell.pid, signal.SIGKILL)
    output = transcript.read_text()
    assert shell.returncode == 0, f"the quickstart failed (or ran past {BOUND_S} s):\n{output[-4000:]}"
    assert set((scratch / "output.txt").read_text().splitlines()) == {"hello", "world", "more"}
    assert "local-file-sink" in output
