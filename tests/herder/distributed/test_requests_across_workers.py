"""REST requests in a group: forwarding to the leader or a task's owner, hop limits, internal endpoints."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.herder.distributed.cluster import Member, followers_of, group, leader_of
from tests.herder.distributed.test_rebalance_protocols import create_and_wait, tasks_running
from tests.waiting import wait_until

from conveyor.herder.distributed.request_signature import signature_headers


@pytest.fixture(scope="module")
def members(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Member]]:
    with group(tmp_path_factory.mktemp("requests"), 3) as members:
        create_and_wait(members)
        yield members


def test_a_leader_only_request_marked_not_to_be_forwarded_is_a_409_on_a_follower(
    members: list[Member],
) -> None:
    response = followers_of(members)[0].http("DELETE", "/connectors/gen?forward=false")
    assert response.status_code == 409
    assert response.json()["message"] == (
        "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
    )


def test_a_restart_of_a_task_running_elsewhere_reaches_its_worker(members: list[Member]) -> None:
    status = members[0].http("GET", "/connectors/gen/status").json()
    asked = next(m for m in followers_of(members) if m.herder.running.tasks)
    elsewhere = next(t for t in status["tasks"] if t["worker_id"] != asked.herder.worker_id)
    owner = next(m for m in members if m.herder.worker_id == elsewhere["worker_id"])
    launches = len(owner.runner.launches)
    response = asked.http("POST", f"/connectors/gen/tasks/{elsewhere['id']}/restart")
    assert response.status_code == 204, response.text
    wait_until(lambda: len(owner.runner.launches) > launches, "the task started again on its worker")


def test_restarting_an_unknown_task_is_a_404_on_every_worker(members: list[Member]) -> None:
    for member in members:
        response = member.http("POST", "/connectors/gen/tasks/99/restart")
        assert response.status_code == 404, response.text


def test_every_worker_answers_the_same_status(members: list[Member]) -> None:
    wait_until(lambda: tasks_running(members), "every task running")
    placements = [
        [
            (t["id"], t["state"], t["worker_id"])
            for t in m.http("GET", "/connectors/gen/status").json()["tasks"]
        ]
        for m in members
    ]
    assert placements[1:] == placements[:1] * (len(members) - 1)


def test_every_worker_answers_every_tasks_metrics_whichever_worker_runs_it(members: list[Member]) -> None:
    def counted_everywhere() -> bool:
        for member in members:
            tasks = member.http("GET", "/connectors/gen/status?expand=metrics").json()["tasks"]
            if not tasks or not all(t.get("metrics", {}).get("source-record-write-total") for t in tasks):
                return False
        return True

    wait_until(counted_everywhere, "every worker to report every task's records written", 60.0)


def test_an_unsigned_request_for_a_workers_view_is_a_400(members: list[Member]) -> None:
    response = followers_of(members)[0].http("GET", "/conveyor/internal/worker")
    assert response.status_code == 400
    assert response.json()["message"] == "Internal request missing required signature"


def test_an_unsigned_internal_request_is_a_400(members: list[Member]) -> None:
    response = leader_of(members).http("POST", "/connectors/gen/tasks", [])
    assert response.status_code == 400
    assert response.json()["message"] == "Internal request missing required signature"


def test_a_badly_signed_internal_request_is_a_403(members: list[Member]) -> None:
    headers = {
        "X-Connect-Authorization": base64.b64encode(b"not the signature").decode(),
        "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
    }
    response = leader_of(members).http("POST", "/connectors/gen/tasks", [], headers=headers)
    assert response.status_code == 403


def test_a_signed_internal_request_to_a_follower_is_forwarded_to_the_leader(members: list[Member]) -> None:
    leader = leader_of(members)
    key = leader.herder.session_key()
    assert key is not None
    configs = leader.herder.task_configs("gen")
    body = json.dumps([dict(task.config) for task in configs]).encode()
    headers = {**signature_headers(key, body, "HmacSHA256"), "Content-Type": "application/json"}
    response = followers_of(members)[0].http("POST", "/connectors/gen/tasks", content=body, headers=headers)
    assert response.status_code == 204, response.text


def test_the_session_key_is_the_same_on_every_worker(members: list[Member]) -> None:
    keys = {m.herder.session_key() for m in members}
    assert len(keys) == 1 and None not in keys


def test_statuses_carry_the_generation_of_the_worker_that_wrote_them(members: list[Member]) -> None:
    leader = leader_of(members)
    leader.herder.statuses.read_to_end()
    generations = {status.generation for status in leader.herder.statuses.tasks("gen").values()}
    assert generations and min(generations) > 0


def test_a_connector_created_on_a_follower_exists_on_every_worker(members: list[Member]) -> None:
    follower = followers_of(members)[-1]
    config = {
        "connector.class": "conveyor.connectors.generator.connector:GeneratorSourceConnector",
        "topic": "t",
    }
    created = wait_until(
        lambda: (r := follower.http("PUT", "/connectors/second/config", config)).status_code != 409 and r,
        "the create accepted once a pending rebalance is done (409 until then)",
    )
    assert created.status_code == 201
    for member in members:
        wait_until(lambda m=member: "second" in m.http("GET", "/connectors").json(), "the connector listed")
    deleted = wait_until(
        lambda: (r := follower.http("DELETE", "/connectors/second")).status_code != 409 and r,
        "the delete accepted once the rebalance for the new connector is done (409 until then)",
    )
    assert deleted.status_code == 204
    for member in members:
        wait_until(lambda m=member: "second" not in m.http("GET", "/connectors").json(), "the connector gone")


def test_the_leader_rotates_the_session_key_when_it_expires(tmp_path: Path) -> None:
    with group(tmp_path, 2, **{"inter.worker.key.ttl.ms": "1000"}) as members:
        first = leader_of(members).herder.session_key()
        assert first is not None
        wait_until(
            lambda: (
                {m.herder.session_key() for m in members} - {first, None}
                and len({m.herder.session_key() for m in members}) == 1
            ),
            "a new key, the same on both workers",
        )


def test_a_sink_whose_consumer_group_is_the_worker_group_is_refused(tmp_path: Path) -> None:
    config = {"connector.class": "FileStreamSink", "topics": "t", "file": str(tmp_path / "out")}
    with group(tmp_path, 1, **{"group.id": "connect-sinks"}) as members:
        assert members[0].http("PUT", "/connectors/other/config", config).status_code == 201
        clash = members[0].http("PUT", "/connectors/sinks/config", config)
    assert clash.status_code == 400
    assert "conflicts with Connect worker group connect-sinks" in clash.json()["message"]


def test_a_worker_publishes_its_rebalances_as_kafka_connects_rebalance_metrics(members: list[Member]) -> None:
    text = members[0].http("GET", "/metrics").text
    samples = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    group = "kafka_connect_connect_worker_rebalance_metrics"
    assert samples[f'{group}_connect_protocol{{connect_protocol="sessioned"}}'] == "1.0"
    assert float(samples[f"{group}_epoch"]) == members[0].herder.generation
    assert float(samples[f"{group}_completed_rebalances_total"]) >= 1
    leader = leader_of(members).herder.url
    assert samples[f'{group}_leader_name{{leader_name="{leader}"}}'] == "1.0"


def test_a_connector_created_on_a_follower_with_offsets_has_them_on_every_worker(
    members: list[Member], tmp_path: Path
) -> None:
    follower = followers_of(members)[0]
    source = tmp_path / "lines.txt"
    offsets = [{"partition": {"filename": str(source)}, "offset": {"position": 6}}]
    body = {
        "name": "at-offsets",
        "config": {"connector.class": "FileStreamSource", "file": str(source), "topic": "lines"},
        "initial_state": "STOPPED",
        "initial_offsets": offsets,
    }
    created = wait_until(
        lambda: (r := follower.http("POST", "/connectors", body)).status_code != 409 and r,
        "the create accepted once a pending rebalance is done (409 until then)",
    )
    assert created.status_code == 201, created.text
    for member in members:
        wait_until(
            lambda m=member: m.http("GET", "/connectors/at-offsets/offsets").json().get("offsets") == offsets,
            "the offsets read back from every worker",
        )


def test_a_connector_created_again_on_a_follower_resumes_only_when_asked(
    members: list[Member], tmp_path: Path
) -> None:
    follower = followers_of(members)[0]
    source = tmp_path / "again.txt"
    offsets = [{"partition": {"filename": str(source)}, "offset": {"position": 6}}]
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": "again"}

    def create(query: str, **extra: Any) -> None:
        body = {"name": "again", "config": config, "initial_state": "STOPPED", **extra}
        created = wait_until(
            lambda: (r := follower.http("POST", f"/connectors{query}", body)).status_code != 409 and r,
            "the create accepted once a pending rebalance is done (409 until then)",
        )
        assert created.status_code == 201, created.text

    def offsets_everywhere(expected: list[dict[str, Any]]) -> None:
        for member in members:
            wait_until(
                lambda m=member: m.http("GET", "/connectors/again/offsets").json().get("offsets") == expected,
                f"the offsets {expected} read back from every worker",
            )

    def delete() -> None:
        wait_until(
            lambda: follower.http("DELETE", "/connectors/again").status_code == 204, "the connector deleted"
        )

    create("", initial_offsets=offsets)
    offsets_everywhere(offsets)
    delete()
    create("?resume_offsets=true")
    offsets_everywhere(offsets)
    delete()
    create("")
    offsets_everywhere([])
