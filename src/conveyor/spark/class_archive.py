"""An archive of the classes Spark's JVM loads (the JVM's application class-data sharing): the first
worker for a JVM, Spark's jars and JVM options has its JVM write it as it exits, and the next workers'
JVMs map it instead of reading and verifying those classes from Spark's jars again.

A JVM handed a truncated archive crashes, so the JVM writes it under a name of the worker's own, and the
next worker gives it its final name, with one rename, only once the JVM's log says it was written whole;
one worker at a time writes it (a lock the kernel releases when that worker dies), and a JVM given an
archive that does not match it runs without it, silently. Archives of other keys (an older JDK, other jars
or options: about 115 MB each) are pruned once unused for a week, or beyond the two used last, unless a
running JVM maps or writes one (its command line names it)."""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import shutil
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ARCHIVES_DIR: Final = "spark-class-archives"
"""Where archives are kept, in Conveyor's cache directory."""

QUIET: Final = "-Xlog:cds*=off"
"""The JVM's class-sharing messages off: an archive that does not match is left aside without a word."""

USER_CHOICES: Final = (
    "-XX:SharedArchiveFile",
    "-XX:ArchiveClassesAtExit",
    "-XX:+RecordDynamicDumpInfo",
    "-Xshare",
)
"""JVM options of the user's that make the class sharing theirs: no archive of Conveyor's then."""

WRITTEN: Final = b"Written dynamic archive"
"""What the JVM logs (`cds+dynamic`) once it has written the archive and closed the file."""
TAIL_BYTES: Final = 4096
UNSAFE_IN_PATH: Final = frozenset(" \t:,=\"'")
"""Characters the JVM's or Spark's option parsing would split a path on: no archive in such a directory."""

KEEP_OTHERS: Final = 2
"""How many archives of other keys are kept, those used last, in case their workers start again."""
UNUSED_FOR_S: Final = 7 * 24 * 3600.0
"""How long an archive of another key is kept without a worker using it."""

logger = logging.getLogger(__name__)


def java_home() -> Path | None:
    """The JDK Spark starts its JVM from (`$JAVA_HOME`, else `java` on the PATH, as `spark-class` does)."""
    explicit = os.environ.get("JAVA_HOME")
    java = Path(explicit) / "bin" / "java" if explicit else shutil.which("java")
    if java is None or not Path(java).exists():
        return None
    return Path(java).resolve().parent.parent


def spark_jars_dir() -> Path:
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home()) / "jars"


def _stat_line(path: Path) -> str:
    try:
        stat = path.stat()
    except OSError:
        return f"{path} absent"
    return f"{path} {stat.st_size} {stat.st_mtime_ns}"


def archive_key(java: Path, jars_dir: Path, conf: Mapping[str, str], java_options: str) -> str:
    """A hash of what an archive is valid for: the JDK (its launcher, VM and class library), the classpath
    the JVM starts with (Spark's jars by name, size and time), the jars the session adds, and the JVM
    options (`java_options`, with the heap's size, which decides compressed pointers)."""
    lines = [_stat_line(java / name) for name in ("bin/java", "lib/server/libjvm.so", "lib/modules")]
    lines += sorted(_stat_line(jar) for jar in jars_dir.glob("*"))
    for key in ("spark.jars", "spark.driver.extraClassPath"):
        entries = conf.get(key, "").replace(os.pathsep, ",").split(",")
        lines += [_stat_line(Path(entry)) for entry in entries if entry]
    lines += [java_options, conf.get("spark.driver.memory", "")]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:24]


def publish(written: Path, archive: Path) -> None:
    """Give `written`, a whole archive, its final name in one step: a JVM opening `archive` gets the
    previous file or this one, never part of one (its bytes on disk first, should the machine stop)."""
    with written.open("rb") as file:
        os.fsync(file.fileno())
    os.replace(written, archive)
    os.utime(archive)  # its first use, which keeps it from pruning


def _log_of(partial: Path) -> Path:
    return partial.with_name(partial.name + ".log")


