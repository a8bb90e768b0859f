"""How the Kafka log waits for a decided transaction's markers: it asks the coordinator for the id's
state until the transaction is no longer between its decision and its markers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conveyor.log.kafka import transaction_states
from conveyor.log.kafka.coordinators import Coordinators

UNREACHED = Coordinators.__new__(Coordinators)
"""Coordinators the wait never talks to: each test scripts the coordinator's answers."""


def answering(monkeypatch: pytest.MonkeyPatch, states: list[str]) -> list[str]:
    """Make the coordinator answer ``states`` in turn; the returned list records each look."""
    looks: list[str] = []
    answers: Iterator[str] = iter(states)

    def state(coordinators: Coordinators, transactional_id: str) -> str:
        looks.append(transactional_id)
        return next(answers)

    monkeypatch.setattr(transaction_states, "transaction_state", state)
    return looks


def test_markers_written_by_the_first_look_end_the_wait_after_one_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looks = answering(monkeypatch, ["CompleteCommit"])
    transaction_states.wait_until_completed(UNREACHED, "txn", decided_at=0.0)
    assert looks == ["txn"]


def test_markers_still_on_their_way_are_looked_for_until_written(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = answering(monkeypatch, ["PrepareCommit", "PrepareAbort", "CompleteAbort"])
    transaction_states.wait_until_completed(UNREACHED, "txn", decided_at=0.0)
    assert len(looks) == 3
