"""The archive of Spark's JVM classes: one worker at a time writes it, under a name of its own, and a JVM is
handed only an archive published whole, keyed to the JDK, Spark's jars, the session's jars and the JVM's
options; the user's own class-sharing options win."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from tests.waiting import wait_until

from conveyor.spark.class_archive import (
    ARCHIVES_DIR,
    KEEP_OTHERS,
    QUIET,
    UNUSED_FOR_S,
    ClassArchive,
    archive_key,
    java_home,
    prepare,
    prune,
    publish,
)
from conveyor.spark.session import get_or_create_session, prepare_class_archive

OPTIONS = "-XX:+UseSerialGC -Xms32m"


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def writer(cache: Path) -> Iterator[ClassArchive]:
    archive = prepare({}, OPTIONS, cache)
    assert archive is not None
    yield archive
    archive.release()


def prepared(cache: Path) -> ClassArchive:
    archive = prepare({}, OPTIONS, cache)
    assert archive is not None
    return archive


def test_the_first_worker_has_its_jvm_write_the_archive_under_a_name_of_its_own_as_it_exits(
    writer: ClassArchive,
) -> None:
    assert writer.writes
    assert writer.partial is not None and writer.partial != writer.archive
    assert writer.java_options().startswith(f"-XX:ArchiveClassesAtExit={writer.partial} {QUIET} ")
    assert writer.archive.parent.name == ARCHIVES_DIR


def test_a_worker_starting_while_another_writes_neither_writes_nor_maps_an_archive(
    writer: ClassArchive, cache: Path
) -> None:
    partial = writer.archive.with_name(writer.archive.name + ".1234-abcd.partial")
    partial.write_bytes(b"half an archive")
    meanwhile = prepared(cache)
    assert not meanwhile.writes
    assert meanwhile.java_options() == ""
    assert not writer.archive.exists()


def test_a_published_archive_is_mapped_by_the_next_worker(writer: ClassArchive, cache: Path) -> None:
    written = writer.archive.with_name("written")
    written.write_bytes(b"a whole archive")
    publish(written, writer.archive)
    writer.release()
    later = prepared(cache)
    assert not later.writes
    assert later.java_options() == f"-XX:SharedArchiveFile={writer.archive} {QUIET}"


def test_a_worker_that_gave_up_writing_leaves_it_to_the_next_whose_leftovers_it_removes(
    writer: ClassArchive, cache: Path
) -> None:
    leftover = writer.archive.with_name(writer.archive.name + ".1234-abcd.partial.temp")
    leftover.write_bytes(b"what a killed worker's JVM had written")
    writer.release()
    nxt = prepared(cache)
    try:
        assert nxt.writes
        assert not leftover.exists()
    finally:
        nxt.release()


def test_publishing_replaces_the_archive_in_one_step_leaving_an_open_one_whole(tmp_path: Path) -> None:
    archive = tmp_path / "key.jsa"
    archive.write_bytes(b"old archive")
    written = tmp_path / "key.jsa.1-a.partial"
    written.write_bytes(b"new archive")
    with archive.open("rb") as mapped_before:
        publish(written, archive)
        assert mapped_before.read() == b"old archive"
    assert archive.read_bytes() == b"new archive"
    assert not written.exists()


def _archive(directory: Path, key: str, unused_s: float) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    archive = directory / f"{key}.jsa"
    archive.write_bytes(b"an archive")
    (directory / f"{key}.lock").write_bytes(b"")
    used = time.time() - unused_s
    os.utime(archive, (used, used))
    return archive


def test_archives_of_other_keys_unused_for_a_week_are_pruned_with_their_locks(tmp_path: Path) -> None:
    stale = _archive(tmp_path, "old", UNUSED_FOR_S + 60)
    recent = _archive(tmp_path, "recent", 60)
    own = _archive(tmp_path, "own", UNUSED_FOR_S + 60)

    assert prune(tmp_path, "own") == [stale]
    assert not stale.exists() and not (tmp_path / "old.lock").exists()
    assert recent.exists() and own.exists()


def test_only_the_archives_of_other_keys_used_last_are_kept(tmp_path: Path) -> None:
    archives = [_archive(tmp_path, f"k{n}", 60 * (n + 1)) for n in range(KEEP_OTHERS + 2)]

    prune(tmp_path, "own")

    assert [archive.exists() for archive in archives] == [True] * KEEP_OTHERS + [False, False]


def test_an_archive_a_running_jvm_maps_is_never_pruned(tmp_path: Path) -> None:
    mapped = _archive(tmp_path, "mapped", UNUSED_FOR_S + 60)
    jvm = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()", f"-XX:SharedArchiveFile={mapped}"],
        stdin=subprocess.PIPE,
    )
    try:
        assert prune(tmp_path, "own") == []
        assert mapped.exists()
    finally:
        jvm.communicate()


def test_a_worker_mapping_an_archive_marks_it_used_and_prunes_stale_ones(
    writer: ClassArchive, cache: Path
) -> None:
    written = writer.archive.with_name("written")
    written.write_bytes(b"a whole archive")
    publish(written, writer.archive)
    writer.release()
    week_ago = time.time() - UNUSED_FOR_S - 60
    os.utime(writer.archive, (week_ago, week_ago))
    stale = _archive(writer.archive.parent, "stale", UNUSED_FOR_S + 60)

    prepared(cache)

    assert time.time() - writer.archive.stat().st_mtime < UNUSED_FOR_S
    assert not stale.exists()


def test_the_archive_is_keyed_to_the_jars_the_session_adds(tmp_path: Path) -> None:
    java, jars = tmp_path / "jdk", tmp_path / "jars"
    jars.mkdir()
    added = tmp_path / "delta.jar"
    added.write_bytes(b"v1")
    conf = {"spark.jars": str(added)}
    before = archive_key(java, jars, conf, OPTIONS)
    assert archive_key(java, jars, conf, OPTIONS) == before
    added.write_bytes(b"v2 bigger")
    assert archive_key(java, jars, conf, OPTIONS) != before


def test_the_archive_is_keyed_to_sparks_jars_the_jdk_and_the_jvm_options(tmp_path: Path) -> None:
    java, jars = tmp_path / "jdk", tmp_path / "jars"
    (java / "lib" / "server").mkdir(parents=True)
    jars.mkdir()
    before = archive_key(java, jars, {}, OPTIONS)
    assert archive_key(java, jars, {}, OPTIONS + " -XX:+UseG1GC") != before
    assert archive_key(java, jars, {"spark.driver.memory": "40g"}, OPTIONS) != before
    (jars / "spark-core.jar").write_bytes(b"classes")
    with_jar = archive_key(java, jars, {}, OPTIONS)
    assert with_jar != before
    (java / "lib" / "server" / "libjvm.so").write_bytes(b"another JVM")
    assert archive_key(java, jars, {}, OPTIONS) != with_jar


@pytest.mark.parametrize(
    "option", ["-XX:SharedArchiveFile=/mine.jsa", "-XX:ArchiveClassesAtExit=/mine.jsa", "-Xshare:off"]
)
def test_the_users_own_class_sharing_options_win(option: str, cache: Path) -> None:
    assert prepare({}, f"{OPTIONS} {option}", cache) is None
    assert prepare_class_archive({"spark.driver.extraJavaOptions": option}, cache) is None


def test_the_workers_own_default_java_options_leave_out_the_archive(cache: Path) -> None:
    assert prepare_class_archive({"spark.driver.defaultJavaOptions": "-Xmx2g"}, cache) is None
    assert prepare_class_archive({}, cache) is not None


WAITER = """
public class Wait {
    public static void main(String[] args) throws Exception {
        while (System.in.read() != -1) {}
    }
}
"""


@pytest.fixture(scope="module")
def waiter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A jar whose `Wait` runs until its stdin closes, as Spark's gateway does."""
    home = java_home()
    assert home is not None
    directory = tmp_path_factory.mktemp("waiter")
    (directory / "Wait.java").write_text(WAITER)
    subprocess.run([str(home / "bin" / "javac"), "Wait.java"], cwd=directory, check=True)
    subprocess.run([str(home / "bin" / "jar"), "cf", "wait.jar", "Wait.class"], cwd=directory, check=True)
    return directory / "wait.jar"


