"""Just enough of Kafka's binary protocol for group membership and transaction states: framing, the
primitive types (and the compact ones of flexible versions), one connection per request in flight
(JoinGroup and SyncGroup block at the broker)."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from conveyor.log.errors import LogError


class Writer:
    """Builds a request body from Kafka's primitive types (non-flexible versions)."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def int8(self, value: int) -> Writer:
        self._parts.append(struct.pack(">b", value))
        return self

    def int16(self, value: int) -> Writer:
        self._parts.append(struct.pack(">h", value))
        return self

    def int32(self, value: int) -> Writer:
        self._parts.append(struct.pack(">i", value))
        return self

    def string(self, value: str | None) -> Writer:
        if value is None:
            return self.int16(-1)
        encoded = value.encode()
        self.int16(len(encoded))
        self._parts.append(encoded)
        return self

    def bytes_(self, value: bytes | None) -> Writer:
        if value is None:
            return self.int32(-1)
        self.int32(len(value))
        self._parts.append(value)
        return self

    def array(self, items: Sequence[object], write: Callable[[Writer, object], object]) -> Writer:
        self.int32(len(items))
        for item in items:
            write(self, item)
        return self

    def uvarint(self, value: int) -> Writer:
        out = bytearray()
        while value >= 0x80:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
        self._parts.append(bytes(out))
        return self

    def compact_string(self, value: str) -> Writer:
        encoded = value.encode()
        self.uvarint(len(encoded) + 1)
        self._parts.append(encoded)
        return self

    def compact_array(self, items: Sequence[object], write: Callable[[Writer, object], object]) -> Writer:
        self.uvarint(len(items) + 1)
        for item in items:
            write(self, item)
        return self

    def no_tagged_fields(self) -> Writer:
        return self.uvarint(0)

    def build(self) -> bytes:
        return b"".join(self._parts)


class Reader:
    """Reads a response body written with Kafka's primitive types."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def _unpack(self, fmt: str, size: int) -> int:
        (value,) = struct.unpack_from(fmt, self._data, self._at)
        self._at += size
        return int(value)

    def int8(self) -> int:
        return self._unpack(">b", 1)

    def int16(self) -> int:
        return self._unpack(">h", 2)

    def int32(self) -> int:
        return self._unpack(">i", 4)

    def string(self) -> str | None:
        length = self.int16()
        if length < 0:
            return None
        value = self._data[self._at : self._at + length].decode()
        self._at += length
        return value

    def bytes_(self) -> bytes | None:
        length = self.int32()
        if length < 0:
            return None
        value = self._data[self._at : self._at + length]
        self._at += length
        return value

    def int64(self) -> int:
        return self._unpack(">q", 8)

    def count(self) -> int:
        return max(self.int32(), 0)

    def uvarint(self) -> int:
        value, shift = 0, 0
        while True:
            byte = self._data[self._at]
            self._at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def compact_string(self) -> str | None:
        length = self.uvarint() - 1
        if length < 0:
            return None
        value = self._data[self._at : self._at + length].decode()
        self._at += length
        return value

    def compact_count(self) -> int:
        return max(self.uvarint() - 1, 0)

    def skip_tagged_fields(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self._at += self.uvarint()

    def peek_error_code(self) -> int:
        """The error code after the throttle time that starts the responses read here, left unread."""
        (value,) = struct.unpack_from(">h", self._data, self._at + 4)
        return int(value)


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int


class Connection:
    """One TCP connection to one broker (over TLS with an ``ssl_context``), used by one request at a time."""

    def __init__(
        self, address: Address, client_id: str, timeout_s: float, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        self.address = address
        self._client_id = client_id
        plain = socket.create_connection((address.host, address.port), timeout=timeout_s)
        try:
            self._socket = (
                plain if ssl_context is None else ssl_context.wrap_socket(plain, server_hostname=address.host)
            )
        except ssl.SSLError as error:
            plain.close()
            raise LogError(
                f"TLS handshake with broker {address.host}:{address.port} failed: {error}"
            ) from error
        except BaseException:
            plain.close()
            raise
        self._correlation = 0

    def request(self, api_key: int, version: int, body: bytes, timeout_s: float, flexible: bool) -> Reader:
        """Send one request and read its answer; ``flexible`` versions carry tagged fields in the headers."""
        self._correlation += 1
        header = Writer().int16(api_key).int16(version).int32(self._correlation).string(self._client_id)
        if flexible:
            header.no_tagged_fields()
        payload = header.build() + body
        self._socket.settimeout(timeout_s)
        self._socket.sendall(struct.pack(">i", len(payload)) + payload)
        (size,) = struct.unpack(">i", self._receive(4))
        reader = Reader(self._receive(size))
        if reader.int32() != self._correlation:
            raise LogError(f"Broker {self.address} answered another request")
        if flexible:
            reader.skip_tagged_fields()
        return reader

    def close(self) -> None:
        self._socket.close()

    def _receive(self, size: int) -> bytes:
        chunks: list[bytes] = []
        while size:
            chunk = self._socket.recv(size)
            if not chunk:
                raise ConnectionError(f"Broker {self.address} closed the connection")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)


#: What a new connection does before its first request (SASL authentication), given the connection.
Greeting = Callable[[Connection], None]


class ConnectionPool:
    """Idle connections per broker; a request takes one (or opens one) and gives it back when answered."""

    def __init__(
        self,
        client_id: str,
        connect_timeout_s: float,
        ssl_context: ssl.SSLContext | None = None,
        greeting: Greeting | None = None,
    ) -> None:
        self._client_id = client_id
        self._connect_timeout_s = connect_timeout_s
        self._ssl_context = ssl_context
        self._greeting = greeting
        self._idle: dict[Address, list[Connection]] = {}
        self._lock = threading.Lock()

    def request(
        self,
        address: Address,
        api_key: int,
        version: int,
        body: bytes,
        timeout_s: float,
        flexible: bool = False,
    ) -> Reader:
        with self._lock:
            idle = self._idle.setdefault(address, [])
            connection = idle.pop() if idle else None
        if connection is None:
            connection = self._connect(address)
        try:
            reader = connection.request(api_key, version, body, timeout_s, flexible)
        except BaseException:
            connection.close()
            raise
        with self._lock:
            self._idle.setdefault(address, []).append(connection)
        return reader

    def _connect(self, address: Address) -> Connection:
        connection = Connection(address, self._client_id, self._connect_timeout_s, self._ssl_context)
        if self._greeting is not None:
            try:
                self._greeting(connection)
            except BaseException:
                connection.close()
                raise
        return connection

    def close(self) -> None:
        with self._lock:
            connections = [c for idle in self._idle.values() for c in idle]
            self._idle.clear()
        for connection in connections:
            connection.close()
