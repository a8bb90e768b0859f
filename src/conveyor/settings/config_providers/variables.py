"""``${provider:path:key}`` variables in config values: finding, resolving and restoring them.

The syntax is Kafka's ``ConfigTransformer``: the path is optional (``${env:VAR}`` and ``${env::VAR}``
name the same variable). A variable whose provider is not configured, or whose key the provider does
not know, is left as written.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.api.config_provider import ConfigProvider

VARIABLE = re.compile(r"\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}")


@dataclass(frozen=True)
class Variable:
    provider: str
    path: str
    key: str


def variables_in(value: str) -> list[Variable]:
    return [Variable(m.group(1), m.group(2) or "", m.group(3)) for m in VARIABLE.finditer(value)]


def has_variables(value: str) -> bool:
    return VARIABLE.search(value) is not None


def transform(config: Mapping[str, str], providers: Mapping[str, ConfigProvider]) -> dict[str, str]:
    """``config`` with every variable of a configured provider replaced by the value it names."""
    wanted: dict[tuple[str, str], set[str]] = defaultdict(set)
    for value in config.values():
        for variable in variables_in(value):
            if variable.provider in providers:
                wanted[(variable.provider, variable.path)].add(variable.key)
    if not wanted:
        return dict(config)
    found = {
        (name, path): providers[name].get(path, frozenset(keys)).data for (name, path), keys in wanted.items()
    }

    def replace(match: re.Match[str]) -> str:
        values = found.get((match.group(1), match.group(2) or ""), {})
        return values.get(match.group(3), match.group(0))

    return {key: VARIABLE.sub(replace, value) for key, value in config.items()}


def reverse_transform(resolved: Mapping[str, str], raw: Mapping[str, str]) -> dict[str, str]:
    """``resolved`` (a task config a connector built from its resolved config) with every key whose raw
    connector config value holds a variable set back to that raw value, as Kafka's
    ``AbstractHerder.reverseTransform`` does, so that no secret is stored."""
    return {
        key: raw[key] if key in raw and has_variables(raw[key]) else value for key, value in resolved.items()
    }
