"""The Python that Spark runs for its Python processes: this interpreter, importing the installed pyspark.

Spark puts its zipped copy of pyspark first on the ``PYTHONPATH`` of every Python process it starts
(workers, and the planners of Python data sources, one per streaming query). Modules imported from a
zip are compiled anew in each process, which made starting one take about half a second more. When this
process imports pyspark from an installed package (the same version as the zip, since pip installs both),
Spark is given a small launcher that drops the zips from ``PYTHONPATH`` and runs this interpreter. It
drops Spark's core jar too, which holds no Python module of an installed pyspark: each task host read
its table of contents again (about 6,000 entries, 4-6 MB of private memory per host). The launcher hands
the planning process of a Python streaming source to the driver's planner server when the driver has one
(``conveyor.spark.planner_server``).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Final

import py4j
import pyspark

_LAUNCHER: Final = """#!/bin/sh
# Runs {python} for Spark without the zipped pyspark and py4j and the core jar Spark puts on PYTHONPATH;
# a streaming source's planning process is forked by the driver's planner server where it has one.
set -f
kept=
saved_ifs=$IFS
IFS=:
for entry in $PYTHONPATH; do
  case $entry in
    */pyspark.zip|*/py4j-*-src.zip|*/spark-core_*.jar) ;;
    *) kept=${{kept:+$kept:}}$entry ;;
  esac
done
IFS=$saved_ifs
PYTHONPATH=$kept
export PYTHONPATH
planner=${{{socket_env}:-}}
if [ "$1" = -m ] && [ -n "$planner" ] && {{ [ -S "$planner" ] || [ -e "$planner.starting" ]; }}; then
  case $2 in
    {planned}) exec {quoted} -I -S {client} "$@" ;;
  esac
fi
exec {quoted} "$@"
"""


def _installed(module_file: str | None) -> bool:
    return module_file is not None and ".zip" not in module_file


def private_directory() -> Path:
    """The owner's directory (mode 0700) of Spark's launchers and the planner server's socket."""
    directory = Path(tempfile.gettempdir()) / f"conveyor-python-{os.getuid()}"
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


def python_for_spark() -> str:
    """The executable to give Spark as its Python: a launcher around this interpreter where pyspark and
    py4j are installed packages, else this interpreter itself."""
    if not (_installed(pyspark.__file__) and _installed(py4j.__file__)) or os.name != "posix":
        return sys.executable
    from conveyor.spark.planner_server import PLANNED_MODULES, SOCKET_ENV

    text = _LAUNCHER.format(
        python=sys.executable,
        quoted=shlex.quote(sys.executable),
        socket_env=SOCKET_ENV,
        planned="|".join(PLANNED_MODULES),
        client=shlex.quote(str(Path(__file__).with_name("planner_client.py"))),
    )
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    directory = private_directory()
    if directory.stat().st_uid != os.getuid():
        return sys.executable
    launcher = directory / f"python-{digest}"
    if not launcher.exists():
        staged = launcher.with_name(f"{launcher.name}.{os.getpid()}")
        staged.write_text(text)
        staged.chmod(0o755)
        os.replace(staged, launcher)
    return str(launcher)
