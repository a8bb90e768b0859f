"""KIP-618's zombie fencing round before an exactly-once source task starts: the internal fence endpoint's
answers over REST, and a failed round retried while the connector's task configs stand."""

from __future__ import annotations

from pathlib import Path

import httpx
from tests.herder.distributed.cluster import Member, followers_of, group, leader_of
from tests.herder.distributed.test_rebalance_protocols import tasks_running
from tests.waiting import wait_until

from conveyor.herder.distributed.request_signature import signature_headers
from conveyor.rest import RestServer, create_app

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
ENABLED = {"exactly.once.source.support": "enabled"}
TASKS = 4


def generator(tasks: int = 1) -> dict[str, str]:
    return {"connector.class": GENERATOR, "topic": "eos", "tasks.max": str(tasks), "rate": "20"}


def fence(signer: Member, target: Member, connector: str, **params: str) -> httpx.Response:
    """`PUT /connectors/{connector}/fence` on `target`, signed with the group's session key as a worker
    signs it."""
    key = wait_until(signer.herder.session_key, "the group's session key")
    wait_until(lambda: target.http("GET", "/health").status_code == 200, "the worker serving requests")
    headers = {"Content-Type": "application/json", **signature_headers(key, b"", "HmacSHA256")}
    return httpx.put(
        f"{target.url}/connectors/{connector}/fence", content=b"", headers=headers, params=params, timeout=60
    )


def created(member: Member, name: str, config: dict[str, str], **body: str) -> None:
    response = wait_until(
        lambda: (
            (r := member.http("POST", "/connectors", {"name": name, "config": config, **body})).status_code
            != 409
            and r
        ),
        f"the create of {name} accepted once a pending rebalance is done",
    )
    assert response.status_code == 201, response.text


def test_the_fence_endpoint_answers_204_for_a_source_connector_on_the_leader(tmp_path: Path) -> None:
    with group(tmp_path, 2, **ENABLED) as members:
        created(members[0], "gen", generator())
        wait_until(lambda: tasks_running(members, "gen", 1), "the task running")
        leader = leader_of(members)
        assert fence(leader, leader, "gen").status_code == 204


def test_the_fence_endpoint_answers_404_for_an_unknown_connector(tmp_path: Path) -> None:
    with group(tmp_path, 1, **ENABLED) as members:
        response = fence(members[0], members[0], "missing")
        assert response.status_code == 404
        assert response.json() == {"error_code": 404, "message": "Connector missing not found"}


def test_the_fence_endpoint_answers_400_for_a_sink_connector(tmp_path: Path) -> None:
    with group(tmp_path, 1, **ENABLED) as members:
        sink = {"connector.class": "FileStreamSink", "topics": "t", "file": str(tmp_path / "out")}
        created(members[0], "sink", sink)
        response = fence(members[0], members[0], "sink")
        assert response.status_code == 400
        assert response.json()["message"] == "Connector sink is not a source connector"


def test_the_fence_endpoint_answers_409_on_a_follower_that_may_not_forward_it(tmp_path: Path) -> None:
    with group(tmp_path, 2, **ENABLED) as members:
        created(members[0], "gen", generator())
        follower = followers_of(members)[0]
        response = fence(follower, follower, "gen", forward="false")
        assert response.status_code == 409
        assert response.json()["error_code"] == 409


def test_the_fence_endpoint_on_a_follower_is_forwarded_to_the_leader(tmp_path: Path) -> None:
    with group(tmp_path, 2, **ENABLED) as members:
        created(members[0], "gen", generator())
        follower = followers_of(members)[0]
        assert fence(follower, follower, "gen").status_code == 204


def restart_rest_server(member: Member, port: int) -> None:
    """Serve the member's REST API again on the port it had."""
    member.server = RestServer(create_app(member.herder, internal=member.herder), f"http://127.0.0.1:{port}")
    member.server.start()


def task_states(member: Member, connector: str) -> list[dict[str, str]]:
    response = member.http("GET", f"/connectors/{connector}/status")
    return response.json()["tasks"] if response.status_code == 200 else []


def test_a_follower_whose_fencing_request_fails_retries_it_and_starts_its_tasks_once_the_leader_answers(
    tmp_path: Path,
) -> None:
    with group(tmp_path, 2, **ENABLED) as members:
        leader, follower = leader_of(members), followers_of(members)[0]
        for name in ("one", "two"):
            created(follower, name, generator(TASKS), initial_state="STOPPED")
        on_leader = wait_until(
            lambda: next(iter(leader.herder.running.connectors), None), "a connector assigned to the leader"
        )
        port = int(leader.url.rsplit(":", 1)[1])
        leader.server.stop()
        assert follower.http("PUT", f"/connectors/{on_leader}/resume").status_code == 202
        waiting = wait_until(
            lambda: [
                t for t in task_states(follower, on_leader) if "Waiting to fence" in (t.get("trace") or "")
            ],
            "a task of the follower waiting for its fencing round",
            timeout_s=60,
        )
        assert all(t["state"] == "UNASSIGNED" for t in waiting)
        restart_rest_server(leader, port)
        wait_until(
            lambda: tasks_running(members, on_leader, TASKS),
            "every task running after the retry",
            timeout_s=90,
        )
