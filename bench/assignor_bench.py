"""Milliseconds per rebalance of the cooperative assignor, beside the eager assignor on the same group.

Run: ``.venv/bin/python bench/assignor_bench.py``. The leader computes an assignment inside the group's
rebalance, so its cost adds to every rebalance. Each figure is the best of a few repetitions, measured
in the same run as the eager baseline (which deals everything afresh, the least work an assignor does).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from conveyor.herder.distributed.cooperative_assignor import IncrementalCooperativeAssignor
from conveyor.herder.distributed.eager_assignor import eager_assignment
from conveyor.herder.distributed.protocol import (
    ConnectAssignment,
    ConnectProtocolCompatibility,
    WorkerMetadata,
    decode_assignment,
    encode_assignment,
)
from conveyor.storage.cluster_config_state import ClusterConfigState

REPEATS = 5


def best_ms(run: Callable[[], object]) -> float:
    timings = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        timings.append((time.perf_counter() - start) * 1000)
    return min(timings)


def config_of(connectors: int, tasks_each: int) -> ClusterConfigState:
    names = [f"connector-{i:04d}" for i in range(connectors)]
    return ClusterConfigState(
        offset=1,
        connector_configs={n: {"name": n} for n in names},
        task_counts=dict.fromkeys(names, tasks_each),
    )


def settled_members(config: ClusterConfigState, workers: int) -> dict[str, WorkerMetadata]:
    """Members that already run what the cooperative assignor gives a fresh group."""
    members = {f"worker-{i:03d}": WorkerMetadata(f"http://worker-{i:03d}:8083", 1) for i in range(workers)}
    result = IncrementalCooperativeAssignor(300_000, lambda: 0).assign(
        "worker-000", members, config, last_completed_generation=-1, generation=1
    )
    return {
        m: WorkerMetadata(
            meta.url,
            1,
            ConnectAssignment(
                "worker-000", "u", 1, result.assignments[m].connectors, result.assignments[m].tasks
            ),
        )
        for m, meta in members.items()
    }


def bench_group(workers: int, connectors: int, tasks_each: int) -> str:
    config = config_of(connectors, tasks_each)
    members = settled_members(config, workers)
    joined = {**members, "worker-new": WorkerMetadata("http://worker-new:8083", 1)}

    def cooperative(group: dict[str, WorkerMetadata]) -> Callable[[], object]:
        return lambda: IncrementalCooperativeAssignor(300_000, lambda: 0).assign(
            "worker-000", group, config, last_completed_generation=-1, generation=1
        )

    largest = members["worker-000"].assignment
    assert largest is not None

    def codec() -> None:
        decode_assignment(encode_assignment(largest, ConnectProtocolCompatibility.SESSIONED))

    eager = best_ms(lambda: eager_assignment("worker-000", members, config))
    label = f"{workers} workers, {connectors * tasks_each} tasks"
    return (
        f"{label:<28} {eager:>8.2f}ms {best_ms(cooperative(members)):>10.2f}ms"
        f" {best_ms(cooperative(joined)):>8.2f}ms {best_ms(codec):>8.3f}ms"
    )


def main() -> None:
    print(f"{'group':<28} {'eager':>10} {'coop steady':>12} {'coop join':>10} {'codec':>10}")
    for workers, connectors, tasks_each in ((3, 10, 4), (10, 100, 10), (50, 500, 20)):
        print(bench_group(workers, connectors, tasks_each))


if __name__ == "__main__":
    main()
