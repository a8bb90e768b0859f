"""Which runtime can run which connector, in a group where Kafka Connect and Conveyor workers mix.

During a rolling move both runtimes share one group. A connector written in Python (one of Conveyor's
own without a Kafka name, or a Python plugin) cannot load on a Java worker, and a Java class Conveyor has
no implementation of cannot run on a Conveyor worker. A Conveyor leader keeps such work on members of the
runtime that can run it (``Placement``); a member is a Kafka Connect worker when it answers Conveyor's
internal worker view with 404.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from conveyor.herder.distributed.internal_client import InternalClient, InternalRequestError
from conveyor.plugins import listed_name, load_plugin_class
from conveyor.plugins.builtins import builtin_connectors, is_builtin
from conveyor.plugins.errors import InvalidPluginError, PluginNotFoundError

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 5.0


class Runtime(enum.Enum):
    CONVEYOR = "Conveyor"
    KAFKA_CONNECT = "Kafka Connect"


ALL_RUNTIMES = frozenset(Runtime)


def runtimes_of(connector_class: str) -> frozenset[Runtime]:
    """The runtimes that can run a connector of ``connector_class``: both for a class Kafka ships under
    the same name as Conveyor's, Conveyor alone for a Python one, Kafka Connect alone for a class
    Conveyor cannot load."""
    try:
        cls = load_plugin_class(connector_class)
    except (PluginNotFoundError, InvalidPluginError):
        return frozenset({Runtime.KAFKA_CONNECT})
    name = listed_name(cls)
    if is_builtin(cls) and "." in name and name in builtin_connectors():
        return ALL_RUNTIMES
    return frozenset({Runtime.CONVEYOR})


@dataclass
class MemberRuntimes:
    """The runtime of each member URL, asked once per URL; a member that cannot be asked counts as a
    Conveyor worker (nothing is held back from it)."""

    client: InternalClient
    own_url: str
    _known: dict[str, Runtime] = field(default_factory=dict)

    def of(self, url: str) -> Runtime:
        if url == self.own_url:
            return Runtime.CONVEYOR
        known = self._known.get(url)
        if known is not None:
            return known
        try:
            self.client.worker_view(url, PROBE_TIMEOUT_S)
            runtime = Runtime.CONVEYOR
        except InternalRequestError as error:
            if error.status != 404:
                logger.debug("Could not tell the runtime of worker %s: %s", url, error)
                return Runtime.CONVEYOR
            runtime = Runtime.KAFKA_CONNECT
        logger.info("Worker %s of the group is a %s worker", url, runtime.value)
        self._known[url] = runtime
        return runtime


@dataclass(frozen=True)
class Placement:
    """Per connector pinned to some members, the members that can run its work; every other connector's
    work may run anywhere. A connector no present member can run is not pinned (its status says why)."""

    allowed: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        member_runtimes: Mapping[str, Runtime],
        connector_classes: Iterable[tuple[str, str]],
        runtimes: Callable[[str], frozenset[Runtime]] = runtimes_of,
    ) -> Placement:
        """From each member's runtime and each (connector, connector class) configured."""
        if len(set(member_runtimes.values())) < 2:
            return cls()
        allowed: dict[str, frozenset[str]] = {}
        for connector, connector_class in connector_classes:
            able = runtimes(connector_class)
            members = frozenset(m for m, runtime in member_runtimes.items() if runtime in able)
            if members and len(members) < len(member_runtimes):
                allowed[connector] = members
        return cls(allowed)

    def pinned(self, connector: str) -> bool:
        return connector in self.allowed

    def can_run(self, member: str, connector: str) -> bool:
        members = self.allowed.get(connector)
        return members is None or member in members
