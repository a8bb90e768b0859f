"""Why a distributed herder sends a request elsewhere or refuses it for now (Kafka's herder exceptions).

The REST API forwards a `RequestTargetError` to its `url` (Kafka's `RequestTargetException`) and answers
a `RebalanceNeededError` with 409, as Kafka Connect's `HerderRequestHandler` does.
"""

from __future__ import annotations

from conveyor.errors import ConnectError

REBALANCE_NEEDED = "Request cannot be completed because a rebalance is expected"
NO_LEADER = (
    "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway."
)


class RequestTargetError(ConnectError):
    """The request must be served by another worker, at `url` (None while no leader is known)."""

    def __init__(self, message: str, url: str | None) -> None:
        super().__init__(message)
        self.url = url


class NotLeaderError(RequestTargetError):
    """Only the group's leader may serve the request (Kafka's `NotLeaderException`)."""


class NotAssignedError(RequestTargetError):
    """The connector or task runs on another worker (Kafka's `NotAssignedException`)."""


class RebalanceNeededError(ConnectError):
    """The worker knows a rebalance is coming and will not act on a stale assignment (REST 409)."""

    def __init__(self, message: str = REBALANCE_NEEDED) -> None:
        super().__init__(message)


class ConflictError(ConnectError):
    """A request that lost a race with another change, such as fencing overtaken by new task configs (409)."""
