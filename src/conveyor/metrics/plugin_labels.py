"""The plugin classes and versions a task runs with, as Kafka 4.1's task metrics name them (KIP-891):
``task-class``, ``task-version`` and ``key-converter-class``/``-version``, ``value-converter-class``/
``-version``, ``header-converter-class``/``-version`` in ``connector-task-metrics``.

They are worked out on the worker from the task's configs, resolving each converter as its task does
(the connector's converter, pinned by ``*.plugin.version``, or else the worker's), and remembered per
config, since a scrape must not build plugins again.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.plugins import PluginKind, listed_name, load_plugin_class, plugin_version
from conveyor.plugins.catalog import dotted_path
from conveyor.plugins.task_classes import load_task_class

logger = logging.getLogger(__name__)

TASK_CLASS_CONFIG = "task.class"
WORKER_CONVERTER_KEYS = ("key.converter", "value.converter", "header.converter")
_CONVERTERS = (
    ("key.converter", PluginKind.CONVERTER),
    ("value.converter", PluginKind.CONVERTER),
    ("header.converter", PluginKind.HEADER_CONVERTER),
)


def task_plugin_labels(
    task_config: Mapping[str, str], converters_used: Mapping[str, tuple[str, str]]
) -> dict[str, str]:
    """The task's class and version and each converter's class and version (empty when unknown).

    ``converters_used`` maps ``key.converter``, ``value.converter`` and ``header.converter`` to the class
    the task uses and the version pinned for it ("" when none).
    """
    converters = tuple((key, *converters_used.get(key, ("", ""))) for key, _ in _CONVERTERS)
    return dict(_labels(task_config.get(TASK_CLASS_CONFIG, ""), converters))


@functools.lru_cache(maxsize=1024)
def _labels(task_class: str, converters: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, str], ...]:
    listed_class, version = _task_class_and_version(task_class)
    labels: list[tuple[str, str]] = [("task-class", listed_class), ("task-version", version)]
    for (key, class_name, version), (_, kind) in zip(converters, _CONVERTERS, strict=True):
        metric = key.replace(".", "-")
        try:
            cls = load_plugin_class(class_name, kind, version or None)
        except Exception:
            logger.debug("The %s of a task did not resolve", key, exc_info=True)
            labels += [(f"{metric}-class", class_name), (f"{metric}-version", "")]
            continue
        labels += [(f"{metric}-class", listed_name(cls)), (f"{metric}-version", plugin_version(cls))]
    return tuple(labels)


@dataclass(frozen=True)
class ChainPluginLabels:
    """One transformation or predicate of a task's chain: ``kind`` (``transform`` or ``predicate``) is
    the tag naming its ``alias``; ``values`` its ``<kind>-class`` and ``<kind>-version``."""

    kind: str
    alias: str
    values: dict[str, str]


def chain_plugin_labels(connector_config: Mapping[str, str]) -> tuple[ChainPluginLabels, ...]:
    """The class and version of each transformation and predicate a connector config lists."""
    relevant = tuple(
        sorted((k, v) for k, v in connector_config.items() if k.startswith(("transforms", "predicates")))
    )
    return _chain_labels(relevant)


@functools.lru_cache(maxsize=1024)
def _chain_labels(relevant: tuple[tuple[str, str], ...]) -> tuple[ChainPluginLabels, ...]:
    config = dict(relevant)
    found: list[ChainPluginLabels] = []
    for list_key, kind, plugin_kind in (
        ("transforms", "transform", PluginKind.TRANSFORMATION),
        ("predicates", "predicate", PluginKind.PREDICATE),
    ):
        for alias in dict.fromkeys(a.strip() for a in config.get(list_key, "").split(",") if a.strip()):
            class_name = config.get(f"{list_key}.{alias}.type", "")
            version = config.get(f"{list_key}.{alias}.plugin.version") or None
            try:
                cls = load_plugin_class(class_name, plugin_kind, version)
            except Exception:
                logger.debug("The %s %s of a task did not resolve", kind, alias, exc_info=True)
                values = {f"{kind}-class": class_name, f"{kind}-version": ""}
            else:
                values = {f"{kind}-class": listed_name(cls), f"{kind}-version": plugin_version(cls)}
            found.append(ChainPluginLabels(kind, alias, values))
    return tuple(found)


def _task_class_and_version(task_class: str) -> tuple[str, str]:
    """The task class as listed (a Java name as written, a Python path under its plugin's own module
    name, not the alias a second version of a plugin imports under) and its version."""
    try:
        cls = load_task_class(task_class)
    except Exception:
        logger.debug("Task class %s did not load", task_class, exc_info=True)
        return task_class, ""
    return (dotted_path(cls) if ":" in task_class else task_class), plugin_version(cls)
