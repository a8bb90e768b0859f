"""A distributed worker is healthy once its tick thread serves requests, as Kafka's health check is one."""

from __future__ import annotations

import time
from pathlib import Path

from tests.herder.distributed.cluster import group_props, start_member


def test_a_leader_is_healthy_only_once_it_has_written_the_session_key(tmp_path: Path) -> None:
    member = start_member(group_props(tmp_path))
    try:
        deadline = time.monotonic() + 60
        while not member.herder.health().ready:
            assert time.monotonic() < deadline, "the worker never became healthy"

        assert member.herder.session_key() is not None
    finally:
        member.stop()
