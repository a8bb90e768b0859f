"""A connector config's `${file:...}` variable reaches the task resolved, and is stored and shown as given."""

from __future__ import annotations

from pathlib import Path

from .support import (
    create_connector,
    read_topic,
    read_values,
    rest_client,
    running_worker,
    unique,
    wait_until,
)

FILE_PROVIDER = {
    "config.providers": "file",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
}


def test_a_task_reads_the_secret_while_rest_and_the_config_topic_keep_the_variable(tmp_path: Path) -> None:
    secret_input = tmp_path / "only-the-secret-names-this.txt"
    secret_input.write_text("alpha\nbeta\n")
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"input.file={secret_input}\n")
    variable = f"${{file:{secrets}:input.file}}"
    name, topic = unique("file-source"), unique("from-secret")
    config = {"connector.class": "FileStreamSource", "tasks.max": "1", "topic": topic, "file": variable}
    with running_worker(tmp_path, **FILE_PROVIDER) as worker, rest_client(worker) as client:
        create_connector(client, name, config)

        values = wait_until(lambda: read_values(worker.log, topic) or None, "the secret file's lines")
        assert values[:2] == [b"alpha", b"beta"]
        assert client.get(f"/connectors/{name}/config").json()["file"] == variable
        assert [task["config"]["file"] for task in client.get(f"/connectors/{name}/tasks").json()] == [
            variable
        ]
        stored = b"".join(record.value or b"" for record in read_topic(worker.log, "connect-configs"))
        assert variable.encode() in stored
        assert str(secret_input).encode() not in stored


def test_a_restarted_task_resolves_its_variables_again(tmp_path: Path) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("one\n")
    second.write_text("two\n")
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"input.file={first}\n")
    name, topic = unique("file-source"), unique("rotated")
    config = {
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "topic": topic,
        "file": f"${{file:{secrets}:input.file}}",
    }
    with running_worker(tmp_path, **FILE_PROVIDER) as worker, rest_client(worker) as client:
        create_connector(client, name, config)
        wait_until(lambda: b"one" in read_values(worker.log, topic), "the first file's line")

        secrets.write_text(f"input.file={second}\n")
        assert client.post(f"/connectors/{name}/tasks/0/restart").status_code == 204

        wait_until(
            lambda: b"two" in read_values(worker.log, topic), "the second file's line after the restart"
        )
