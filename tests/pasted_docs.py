"""Running a docs page's commands as a user pastes them: its bash blocks, in one shell, in a directory
that stands for a fresh clone (its `.venv` is the test's own virtualenv), killed with its children."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

BLOCK = re.compile(r"^```bash\n(.*?)^```", re.DOTALL | re.MULTILINE)


def bash_blocks(page: Path) -> list[str]:
    """The page's bash blocks in order, but those that run `make` (installing a virtualenv)."""
    return [block for block in BLOCK.findall(page.read_text()) if not block.startswith("make ")]


def fixed_waits(blocks: list[str]) -> list[str]:
    """The lines of `blocks` that wait a fixed time (`sleep N`) instead of looping on a status."""
    return [line for line in "\n".join(blocks).splitlines() if re.match(r"\s*sleep \d", line)]


@dataclass(frozen=True)
class Pasted:
    """How a pasted script ended: its exit code (None if it ran past its bound) and all it printed."""

    returncode: int | None
    output: str


def run_pasted(script: str, directory: Path, env: Mapping[str, str], bound_s: float) -> Pasted:
    """Run `script` with bash in a fresh clone under `directory`; whatever it started is killed after."""
    clone = directory / "clone"
    clone.mkdir()
    (clone / ".venv").symlink_to(Path(sys.executable).parent.parent)
    transcript = directory / "transcript.txt"
    with transcript.open("w") as out:
        shell = subprocess.Popen(
            ["bash", "-c", "set -e\n" + script],
            cwd=clone,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            shell.wait(timeout=bound_s)
        except subprocess.TimeoutExpired:
            pass
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shell.pid, signal.SIGKILL)
    return Pasted(shell.returncode, transcript.read_text())
