"""Kafka's Java class names of the built-in converters, transforms and predicates resolve to Conveyor's."""

from __future__ import annotations

import pytest

from conveyor.plugins import PluginKind, load_plugin_class


def registry(module: str, name: str) -> dict[str, type]:
    """A package's BUILTIN_* table; skips while that package has not published it yet."""
    table = getattr(pytest.importorskip(module), name, None)
    if table is None:
        pytest.skip(f"{module}.{name} is not there yet")
    return dict(table)


def test_every_builtin_converter_resolves_under_its_java_name() -> None:
    converters = registry("conveyor.convert", "BUILTIN_CONVERTERS")
    java_packages = {
        "JsonConverter": "org.apache.kafka.connect.json",
        "StringConverter": "org.apache.kafka.connect.storage",
        "SimpleHeaderConverter": "org.apache.kafka.connect.storage",
    }
    for key, cls in converters.items():
        package = java_packages.get(key, "org.apache.kafka.connect.converters")
        assert load_plugin_class(f"{package}.{key}") is cls


def test_json_converter_resolves_as_a_converter() -> None:
    converters = registry("conveyor.convert", "BUILTIN_CONVERTERS")
    loaded = load_plugin_class("org.apache.kafka.connect.json.JsonConverter", PluginKind.CONVERTER)
    assert loaded is converters["JsonConverter"]


def test_every_builtin_transform_resolves_under_its_java_name() -> None:
    for key, cls in registry("conveyor.transforms", "BUILTIN_TRANSFORMS").items():
        loaded = load_plugin_class(f"org.apache.kafka.connect.transforms.{key}", PluginKind.TRANSFORMATION)
        assert loaded is cls


def test_every_builtin_predicate_resolves_under_its_java_name() -> None:
    for key, cls in registry("conveyor.transforms", "BUILTIN_PREDICATES").items():
        loaded = load_plugin_class(
            f"org.apache.kafka.connect.transforms.predicates.{key}", PluginKind.PREDICATE
        )
        assert loaded is cls