def start_jvm(jar: Path, *options: str, **popen: Any) -> subprocess.Popen[bytes]:
    home = java_home()
    assert home is not None
    return subprocess.Popen(
        [str(home / "bin" / "java"), *options, "-cp", str(jar), "Wait"], stdin=subprocess.PIPE, **popen
    )


def test_the_archive_a_jvm_wrote_as_it_exited_is_published_by_the_next_worker_whose_jvm_maps_it(
    writer: ClassArchive, waiter: Path, cache: Path
) -> None:
    jvm = start_jvm(waiter, *writer.java_options().split())
    writer.release()  # the writing worker has gone; its JVM writes the archive as its stdin closes
    jvm.communicate(b"", timeout=120)
    assert not writer.archive.exists()
    later = prepared(cache)
    assert not later.writes
    assert later.archive.exists()
    assert list(later.archive.parent.glob("*.partial*")) == []
    loaded = start_jvm(waiter, *later.java_options().split(), "-Xlog:class+load=info", stdout=subprocess.PIPE)
    output, _ = loaded.communicate(b"", timeout=120)
    assert "Wait source: shared objects file (top)" in output.decode()


def test_a_worker_starting_while_an_earlier_workers_jvm_still_runs_leaves_its_archive_alone(
    writer: ClassArchive, waiter: Path, cache: Path
) -> None:
    jvm = start_jvm(waiter, *writer.java_options().split())
    try:
        assert writer.partial is not None
        log = writer.partial.with_name(writer.partial.name + ".log")
        wait_until(log.exists, "the JVM to start and open its log")
        writer.release()
        meanwhile = prepared(cache)
        assert not meanwhile.writes
        assert meanwhile.java_options() == ""
        assert writer.partial is not None and not writer.archive.exists()
    finally:
        jvm.communicate(b"", timeout=120)


def test_what_a_killed_jvm_left_is_never_published_and_the_next_worker_writes_anew(
    writer: ClassArchive, waiter: Path, cache: Path
) -> None:
    jvm = start_jvm(waiter, *writer.java_options().split())
    writer.release()
    assert writer.partial is not None
    writer.partial.write_bytes(b"the start of an archive")
    jvm.kill()
    jvm.wait(60)
    nxt = prepared(cache)
    try:
        assert nxt.writes
        assert not nxt.archive.exists()
        assert not writer.partial.exists()
    finally:
        nxt.release()


def test_a_worker_joining_the_processs_running_session_leaves_the_archive_to_others(
    writer: ClassArchive, spark_session: SparkSession
) -> None:
    assert get_or_create_session(conf={}, class_archive=writer) is spark_session
    assert not writer.writes
