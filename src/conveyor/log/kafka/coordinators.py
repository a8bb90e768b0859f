"""Requests to the broker that coordinates a group or a transactional id, found with FindCoordinator."""

from __future__ import annotations

import ssl
import time
import uuid

from conveyor.log import errors
from conveyor.log.kafka.sasl import authenticate
from conveyor.log.kafka.security import WireSecurity
from conveyor.log.kafka.settings import KafkaSettings
from conveyor.log.kafka.wire import Address, Connection, ConnectionPool, Reader, Writer

FIND_COORDINATOR = 10
GROUP, TRANSACTION = 0, 1
REQUEST_S = 30.0
_RETRY_S = 30.0

#: COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: find it again and retry.
NOT_AVAILABLE = frozenset({14, 15, 16})


class _CoordinatorMoved(errors.LogError):
    """The broker asked is not (or not yet) the coordinator."""


class Coordinators:
    """Finds coordinators (and finds them again when they move) and sends them requests, secured and
    authenticated as the log's admin client is (``security.protocol``, ``ssl.*``, ``sasl.*``)."""

    def __init__(self, settings: KafkaSettings) -> None:
        self._bootstrap = [
            Address(host, int(port))
            for host, _, port in (server.rpartition(":") for server in settings.bootstrap_servers.split(","))
        ]
        security = WireSecurity.from_settings(settings.client_config("admin"))
        credentials = security.sasl
        greeting = None
        if credentials is not None:

            def greeting(connection: Connection) -> None:
                authenticate(
                    lambda key, version, body: connection.request(key, version, body, REQUEST_S, False),
                    credentials,
                )

        self._pool = ConnectionPool(
            f"conveyor-{uuid.uuid4().hex[:8]}", REQUEST_S, security.ssl_context, greeting
        )
        self._known: dict[tuple[str, int], Address] = {}

    def call(
        self,
        key: str,
        key_type: int,
        api_key: int,
        version: int,
        body: bytes,
        timeout_s: float = REQUEST_S,
        flexible: bool = False,
    ) -> Reader:
        """The coordinator's answer (error code unread), retrying while it is unknown, moving or loading."""
        deadline = time.monotonic() + _RETRY_S
        while True:
            try:
                address = self._coordinator(key, key_type)
                reader = self._pool.request(address, api_key, version, body, timeout_s, flexible)
                if not flexible and reader.peek_error_code() in NOT_AVAILABLE:
                    raise _CoordinatorMoved("the coordinator moved")
                return reader
            except (_CoordinatorMoved, OSError) as problem:
                self._known.pop((key, key_type), None)
                if time.monotonic() > deadline:
                    kind = (
                        errors.LogError
                        if isinstance(problem, ssl.SSLError)
                        else errors.CoordinatorUnavailableError
                    )
                    raise kind(f"No coordinator of {key} reachable ({problem})") from None
                time.sleep(0.1)

    def forget(self, key: str, key_type: int) -> None:
        self._known.pop((key, key_type), None)

    def close(self) -> None:
        self._pool.close()

    def _coordinator(self, key: str, key_type: int) -> Address:
        known = self._known.get((key, key_type))
        if known is not None:
            return known
        body = Writer().string(key).int8(key_type).build()
        problem: Exception | None = None
        for bootstrap in self._bootstrap:
            try:
                reader = self._pool.request(bootstrap, FIND_COORDINATOR, 1, body, REQUEST_S)
            except OSError as error:
                problem = error
                continue
            reader.int32()
            error_code = reader.int16()
            message = reader.string()
            reader.int32()
            host, port = reader.string() or "", reader.int32()
            if error_code in NOT_AVAILABLE:
                raise _CoordinatorMoved(f"coordinator not available yet (error {error_code})")
            if error_code:
                raise errors.LogError(f"Finding the coordinator of {key}: error {error_code} ({message})")
            address = Address(host, port)
            self._known[(key, key_type)] = address
            return address
        raise _CoordinatorMoved(f"no bootstrap server answered ({problem})")
