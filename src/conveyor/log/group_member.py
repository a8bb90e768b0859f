"""The client side of group membership: join, sync, heartbeat and rejoin, so callers only supply callbacks.

``poll()`` (called from the owner's loop, like Kafka's ``WorkerGroupMember.poll``) joins when needed and
runs the callbacks in the caller's thread; a background thread heartbeats between polls and flags a
rejoin when the coordinator announces a rebalance, which the next ``poll()`` carries out.

A coordinator that cannot be reached is retried with backoff inside ``ensure_active`` (Kafka's member
does not give up either). Membership follows the owner: if it has not polled within the rebalance
timeout, the heartbeat thread leaves the group, as Kafka's does when ``max.poll.interval.ms`` or
``rebalance.timeout.ms`` passes, and tells the owner through ``on_left``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from conveyor.log.api import GroupCoordinator, GroupMembership, JoinResult
from conveyor.log.errors import (
    CoordinatorUnavailableError,
    IllegalGenerationError,
    RebalanceInProgressError,
    UnknownMemberIdError,
)

logger = logging.getLogger(__name__)

RETRY_BACKOFF_S = 0.1
RETRY_BACKOFF_MAX_S = 1.0
"""Between attempts to reach an unavailable coordinator (Kafka's ``retry.backoff.ms`` and
``retry.backoff.max.ms``): short, so that a member is back soon after the cluster is."""


@dataclass(frozen=True, slots=True)
class Assignment(GroupMembership):
    """What a member was given in a completed rebalance."""

    data: bytes


Assignor = Callable[[JoinResult], Mapping[str, bytes]]
"""Run on the leader: from the join result (with every member's metadata) to each member's assignment."""


class GroupMember:
    """One member of a group, kept in the group by a heartbeat thread.

    ``on_left`` is called on the heartbeat thread when the member is out of the group while its owner is
    not polling (it left for want of polls, or the coordinator evicted it): the work it held may go to
    others any moment, so the owner stops it without waiting for its next poll.
    """

    def __init__(
        self,
        coordinator: GroupCoordinator,
        group_id: str,
        protocol_type: str,
        protocols: Callable[[], Sequence[tuple[str, bytes]]],
        assignor: Assignor,
        on_assigned: Callable[[Assignment], None],
        on_revoked: Callable[[Assignment], None] | None = None,
        on_lost: Callable[[Assignment], None] | None = None,
        on_left: Callable[[Assignment], None] | None = None,
        session_timeout_ms: int = 10_000,
        rebalance_timeout_ms: int = 60_000,
        heartbeat_interval_ms: int = 3_000,
    ) -> None:
        self._coordinator = coordinator
        self.group_id = group_id
        self._protocol_type = protocol_type
        self._protocols = protocols
        self._assignor = assignor
        self._on_assigned = on_assigned
        self._on_revoked = on_revoked
        self._on_lost = on_lost
        self._on_left = on_left
        self._lost = False
        self._last_poll = time.monotonic()
        self._backoff_s = 0.0
        self._next_attempt = 0.0
        self._unavailable_since: float | None = None
        self._session_timeout_ms = session_timeout_ms
        self._rebalance_timeout_ms = rebalance_timeout_ms
        self._heartbeat_interval_s = heartbeat_interval_ms / 1000
        self._member_id: str | None = None
        self._assignment: Assignment | None = None
        self._rejoin_needed = threading.Event()
        self._rejoin_needed.set()
        self._signal = threading.Event()
        """Set by a rejoin request or a wakeup: ends the wait in ``poll()``."""
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._heartbeat_thread: threading.Thread | None = None

    @property
    def member_id(self) -> str | None:
        return self._member_id

    @property
    def assignment(self) -> Assignment | None:
        """The assignment of the current generation, None before the first and during a rebalance."""
        return self._assignment

    def request_rejoin(self) -> None:
        """Ask for a rebalance at the next ``poll()`` (e.g. after the leader saw new work to assign)."""
        self._rejoin_needed.set()
        self._signal.set()

    def wakeup(self) -> None:
        """End a ``poll()`` that is waiting, from any thread (as Kafka's ``WorkerGroupMember.wakeup``)."""
        self._signal.set()

    def poll(self, timeout: float) -> bool:
        """Rejoin if needed, then wait up to ``timeout`` seconds, until a rebalance is announced or until
        ``wakeup()``; True if the member holds an assignment (as ``ensure_active``)."""
        if not self.ensure_active():
            return False
        self._signal.wait(timeout)
        self._signal.clear()
        return self.ensure_active()

    def leave(self) -> None:
        """Leave the group but stay usable: the next ``poll()`` or ``ensure_active()`` joins as a new member
        (Kafka's ``maybeLeaveGroup``, used by a worker that cannot catch up with the config topic)."""
        with self._lock:
            member_id, self._member_id = self._member_id, None
            self._assignment = None
        if member_id is not None:
            self._leave_quietly(member_id)
        self._rejoin_needed.set()

    def ensure_active(self) -> bool:
        """Block until this member holds an assignment of the group's current generation; True once it
        does. False if ``wakeup()`` ended a wait between attempts to reach an unavailable coordinator (the
        owner checks what woke it and calls again), or once the member is closed."""
        self._last_poll = time.monotonic()
        while self._rejoin_needed.is_set() and not self._stopping.is_set():
            if not self._wait_for_next_attempt():
                return False
            self._rejoin_needed.clear()
            previous = self._assignment
            if previous is not None:
                # Heartbeats go on for `previous` while the callbacks run (stopping work can take a
                # while), so that the coordinator does not evict this member before it rejoins.
                lost, self._lost = self._lost, False
                if lost and self._on_lost is not None:
                    self._on_lost(previous)
                elif self._on_revoked is not None:
                    self._on_revoked(previous)
                with self._lock:
                    self._assignment = None
            self._last_poll = time.monotonic()
            try:
                assignment = self._join_and_sync()
            except UnknownMemberIdError:
                self._member_id = None
                self._rejoin_needed.set()
                continue
            except (RebalanceInProgressError, IllegalGenerationError):
                self._rejoin_needed.set()
                continue
            except CoordinatorUnavailableError as error:
                self._rejoin_needed.set()
                self._back_off(error)
                continue
            self._reached()
            with self._lock:
                self._assignment = assignment
                self._lost = False
            self._last_poll = time.monotonic()
            self._start_heartbeats()
            self._on_assigned(assignment)
        return self._assignment is not None and not self._stopping.is_set()

    def _wait_for_next_attempt(self) -> bool:
        """Wait out the backoff after a failed attempt; False if woken up meanwhile."""
        remaining = self._next_attempt - time.monotonic()
        if remaining <= 0:
            return True
        woken = self._signal.wait(remaining)
        self._last_poll = time.monotonic()
        if woken:
            self._signal.clear()
            return False
        return True

    def _back_off(self, error: CoordinatorUnavailableError) -> None:
        now = time.monotonic()
        if self._unavailable_since is None:
            self._unavailable_since = now
            logger.warning(
                "The coordinator of group %s is unavailable; retrying until it answers: %s",
                self.group_id,
                error,
            )
        else:
            logger.debug("The coordinator of group %s is still unavailable: %s", self.group_id, error)
        self._backoff_s = min(max(self._backoff_s * 2, RETRY_BACKOFF_S), RETRY_BACKOFF_MAX_S)
        self._next_attempt = now + self._backoff_s

    def _reached(self) -> None:
        if self._unavailable_since is not None:
            logger.info(
                "The coordinator of group %s answers again after %.0f s",
                self.group_id,
                time.monotonic() - self._unavailable_since,
            )
        self._unavailable_since = None
        self._backoff_s = 0.0
        self._next_attempt = 0.0

    def close(self) -> None:
        """Stop heartbeating and leave the group, so the others rebalance at once."""
        self._stopping.set()
        self.request_rejoin()
        if self._heartbeat_thread is not None:
            self._heartbeat_thread.join()
        if self._member_id is not None:
            self._leave_quietly(self._member_id)
        self._member_id = None
        self._assignment = None

    def _leave_quietly(self, member_id: str) -> None:
        """Leave the group; if the coordinator cannot be reached, the session timeout removes the member."""
        try:
            self._coordinator.leave_group(self.group_id, member_id)
        except UnknownMemberIdError:
            pass
        except CoordinatorUnavailableError as error:
            logger.warning(
                "Could not leave group %s; it drops this member when its session ends: %s",
                self.group_id,
                error,
            )

    def _join_and_sync(self) -> Assignment:
        joined = self._coordinator.join_group(
            self.group_id,
            self._member_id,
            self._protocol_type,
            self._protocols(),
            self._session_timeout_ms,
            self._rebalance_timeout_ms,
        )
        self._member_id = joined.member_id
        assignments = self._assignor(joined) if joined.is_leader else None
        data = self._coordinator.sync_group(self.group_id, joined.generation, joined.member_id, assignments)
        return Assignment(joined.generation, joined.member_id, joined.leader_id, joined.protocol, data)

    def _start_heartbeats(self) -> None:
        if self._heartbeat_thread is None:
            self._heartbeat_thread = threading.Thread(
                target=self._heartbeat_loop, name=f"heartbeat-{self.group_id}", daemon=True
            )
            self._heartbeat_thread.start()

    def _heartbeat_loop(self) -> None:
        while not self._stopping.wait(self._heartbeat_interval_s):
            with self._lock:
                assignment, lost = self._assignment, self._lost
            if assignment is None or lost:
                continue
            if time.monotonic() - self._last_poll > self._rebalance_timeout_ms / 1000:
                self._leave_for_want_of_polls(assignment)
                continue
            try:
                self._coordinator.heartbeat(self.group_id, assignment.generation, assignment.member_id)
            except RebalanceInProgressError:
                self.request_rejoin()
            except (IllegalGenerationError, UnknownMemberIdError):
                self._lose_assignment(assignment)
            except Exception:
                logger.exception("Heartbeat of group %s failed; rejoining", self.group_id)
                self.request_rejoin()

    def _lose_assignment(self, assignment: Assignment) -> None:
        """The group moved on without this member (evicted, or a generation it missed): what it held
        may be owned by others already, so the next rejoin reports it lost rather than revoked. A reply
        about an assignment this member no longer holds (it rejoined meanwhile) is moot."""
        with self._lock:
            if self._assignment is not assignment:
                return
            self._lost = True
        self.request_rejoin()
        if self._on_left is not None:
            self._on_left(assignment)

    def _leave_for_want_of_polls(self, assignment: Assignment) -> None:
        """The owner has not polled within the rebalance timeout (it is stuck): leave, so that the group
        hands its work to others now rather than wait on it (Kafka's poll timer)."""
        logger.warning(
            "Leaving group %s: its member was not polled within rebalance.timeout.ms (%d ms), so its owner "
            "is stuck; the work it holds goes to the other members",
            self.group_id,
            self._rebalance_timeout_ms,
        )
        with self._lock:
            if self._assignment is not assignment:
                return
            self._lost = True
            member_id, self._member_id = self._member_id, None
        if member_id is not None:
            self._leave_quietly(member_id)
        self.request_rejoin()
        if self._on_left is not None:
            self._on_left(assignment)