def written_whole(partial: Path) -> bool:
    """Whether the JVM that wrote `partial` logged that it finished it."""
    try:
        with _log_of(partial).open("rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - TAIL_BYTES))
            return WRITTEN in log.read() and partial.exists()
    except OSError:
        return False


def _running_with(*wanted: bytes) -> bool:
    """Whether a running process's command line holds any of `wanted` (one pass over the processes)."""
    processes = Path("/proc")
    if not processes.is_dir():
        return False
    for entry in processes.iterdir():
        try:
            if entry.name.isdigit():
                command_line = (entry / "cmdline").read_bytes()
                if any(needle in command_line for needle in wanted):
                    return True
        except OSError:
            continue
    return False


def _writing(prefix: Path) -> bytes:
    return f"-XX:ArchiveClassesAtExit={prefix}".encode()


def being_written(prefix: Path) -> bool:
    """Whether a JVM writing an archive whose name starts with `prefix` still runs (its command line
    names it)."""
    return _running_with(_writing(prefix))


def in_use(archive: Path) -> bool:
    """Whether a running JVM maps `archive` or writes an archive of its key."""
    return _running_with(
        f"-XX:SharedArchiveFile={archive}".encode(), _writing(archive.with_name(archive.name + "."))
    )


def prune(directory: Path, own_key: str, now: float | None = None) -> list[Path]:
    """Remove the archives of keys other than `own_key` unused for `UNUSED_FOR_S`, or beyond the
    `KEEP_OTHERS` used last, with their locks and leftovers; never one a running JVM maps or writes.
    The archives removed."""
    now = time.time() if now is None else now
    others = sorted(
        (path for path in directory.glob("*.jsa") if path.stem != own_key),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    removed = []
    for rank, archive in enumerate(others):
        if rank < KEEP_OTHERS and now - archive.stat().st_mtime < UNUSED_FOR_S:
            continue
        if in_use(archive):
            continue
        archive.unlink(missing_ok=True)
        for leftover in directory.glob(f"{archive.stem}.jsa.*.partial*"):
            leftover.unlink(missing_ok=True)
        directory.joinpath(f"{archive.stem}.lock").unlink(missing_ok=True)
        removed.append(archive)
    return removed


def _prune_quietly(directory: Path, own_key: str) -> None:
    try:
        removed = prune(directory, own_key)
    except OSError as error:
        logger.debug("Old class archives in %s were not pruned: %s", directory, error)
        return
    if removed:
        logger.info("Removed %d unused class archive(s) of Spark's JVM from %s", len(removed), directory)


@dataclass
class ClassArchive:
    """A worker's use of the archive for its JVM: map it, or have the JVM write it as it exits."""

    archive: Path
    lock: int | None = None
    """Held, for the worker's life, by the worker whose JVM writes the archive."""
    partial: Path | None = None
    """Where this worker's JVM writes the archive, when it is the one to write it."""

    @property
    def writes(self) -> bool:
        return self.lock is not None

    def java_options(self) -> str:
        """What the worker adds to its JVM's default options."""
        if self.writes and self.partial is not None:
            log = f"-Xlog:cds+dynamic=info:file={_log_of(self.partial)}::filecount=0"
            return f"-XX:ArchiveClassesAtExit={self.partial} {QUIET} {log}"
        if self.archive.exists():
            return f"-XX:SharedArchiveFile={self.archive} {QUIET}"
        return ""

    def release(self) -> None:
        """Let another worker write the archive (this one's JVM will not)."""
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None


def _adopt(directory: Path, key: str, archive: Path) -> bool:
    """Publish an archive an earlier worker's JVM finished as it exited; remove what JVMs no longer write.
    True when one is published, or one may still be being written."""
    for log in sorted(directory.glob(f"{key}.jsa.*.partial.log")):
        partial = log.with_name(log.name.removesuffix(".log"))
        if written_whole(partial):
            publish(partial, archive)
            log.unlink(missing_ok=True)
            logger.info(
                "Spark's class archive %s (%d MB), written by an earlier worker's JVM as it exited, is in "
                "place: this worker's JVM starts from it",
                archive,
                archive.stat().st_size // 2**20,
            )
            return True
    if being_written(directory / f"{key}.jsa."):
        return True
    for leftover in directory.glob(f"{key}.jsa.*.partial*"):
        leftover.unlink(missing_ok=True)
    return False


def prepare(conf: Mapping[str, str], java_options: str, cache_dir: Path) -> ClassArchive | None:
    """This worker's part in the archive for a JVM with `conf` and `java_options`: map the published
    archive (publishing first one an earlier worker's JVM finished), or write it (when none is and no
    other worker or JVM is writing it), or neither. None when the user chose the JVM's class sharing
    themselves or the cache cannot be used (logged, never raised)."""
    chosen = [option for option in USER_CHOICES if option in java_options]
    if chosen:
        logger.debug(
            "The worker's JVM options choose its class sharing (%s): no class archive of Conveyor's",
            chosen[0],
        )
        return None
    java = java_home()
    if java is None:
        return None
    if UNSAFE_IN_PATH & set(str(cache_dir)):
        logger.debug(
            "No class archive in %s: the JVM's options cannot name a path with %s", cache_dir, UNSAFE_IN_PATH
        )
        return None
    try:
        directory = cache_dir / ARCHIVES_DIR
        key = archive_key(java, spark_jars_dir(), conf, java_options)
        archive = ClassArchive(directory / f"{key}.jsa")
        if archive.archive.exists():
            os.utime(archive.archive)  # its last use, which keeps it from pruning
            _prune_quietly(directory, key)
            return archive
        directory.mkdir(parents=True, exist_ok=True)
        _prune_quietly(directory, key)
        lock = os.open(directory / f"{key}.lock", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            logger.debug("Another worker is writing Spark's class archive %s", archive.archive)
            return archive
        try:
            pending = _adopt(directory, key, archive.archive)
        except OSError:
            os.close(lock)
            raise
        if archive.archive.exists() or pending:
            os.close(lock)
            return archive
        archive.lock = lock
        archive.partial = directory / f"{key}.jsa.{os.getpid()}-{uuid.uuid4().hex[:8]}.partial"
        return archive
    except OSError as error:
        logger.warning("Spark's class archive is not used: %s", error)
        return None
