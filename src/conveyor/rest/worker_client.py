"""The HTTP client one worker reaches another's REST API with, over the worker's own TLS settings.

As Kafka Connect's `RestClient`, it uses the https listener's `ssl.*` settings: the trust store checks
the other worker's certificate, and the key store is shown as the client certificate, so a group whose
listeners require client certificates (`ssl.client.auth=required`) still reaches itself.
"""

from __future__ import annotations

import httpx

from conveyor.rest.tls import client_ssl_context
from conveyor.settings.worker_config import WorkerConfig

INTER_WORKER_TIMEOUT_S = 90.0


def inter_worker_client(config: WorkerConfig, timeout_s: float = INTER_WORKER_TIMEOUT_S) -> httpx.Client:
    """A client for other workers' REST APIs (http or https URLs), with this worker's TLS settings."""
    return httpx.Client(verify=client_ssl_context(config.rest_ssl), timeout=timeout_s)
