"""The function that runs one task incarnation wherever it is placed: open the log, build its loop, run it."""

from __future__ import annotations

import logging
from contextlib import ExitStack

from conveyor.api import SinkTask, SourceTask
from conveyor.plugins import use_shipped_plugins
from conveyor.plugins.task_classes import load_task_class
from conveyor.runtime.control import TaskControl
from conveyor.runtime.shared_logs import PROCESS_LOGS
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_logs import admin_overrides, source_cluster_url, task_log_url
from conveyor.runtime.task_spec import TaskSpec
from conveyor.settings.client_overrides import ClientType, built_with_overrides

logger = logging.getLogger(__name__)

TASK_CLASS_CONFIG = "task.class"


def run_task(spec: TaskSpec, control: TaskControl) -> None:
    """Run one task incarnation until its control says stop; raises if the task fails.

    A sink task whose connector sets `consumer.override.log.url` runs on that log (another cluster); a
    source task whose producer writes to another cluster runs there, with the worker's log opened too for
    the group's topics and its offsets. Its admin client is made first when the connector overrides its
    settings, so that a refused one fails the task at once, naming the connector's overrides. Tasks of one
    process on the same log share it (`PROCESS_LOGS`), and with it one admin client.
    """
    use_shipped_plugins(spec.worker_config.plugin_modules, spec.worker_config.plugin_module_info)
    task_class = load_task_class(spec.task_config[TASK_CLASS_CONFIG])
    task = task_class()
    url = task_log_url(spec)
    with ExitStack() as logs:
        log = logs.enter_context(PROCESS_LOGS.open(url))
        admin = admin_overrides(spec)
        if admin:
            built_with_overrides(ClientType.ADMIN, admin, log.admin)
        if isinstance(task, SourceTask):
            worker_log = None
            if source_cluster_url(spec.worker_config, spec.connector_config) is not None:
                worker_log = logs.enter_context(PROCESS_LOGS.open(spec.worker_config.log_url))
            SourceTaskLoop(spec, control, log, task, worker_log).run()
        elif isinstance(task, SinkTask):
            SinkTaskLoop(spec, control, log, task).run()
        else:
            raise TypeError(f"{spec.task_config[TASK_CLASS_CONFIG]} is neither a SourceTask nor a SinkTask")
