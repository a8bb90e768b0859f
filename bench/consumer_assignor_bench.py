"""Milliseconds per consumer-group rebalance of the cooperative sticky assignor, beside range assignment.

Run: ``.venv/bin/python bench/consumer_assignor_bench.py``. The group's leader runs the assignor inside
every rebalance of a sink connector's consumer group. Each figure is the best of a few repetitions,
measured in the same run as the range assignor on the same group (which deals everything afresh, the
least work an assignor does). Cases: a settled group rejoining unchanged, and every member but one
joining a member that owns every partition (the most partitions that must move).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from conveyor.log.consumer_protocol import Subscription
from conveyor.log.range_assignor import assign_ranges
from conveyor.log.sticky_assignor import assign_sticky, withhold_transfers
from conveyor.positions import TopicPartition

REPEATS = 5
GROUPS = [(4, 64), (10, 100), (50, 1000), (100, 2000)]


def best_ms(run: Callable[[], object]) -> float:
    timings = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        timings.append((time.perf_counter() - start) * 1000)
    return min(timings)


def measure(members: int, partitions: int) -> tuple[float, float, float]:
    """Range, sticky on a settled group, sticky when all but one member join an owner of everything."""
    count = {"t": partitions}.__getitem__
    every = tuple(TopicPartition("t", p) for p in range(partitions))
    names = [f"member-{i:03d}" for i in range(members)]
    one_owner = {m: Subscription(("t",), every if m == names[0] else (), 1) for m in names}
    target = assign_sticky(one_owner, count)
    settled = {m: Subscription(("t",), tuple(target[m]), 2) for m in names}
    return (
        best_ms(lambda: assign_ranges({m: ["t"] for m in names}, count)),
        best_ms(lambda: withhold_transfers(assign_sticky(settled, count), settled)),
        best_ms(lambda: withhold_transfers(assign_sticky(one_owner, count), one_owner)),
    )


def main() -> None:
    print(f"{'members':>8} {'partitions':>10} {'range':>9} {'sticky settled':>15} {'sticky all move':>16}")
    for members, partitions in GROUPS:
        range_ms, settled_ms, moving_ms = measure(members, partitions)
        print(f"{members:>8} {partitions:>10} {range_ms:>9.2f} {settled_ms:>15.2f} {moving_ms:>16.2f}")


if __name__ == "__main__":
    main()
