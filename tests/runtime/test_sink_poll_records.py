"""A sink task may declare how many records each poll should bring it (`SinkTask.max_poll_records`).

The consumer's `max.poll.records` defaults to what the task declares, or to 500; the connector's
`consumer.override.max.poll.records` still wins over the task's choice.
"""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.log import Log
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop

from .support import produce, running, task_spec, wait_until, worker_props
from .tasks import RecordingSinkTask

TOPIC = "in"
RECORDS = 2_000
DECLARED = 1_500


class LargePollsTask(RecordingSinkTask):
    """Records its puts, and asks for polls of the `poll.records` its config gives."""

    def max_poll_records(self, props: Mapping[str, str]) -> int | None:
        return int(props["poll.records"])


def put_sizes(log: Log, task: RecordingSinkTask, **config: str) -> list[int]:
    """The sizes of the puts that bring `task` every record of a topic written before it starts."""
    produce(log, TOPIC, [str(n).encode() for n in range(RECORDS)])
    control = LocalTaskControl()
    spec = task_spec({"topics": TOPIC, **config}, worker_props(log.url), kind="sink")
    with running(SinkTaskLoop(spec, control, log, task), control):
        wait_until(lambda: len(task.put_values()) == RECORDS, "every record put")
    return [len(event.values) for event in task.of("put")]


def test_a_sink_task_gets_polls_as_large_as_it_declares(log: Log) -> None:
    sizes = put_sizes(log, LargePollsTask(), **{"poll.records": str(DECLARED)})
    assert max(sizes) > 500
    assert max(sizes) <= DECLARED


def test_a_sink_task_that_declares_nothing_gets_polls_of_500_records(log: Log) -> None:
    sizes = put_sizes(log, RecordingSinkTask())
    assert max(sizes) <= 500


def test_the_connectors_consumer_override_wins_over_what_the_task_declares(log: Log) -> None:
    sizes = put_sizes(
        log,
        LargePollsTask(),
        **{"poll.records": str(DECLARED), "consumer.override.max.poll.records": "100"},
    )
    assert max(sizes) <= 100
