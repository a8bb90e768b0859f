"""A REST user cannot make a worker's file or directory provider read outside `allowed.paths`.

A FileStreamSink whose `file` holds a variable under a directory that does not exist fails to start with
the resolved path in its task's trace, which `GET /connectors/{c}/status` shows: the channel a secret
would leak through.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from waiting import wait_until

from .workers import running_worker

SECRET = "outside-secret"
KAFKA = "org.apache.kafka.common.config.provider."
_names = itertools.count()


@pytest.fixture(scope="module")
def allowed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An allowed directory holding a file, and a symlink and a hard link to a secret file outside it."""
    root = tmp_path_factory.mktemp("farm")
    (root / "allowed").mkdir()
    (root / "outside").mkdir()
    (root / "outside" / "secret").write_text(f"key={SECRET}")
    (root / "allowed" / "inside").write_text("key=inside-value")
    (root / "allowed" / "symlink").symlink_to(root / "outside" / "secret")
    os.link(root / "outside" / "secret", root / "allowed" / "hardlink")
    return root / "allowed"


@pytest.fixture(scope="module")
def worker(allowed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    props = {
        "config.providers": "file,dir",
        "config.providers.file.class": f"{KAFKA}FileConfigProvider",
        "config.providers.file.param.allowed.paths": str(allowed),
        "config.providers.dir.class": f"{KAFKA}DirectoryConfigProvider",
        "config.providers.dir.param.allowed.paths": str(allowed),
        "task.restart.enable": "false",
    }
    with running_worker(tmp_path_factory.mktemp("providers"), props) as started:
        yield started


def failed_task_trace(worker: StandaloneWorker, variable: str) -> str:
    """The trace of a sink task whose `file` is `variable` under a directory that does not exist."""
    name = f"provider-{next(_names)}"
    config = {
        "connector.class": "FileStreamSink",
        "topics": "provider-paths",
        "file": f"/nonexistent-conveyor-dir/{variable}",
        "tasks.max": "1",
    }
    with httpx.Client(base_url=worker.url, timeout=30) as client:
        created = client.post("/connectors", json={"name": name, "config": config})
        assert created.status_code == 201, created.text

        def trace() -> str | None:
            tasks = client.get(f"/connectors/{name}/status").json().get("tasks", [])
            return tasks[0].get("trace") if tasks and tasks[0]["state"] == "FAILED" else None

        try:
            return wait_until(trace, f"the task of {name} to fail", 120)
        finally:
            client.delete(f"/connectors/{name}")


def test_a_variable_inside_the_allowed_paths_resolves(worker: StandaloneWorker, allowed: Path) -> None:
    assert "/nonexistent-conveyor-dir/inside-value" in failed_task_trace(
        worker, f"${{file:{allowed}/inside:key}}"
    )


@pytest.mark.parametrize(
    "variable",
    [
        "${file:{allowed}/symlink:key}",
        "${file:{allowed}/hardlink:key}",
        "${file:{allowed}/../outside/secret:key}",
        "${dir:{allowed}:symlink}",
        "${dir:{allowed}:hardlink}",
        "${dir:{allowed}:../outside/secret}",
        "${dir:{allowed}/../outside:secret}",
    ],
    ids=[
        "file-symlink",
        "file-hardlink",
        "file-dotdot",
        "dir-symlink",
        "dir-hardlink",
        "dir-dotdot-key",
        "dir-dotdot",
    ],
)
def test_a_variable_reaching_outside_the_allowed_paths_stays_as_written(
    worker: StandaloneWorker, allowed: Path, variable: str
) -> None:
    written = variable.replace("{allowed}", str(allowed))
    trace = failed_task_trace(worker, written)
    assert SECRET not in trace
    assert written in trace
