"""The ``task.class`` a task config names: Kafka's Java name for a shipped task, a Python path otherwise.

Kafka Connect and Conveyor workers of one group read each other's task configs, so a task that has a
Java counterpart is written under the Java name, and both forms are read back.
"""

from __future__ import annotations

from conveyor.api.config import import_dotted_class
from conveyor.connectors.registry import BUILTIN_TASKS

_JAVA_NAMES = {path: java_name for java_name, path in BUILTIN_TASKS.items()}


def task_class_name(task_class: type) -> str:
    """The name written in ``task.class`` for ``task_class``."""
    path = f"{task_class.__module__}:{task_class.__qualname__}"
    return _JAVA_NAMES.get(path, path)


def load_task_class(name: str) -> type:
    """The task class a ``task.class`` value names (a Java name of a shipped task, or a Python path)."""
    return import_dotted_class(BUILTIN_TASKS.get(name, name))
