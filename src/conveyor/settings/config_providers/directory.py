"""``DirectoryConfigProvider`` (KIP-632): ``${dir:/path/to/dir:filename}`` is the content of that file."""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path

from conveyor.api.config_provider import ConfigData
from conveyor.api.errors import ConfigError
from conveyor.settings.config_providers.allowed_paths import PathConfigProvider


class DirectoryConfigProvider(PathConfigProvider):
    """Kafka's ``org.apache.kafka.common.config.provider.DirectoryConfigProvider``: each regular file
    of the directory is a key, its whole content the value (as mounted Kubernetes secrets are).

    With ``allowed.paths`` set, a file counts only if it really lies under those directories once its
    symlinks are resolved (see ``allowed_paths``): a link in an allowed directory that points out of it is
    not a key."""

    def get(self, path: str, keys: Set[str] | None = None) -> ConfigData:
        directory = Path(path)
        if not path or not directory.is_dir() or not self.allowed.permits(directory):
            return ConfigData()
        data: dict[str, str] = {}
        for file in directory.iterdir():
            if not file.is_file() or (keys is not None and file.name not in keys):
                continue
            try:
                text = self.allowed.read_text(file)
            except OSError as error:
                raise ConfigError(f"Could not read file {file}") from error
            if text is not None:
                data[file.name] = text
        return ConfigData(data)
