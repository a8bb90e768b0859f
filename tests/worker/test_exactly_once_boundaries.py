"""KIP-618's transaction boundaries deliver exactly once; `exactly.once.support=required` needs EOS on."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.connectors import Verification, verify

from .support import (
    create_connector,
    delete_all_connectors,
    exactly_once,
    generator_config,
    read_values,
    rest_client,
    running_worker,
    task_metrics,
    unique,
    wait_until,
)

RECORDS_PER_TASK = 5_000
TASKS = 2
BATCH_SIZE = 100
EOS_DISABLED = "This worker does not have exactly-once source support enabled."


@pytest.fixture(scope="module")
def eos_worker(tmp_path_factory: pytest.TempPathFactory, worker_log_url: str) -> Iterator[StandaloneWorker]:
    """A worker with exactly-once source support, on each backend in turn."""
    data_dir = tmp_path_factory.mktemp("boundaries")
    with running_worker(data_dir, worker_log_url, **exactly_once(True)) as started:
        yield started


@pytest.fixture(scope="module")
def alo_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("no-eos"), **exactly_once(False)) as started:
        yield started


@pytest.fixture
def client(eos_worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(eos_worker) as rest:
        yield rest
        delete_all_connectors(rest)


def generate(client: httpx.Client, worker: StandaloneWorker, **settings: str) -> tuple[str, Verification]:
    """Run a required-exactly-once generator to its end; its name and what a read_committed reader saw."""
    name, topic = unique("eos"), unique("eos-topic")
    config = generator_config(
        topic,
        records=str(RECORDS_PER_TASK),
        rate="2500",
        **{"tasks.max": str(TASKS), "batch.size": str(BATCH_SIZE), "exactly.once.support": "required"},
    )
    create_connector(client, name, config | settings)

    def complete() -> Verification | None:
        result = verify(read_values(worker.log, topic), RECORDS_PER_TASK, TASKS)
        return result if result.distinct == RECORDS_PER_TASK * TASKS else None

    return name, wait_until(complete, f"{topic} to hold every record", every_s=0.5)


def committed_transactions(worker: StandaloneWorker, name: str, at_least: int) -> list[int]:
    """Each task's committed transaction count, once every task has reported `at_least` of them."""

    def counts() -> list[int] | None:
        found = [task_metrics(worker, name, t).get("transactions-committed", 0) for t in range(TASKS)]
        return found if min(found) >= at_least else None

    return wait_until(counts, f"{name}'s tasks to report {at_least} committed transactions", 10.0)


def test_the_interval_boundary_delivers_exactly_once_in_transactions_spanning_polls(
    client: httpx.Client, eos_worker: StandaloneWorker
) -> None:
    name, result = generate(
        client,
        eos_worker,
        **{"transaction.boundary": "interval", "transaction.boundary.interval.ms": "500"},
    )
    assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0), result
    polls = RECORDS_PER_TASK // BATCH_SIZE
    assert all(count < polls / 2 for count in committed_transactions(eos_worker, name, at_least=1))


def test_the_connector_boundary_delivers_exactly_once_in_the_transactions_the_task_asks_for(
    client: httpx.Client, eos_worker: StandaloneWorker
) -> None:
    name, result = generate(
        client, eos_worker, **{"transaction.boundary": "connector", "transaction.records": "1000"}
    )
    assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0), result
    assert committed_transactions(eos_worker, name, at_least=5) == [5, 5]


def test_required_exactly_once_is_refused_by_a_worker_without_it(alo_worker: StandaloneWorker) -> None:
    with rest_client(alo_worker) as client:
        config = generator_config("never", **{"exactly.once.support": "required"})
        response = client.post("/connectors", json={"name": unique("eos"), "config": config})
        assert response.status_code == 400
        assert EOS_DISABLED in response.json()["message"]
        assert client.get("/connectors").json() == []


def test_validate_shows_the_kip_618_error_on_exactly_once_support(alo_worker: StandaloneWorker) -> None:
    with rest_client(alo_worker) as client:
        config = generator_config("never", name="checked", **{"exactly.once.support": "required"})
        infos = client.put("/connector-plugins/GeneratorSourceConnector/config/validate", json=config).json()
        errors = {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}
        assert errors == {"exactly.once.support": [EOS_DISABLED]}
