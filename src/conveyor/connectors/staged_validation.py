"""A connector's ``validate`` in two stages: each key on its own, then the checks that need them all."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from conveyor.api import ConfigDef, ConfigValue

SettingsCheck = Callable[[Mapping[str, str]], Mapping[str, Sequence[str]]]
"""The errors of a config whose every key is valid on its own, by the key the user should change."""


def validate_in_stages(
    definition: ConfigDef, connector_configs: Mapping[str, str], check: SettingsCheck
) -> list[ConfigValue]:
    """``definition``'s check of each key; only when no key fails, ``check``'s errors on the keys they name
    (parsing the keys together, or asking an external system, is pointless over a bad key)."""
    values = definition.validate(connector_configs)
    if any(value.errors for value in values):
        return values
    by_name = {value.name: value for value in values}
    for key, messages in check(connector_configs).items():
        by_name[key].errors.extend(messages)
    return values
