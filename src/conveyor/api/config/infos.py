"""The validate response (Kafka's ``ConfigInfos``) built from key definitions and validated values.

Shape, as ``PUT /connector-plugins/{plugin}/config/validate`` returns it::

    {"name": ..., "error_count": N, "groups": [...],
     "configs": [{"definition": {name, type, required, default_value, importance, documentation, group,
                                 order, width, display_name, dependents},
                  "value": {name, value, recommended_values, errors, visible}}]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conveyor.api.config.parsing import to_config_string
from conveyor.api.config.types import ConfigType
from conveyor.api.config.values import ConfigValue

if TYPE_CHECKING:
    from conveyor.api.config.definition import ConfigKey


def config_infos(
    name: str,
    keys: Mapping[str, ConfigKey],
    config_values: Iterable[ConfigValue],
    groups: Sequence[str],
) -> dict[str, Any]:
    """Every defined key with its value (in definition order), then values that have no definition."""
    values = {value.name: value for value in config_values}
    configs: list[dict[str, Any]] = []
    for key_name, key in keys.items():
        value = values.get(key_name)
        configs.append(
            {
                "definition": config_key_info(key),
                "value": None if value is None else config_value_info(value, key.type),
            }
        )
    configs.extend(
        {"definition": None, "value": config_value_info(value, None)}
        for value_name, value in values.items()
        if value_name not in keys
    )
    return {
        "name": name,
        "error_count": sum(len(value.errors) for value in values.values()),
        "groups": list(groups),
        "configs": configs,
    }


def config_key_info(key: ConfigKey) -> dict[str, Any]:
    """One key's ``definition`` object."""
    return {
        "name": key.name,
        "type": key.type.value,
        "required": not key.has_default,
        "default_value": to_config_string(key.default, key.type) if key.has_default else None,
        "importance": key.importance.value,
        "documentation": key.documentation,
        "group": key.group,
        "order": key.order_in_group,
        "width": key.width.value,
        "display_name": key.display_name,
        "dependents": list(key.dependents),
    }


def config_value_info(value: ConfigValue, config_type: ConfigType | None) -> dict[str, Any]:
    """One key's ``value`` object; a password's value is ``[hidden]``."""
    return {
        "name": value.name,
        "value": to_config_string(value.value, config_type),
        "recommended_values": [to_config_string(v, config_type) for v in value.recommended_values],
        "errors": list(value.errors),
        "visible": value.visible,
    }
