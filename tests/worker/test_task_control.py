"""A task loop's side of its control: waking on a new target state, and reporting a new state at once."""

from __future__ import annotations

import threading

from conveyor.runtime.control import LocalTaskControl, StateReporter, TargetState

LONG_S = 3600.0


def test_waiting_wakes_as_soon_as_the_target_state_changes() -> None:
    control = LocalTaskControl()
    woke = threading.Event()
    waiter = threading.Thread(target=lambda: (control.wait(LONG_S), woke.set()), daemon=True)
    waiter.start()
    control.set_target_state(TargetState.PAUSED)
    assert woke.wait(10.0)


def test_waiting_returns_true_when_told_to_stop() -> None:
    control = LocalTaskControl()
    stopping: list[bool] = []
    waiter = threading.Thread(target=lambda: stopping.append(control.wait(LONG_S)), daemon=True)
    waiter.start()
    control.set_target_state(TargetState.STOPPED)
    waiter.join(10.0)
    assert stopping == [True]


def test_a_new_state_is_reported_at_once_despite_the_throttle() -> None:
    control = LocalTaskControl()
    report = StateReporter(control, interval_s=LONG_S)
    report(TargetState.STARTED, lambda: {"records": 1})
    report(TargetState.PAUSED, lambda: {"records": 2})
    assert control.metrics["state"] == "PAUSED"
    assert control.metrics["records"] == 2


def test_unchanged_state_is_reported_no_more_often_than_the_interval() -> None:
    control = LocalTaskControl()
    report = StateReporter(control, interval_s=LONG_S)
    report(TargetState.STARTED, lambda: {"records": 1})
    report(TargetState.STARTED, lambda: {"records": 2})
    assert control.metrics["records"] == 1
