"""The driver's calls into Spark's JVM load no numpy, pandas or pyarrow while nothing else has."""

from __future__ import annotations

import subprocess
import sys

ASK_EVERY_CONVERTER = (
    "from py4j.protocol import INPUT_CONVERTER; "
    "[converter.can_convert(argument) for converter in INPUT_CONVERTER for argument in ('spark.master', 4)]; "
)


def _printed(script: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_converting_a_jvm_calls_arguments_imports_neither_numpy_nor_pandas() -> None:
    script = (
        "import sys; from conveyor.spark.session import load_numpy_converters_lazily; "
        "load_numpy_converters_lazily(); "
        + ASK_EVERY_CONVERTER
        + "print(sorted(m for m in ('numpy', 'pandas', 'pyarrow') if m in sys.modules))"
    )
    assert _printed(script) == "[]"


def test_numpy_arrays_still_convert_once_numpy_is_imported() -> None:
    script = (
        "import numpy; from conveyor.spark.session import load_numpy_converters_lazily; "
        "load_numpy_converters_lazily(); from py4j.protocol import INPUT_CONVERTER; "
        "print(any(c.can_convert(numpy.array([1, 2])) for c in INPUT_CONVERTER))"
    )
    assert _printed(script) == "True"
