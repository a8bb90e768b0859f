"""`conveyor apply`'s plan: what to create, change, leave and (with prune) delete so that a cluster holds
the connectors of a set of files, and carrying it out over the REST API.

A plan compares what files say with what the cluster answers: the config (with `name`) key by key, and
the state the connector is asked to be in. Offsets in a file are where a connector starts when the
plan creates it (KIP-995); a connector that exists keeps its position. Running a plan twice changes
nothing the second time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.cli.connector_files import ConnectorFile
from conveyor.cli.rest_client import ConnectRestClient, RestError

HIDDEN = "[hidden]"
_SECRET_NAME = re.compile(r"password|secret|token|credential|jaas|\.key$|private", re.IGNORECASE)

#: The state a connector's status shows, as the state it is asked to be in (a FAILED connector is still
#: asked to run).
_REQUESTED_STATE = {"PAUSED": "paused", "STOPPED": "stopped"}


@dataclass(frozen=True)
class KeyChange:
    """One config key whose value differs: ``before`` None when added, ``after`` None when removed."""

    key: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Change:
    """A connector the files change: its config keys and, if it differs, its state."""

    desired: ConnectorFile
    keys: list[KeyChange]
    state_before: str


@dataclass
class Plan:
    creates: list[ConnectorFile] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)

    @property
    def drift(self) -> bool:
        """Whether the cluster differs from the files."""
        return bool(self.creates or self.changes or self.deletes)


def make_plan(desired: list[ConnectorFile], actual: Mapping[str, Any], prune: bool) -> Plan:
    """The plan from files (``desired``) and ``GET /connectors?expand=status&expand=info`` (``actual``)."""
    plan = Plan()
    for wanted in desired:
        current = actual.get(wanted.name)
        if current is None:
            plan.creates.append(wanted)
            continue
        config = current.get("info", {}).get("config", {})
        keys = config_changes(config, {**wanted.config, "name": wanted.name})
        state = requested_state(current.get("status", {}))
        if keys or state != wanted.state:
            plan.changes.append(Change(wanted, keys, state))
        else:
            plan.unchanged.append(wanted.name)
    if prune:
        named = {wanted.name for wanted in desired}
        plan.deletes = sorted(name for name in actual if name not in named)
    return plan


def config_changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[KeyChange]:
    return [
        KeyChange(key, before.get(key), after.get(key))
        for key in sorted(before.keys() | after.keys())
        if before.get(key) != after.get(key)
    ]


def requested_state(status: Mapping[str, Any]) -> str:
    return _REQUESTED_STATE.get(str(status.get("connector", {}).get("state", "")), "running")


def secret_keys(client: ConnectRestClient, config: Mapping[str, str]) -> set[str]:
    """The keys of ``config`` whose values a diff must hide: PASSWORD keys by the plugin's own config
    definition (asked of the worker), and any key whose name says it holds a secret."""
    named = {key for key in config if _SECRET_NAME.search(key)}
    try:
        definitions = client.validate(config)
    except RestError:
        return named
    return named | {
        entry["definition"]["name"]
        for entry in definitions.get("configs", [])
        if entry.get("definition", {}).get("type") == "PASSWORD"
    }


def shown(value: str | None, secret: bool) -> str:
    if value is None:
        return "(unset)"
    return HIDDEN if secret else value


@dataclass(frozen=True)
class Step:
    """One REST call of a plan, described for people."""

    describe: str
    run: Callable[[], object]


def steps(plan: Plan, client: ConnectRestClient) -> list[Step]:
    """The calls that carry a plan out, in order: creates, config changes and state moves, deletes."""
    calls: list[Step] = []
    for wanted in plan.creates:
        calls.append(
            Step(
                f"create {wanted.name} ({wanted.state})",
                _bind(client.create, wanted.name, wanted.config, wanted.state.upper(), wanted.offsets),
            )
        )
    for change in plan.changes:
        wanted = change.desired
        if change.keys:
            calls.append(
                Step(
                    f"update the config of {wanted.name}",
                    _bind(client.put_config, wanted.name, wanted.config),
                )
            )
        if change.state_before != wanted.state:
            move = {"running": client.resume, "paused": client.pause, "stopped": client.stop}[wanted.state]
            calls.append(Step(f"move {wanted.name} to {wanted.state}", _bind(move, wanted.name)))
    for name in plan.deletes:
        calls.append(Step(f"delete {name}", _bind(client.delete, name)))
    return calls


def _bind(function: Callable[..., object], *arguments: object) -> Callable[[], object]:
    return lambda: function(*arguments)
