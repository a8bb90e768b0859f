"""How a CLASS config value written as a string becomes a class.

``conveyor.api`` only knows Python paths (``package.module:Class`` or ``package.module.Class``);
``conveyor.plugins`` installs a resolver that also knows plugin aliases and Kafka's Java class names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from conveyor.errors import NotFoundError

ClassResolver = Callable[[str], type]


class ClassNotFound(NotFoundError):
    """No class could be found under the given name."""


def import_dotted_class(path: str) -> type:
    """Import the class at ``package.module:Class`` or ``package.module.Class``."""
    module_name, separator, qualname = path.partition(":")
    if not separator:
        module_name, _, qualname = path.rpartition(".")
    if not module_name or not qualname:
        raise ClassNotFound(path)
    try:
        target: object = importlib.import_module(module_name)
    except ImportError as error:
        raise ClassNotFound(path) from error
    for attribute in qualname.split("."):
        try:
            target = getattr(target, attribute)
        except AttributeError as error:
            raise ClassNotFound(path) from error
    if not isinstance(target, type):
        raise ClassNotFound(path)
    return target


_resolver: ClassResolver = import_dotted_class


def use_class_resolver(resolver: ClassResolver) -> None:
    """Make CLASS values resolve through ``resolver`` (which raises on an unknown name)."""
    global _resolver
    _resolver = resolver


def resolve_class(name: str) -> type:
    """The class a CLASS config value names; raises :class:`ClassNotFound` or the resolver's error."""
    return _resolver(name)


def class_name(cls: type) -> str:
    """The name a CLASS value shows in responses: the class's importable dotted path."""
    return f"{cls.__module__}.{cls.__qualname__}"
