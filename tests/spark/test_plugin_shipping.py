"""plugin.path plugins reach Spark executors: a connector that is installed nowhere runs there."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession
from tests.plugins.plugin_files import (
    connector_source,
    unique_module,
    write_module,
    write_package,
    write_wheel,
)

from conveyor.plugins.plugin_path import find_plugin_sources
from conveyor.spark.plugin_shipping import ship_plugins


def _on_an_executor(spark: SparkSession, modules: list[str], connectors: list[str]) -> list[str]:
    """The modules the executor resolves ``connectors`` to, after registering the shipped ``modules``."""

    def resolve(_: object) -> list[str]:
        from conveyor.plugins import load_plugin_class, use_shipped_plugins

        use_shipped_plugins(modules)
        return [load_plugin_class(name).__module__ for name in connectors]

    (resolved,) = spark.sparkContext.parallelize([0], 1).map(resolve).collect()
    return list(resolved)


def _importable_on_an_executor(spark: SparkSession, module: str) -> bool:
    def importable(_: object) -> bool:
        import importlib.util

        return importlib.util.find_spec(module) is not None

    (found,) = spark.sparkContext.parallelize([0], 1).map(importable).collect()
    return bool(found)


def test_modules_packages_and_wheels_of_the_plugin_path_are_shipped_to_executors(
    spark: SparkSession, tmp_path: Path
) -> None:
    module, package, wheel = unique_module("mod"), unique_module("pkg"), unique_module("whl")
    write_module(tmp_path / "plugins", module, connector_source("ShippedModuleConnector"))
    write_package(tmp_path / "plugins", package, {"__init__.py": connector_source("ShippedPackageConnector")})
    write_wheel(tmp_path / "wheels", wheel, connector_source("ShippedWheelConnector"))
    assert not _importable_on_an_executor(spark, module)

    sources, failures = find_plugin_sources([tmp_path / "plugins", tmp_path / "wheels"])
    ship_plugins(spark.sparkContext, sources)

    assert failures == []
    assert _on_an_executor(
        spark,
        [module, package, wheel],
        ["ShippedModuleConnector", "ShippedPackageConnector", "ShippedWheelConnector"],
    ) == [module, package, wheel]
