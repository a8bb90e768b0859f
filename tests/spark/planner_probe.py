"""A module the planner server tests launch as ``python -m``: it prints what it was run with, as JSON, and
exits with status 3."""

from __future__ import annotations

if __name__ == "__main__":
    import json
    import os
    import sys

    print(
        json.dumps(
            {
                "pid": os.getpid(),
                "ppid": os.getppid(),
                "cwd": os.getcwd(),
                "first_on_path": sys.path[0],
                "argv": sys.argv[1:],
                "probe": os.environ.get("PROBE"),
                "stdin": sys.stdin.read(),
            }
        )
    )
    sys.exit(3)
