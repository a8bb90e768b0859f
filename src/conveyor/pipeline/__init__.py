"""Between a connector's records and the log's bytes: transforms and converters by the batch
(`record_pipeline.py`), `errors.tolerance` and the dead letter queue (`error_handling.py`), and the topics
a task writes to (`topics.py`). The task loops in `conveyor.runtime` and Spark's pipelines share it."""
