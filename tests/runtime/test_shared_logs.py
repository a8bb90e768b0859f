"""`SharedLogs`: the tasks of one process on one log URL open it once, and it closes after the last."""

from __future__ import annotations

from pathlib import Path

from conveyor.log import Log, open_log
from conveyor.runtime.shared_logs import SharedLogs


def test_two_tasks_on_one_url_get_one_log(tmp_path: Path) -> None:
    logs = SharedLogs()
    url = f"embedded:{tmp_path / 'log'}"
    with logs.open(url) as first, logs.open(url) as second:
        assert first is second
        assert logs.users(url) == 2


def test_tasks_on_different_urls_get_different_logs(tmp_path: Path) -> None:
    logs = SharedLogs()
    with logs.open(f"embedded:{tmp_path / 'a'}") as first, logs.open(f"embedded:{tmp_path / 'b'}") as second:
        assert first is not second


def test_the_log_stays_open_while_a_task_uses_it_and_closes_after_the_last(tmp_path: Path) -> None:
    closed: list[Log] = []

    def opener(url: str) -> Log:
        log = open_log(url)
        close = log.close

        def recorded_close() -> None:
            closed.append(log)
            close()

        log.close = recorded_close  # type: ignore[method-assign]
        return log

    logs = SharedLogs(opener)
    url = f"embedded:{tmp_path / 'log'}"
    with logs.open(url) as log:
        with logs.open(url):
            pass

        assert closed == []

    assert closed == [log] and logs.users(url) == 0


def test_a_url_opened_again_after_its_last_task_left_is_a_fresh_log(tmp_path: Path) -> None:
    logs = SharedLogs()
    url = f"embedded:{tmp_path / 'log'}"
    with logs.open(url) as first:
        pass
    with logs.open(url) as second:
        assert second is not first
        second.admin().create_topic("t", 1)
