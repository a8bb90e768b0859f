"""The package layout drawn from imports: every arrow points down and none goes round (architecture.md)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "conveyor"

#: What each low package may import of Conveyor's other top-level packages and modules.
ALLOWED = {
    "data": {"errors"},
    "api": {"data", "errors", "positions"},
    "log": {"errors", "positions"},
    "plugins": {"api", "errors"},
}

#: Packages that must never import these others.
FORBIDDEN = {
    "runtime": {"rest", "herder", "cli", "spark", "connectors"},
    "rest": {"runtime", "cli", "spark", "connectors"},
    "cli": {"runtime"},
    "settings": {"runtime", "herder", "rest", "cli", "spark", "connectors"},
    "metrics": {"runtime", "herder", "rest", "cli", "spark", "connectors"},
    "pipeline": {"runtime", "herder", "rest", "cli", "spark", "connectors"},
}


def imports_between_packages() -> dict[str, dict[str, list[str]]]:
    """For each top-level package, the other top-level packages it imports and the files that do."""
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        package = relative.parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                parts = module.split(".")
                if parts[0] == "conveyor" and len(parts) > 1 and parts[1] != package:
                    edges[package][parts[1]].append(str(relative))
    return edges


EDGES = imports_between_packages()


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_low_package_imports_only_what_lies_below_it(package: str) -> None:
    beyond = {target: files for target, files in EDGES[package].items() if target not in ALLOWED[package]}
    assert beyond == {}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_never_imports_the_packages_above_it(package: str) -> None:
    upward = {target: files for target, files in EDGES[package].items() if target in FORBIDDEN[package]}
    assert upward == {}


def test_no_two_packages_import_each_other_even_through_others() -> None:
    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(EDGES[start])
        while todo:
            package = todo.pop()
            if package not in seen:
                seen.add(package)
                todo.extend(EDGES.get(package, {}))
        return seen

    circles = sorted(package for package in list(EDGES) if package in reachable(package))
    assert circles == []


def test_nothing_above_the_log_imports_one_of_its_backends() -> None:
    backends = ("conveyor.log.kafka", "conveyor.log.embedded")
    importers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "log":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            if any(name == b or name.startswith(b + ".") for name in names for b in backends):
                importers.append(str(path.relative_to(PACKAGE)))
    assert importers == []
