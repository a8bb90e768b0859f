"""The ``allowed.paths`` setting of the file and directory providers (KIP-993)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

ALLOWED_PATHS_CONFIG = "allowed.paths"


class AllowedPaths:
    """Directories a provider may read under; everything when the setting is empty or absent."""

    def __init__(self, configs: Mapping[str, str]) -> None:
        raw = configs.get(ALLOWED_PATHS_CONFIG, "")
        self.roots = [Path(p.strip()).resolve() for p in raw.split(",") if p.strip()]

    def permits(self, path: Path) -> bool:
        resolved = path.resolve()
        return not self.roots or any(resolved.is_relative_to(root) for root in self.roots)
