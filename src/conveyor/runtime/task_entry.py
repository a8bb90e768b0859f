"""The function that runs one task incarnation wherever it is placed: open the log, build its loop, run it."""

from __future__ import annotations

import logging

from conveyor.api import SinkTask, SourceTask
from conveyor.api.config.classes import import_dotted_class
from conveyor.log import open_log
from conveyor.plugins import use_shipped_plugins
from conveyor.runtime.control import TaskControl
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_logs import task_log_url
from conveyor.runtime.task_spec import TaskSpec

logger = logging.getLogger(__name__)

TASK_CLASS_CONFIG = "task.class"


def run_task(spec: TaskSpec, control: TaskControl) -> None:
    """Run one task incarnation until its control says stop; raises if the task fails.

    A sink task whose connector sets `consumer.override.log.url` runs on that log (another cluster).
    """
    use_shipped_plugins(spec.worker_config.plugin_modules)
    task_class = import_dotted_class(spec.task_config[TASK_CLASS_CONFIG])
    task = task_class()
    with open_log(task_log_url(spec)) as log:
        if isinstance(task, SourceTask):
            SourceTaskLoop(spec, control, log, task).run()
        elif isinstance(task, SinkTask):
            SinkTaskLoop(spec, control, log, task).run()
        else:
            raise TypeError(f"{spec.task_config[TASK_CLASS_CONFIG]} is neither a SourceTask nor a SinkTask")
