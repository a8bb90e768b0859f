"""The ``task.class`` a task config names: Kafka's Java name for a shipped task, a Python path otherwise.

Kafka Connect and Conveyor workers of one group read each other's task configs, so a task that has a
Java counterpart is written under the Java name, and both forms are read back.
"""

from __future__ import annotations

from conveyor.api.config import import_dotted_class
from conveyor.plugins.builtins import builtin_tasks


def task_class_name(task_class: type) -> str:
    """The name written in ``task.class`` for ``task_class``."""
    path = f"{task_class.__module__}:{task_class.__qualname__}"
    java_names = {task_path: java_name for java_name, task_path in builtin_tasks().items()}
    return java_names.get(path, path)


def load_task_class(name: str) -> type:
    """The task class a ``task.class`` value names (a Java name of a shipped task, or a Python path)."""
    return import_dotted_class(builtin_tasks().get(name, name))
