"""Callbacks a config store fires while it reads new records (after its first read to the end)."""

from __future__ import annotations

from collections.abc import Callable

from conveyor.storage.config_records import RestartRequest, SessionKey


class ConfigUpdateListener:
    """Override the callbacks of interest; the others do nothing. Called on the thread that reads."""

    def on_connector_config_update(self, connector: str) -> None:
        """A connector's config was created or changed."""

    def on_connector_config_remove(self, connector: str) -> None:
        """A connector was deleted."""

    def on_task_configs_committed(self, connector: str, tasks: list[int]) -> None:
        """A commit record was read; ``tasks`` are the task numbers it applied (empty if inconsistent)."""

    def on_target_state_change(self, connector: str) -> None:
        """A configured connector's target state changed."""

    def on_restart_request(self, request: RestartRequest) -> None:
        """A restart was requested."""

    def on_session_key_update(self, session_key: SessionKey) -> None:
        """The leader distributed a new session key (KIP-507)."""


Notification = Callable[[ConfigUpdateListener], None]
