"""Which Kafka client settings make a client do more than talk to its brokers: load code, run a command,
read a file, reach a URL, use the host's cloud identity, take an API-only pointer, flood the logs or change
the whole process.

The names are librdkafka's (its CONFIGURATION.md) and the Java client's that Conveyor translates to them
(`ssl.truststore.location`, ...). A name is judged in the spelling the Kafka clients read it: they accept
`plugin_library_paths` for `plugin.library.paths`, so underscores count as dots. Names librdkafka may add
later are judged by their shape (`*.location`, `*.file`, `*.url`, `*_cb`, ...).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable


class Risk(enum.Enum):
    """What a setting makes a client do on its own, in words a refusal can quote."""

    CODE = "loads native code into the worker's processes"
    COMMAND = "runs a shell command built from its value"
    FILE = "makes the client read a local file"
    URL = "makes the client send requests, with credentials, to a URL"
    CLOUD_IDENTITY = "makes the client fetch tokens with the host's cloud identity"
    API_ONLY = "is a callback or pointer that only code can set"
    LOG_FLOOD = "floods the worker's logs or memory with client logs"
    PROCESS = "changes how the whole process handles signals"


_BY_NAME: dict[str, Risk] = {
    "plugin.library.paths": Risk.CODE,
    "ssl.engine.location": Risk.CODE,
    "ssl.engine.id": Risk.CODE,
    "ssl.providers": Risk.CODE,
    "sasl.kerberos.kinit.cmd": Risk.COMMAND,
    "ssl.key.location": Risk.FILE,
    "ssl.certificate.location": Risk.FILE,
    "ssl.crl.location": Risk.FILE,
    "ssl.keystore.location": Risk.FILE,
    "ssl.truststore.location": Risk.FILE,
    "https.ca.location": Risk.FILE,
    "sasl.oauthbearer.assertion.file": Risk.FILE,
    "sasl.oauthbearer.assertion.private.key.file": Risk.FILE,
    "sasl.oauthbearer.assertion.jwt.template.file": Risk.FILE,
    "sasl.oauthbearer.assertion.template.file": Risk.FILE,
    "offset.store.path": Risk.FILE,
    "sasl.oauthbearer.token.endpoint.url": Risk.URL,
    "sasl.oauthbearer.jwks.endpoint.url": Risk.URL,
    "debug": Risk.LOG_FLOOD,
    "log.queue": Risk.LOG_FLOOD,
    "internal.termination.signal": Risk.PROCESS,
    "interceptors": Risk.API_ONLY,
    "opaque": Risk.API_ONLY,
    "default.topic.conf": Risk.API_ONLY,
    "enabled.events": Risk.API_ONLY,
    "ssl.key": Risk.API_ONLY,
    "ssl.certificate": Risk.API_ONLY,
    "ssl.ca": Risk.API_ONLY,
    "ssl.engine.callback.data": Risk.API_ONLY,
    "msg.order.cmp": Risk.API_ONLY,
    "logger": Risk.API_ONLY,
    "on.delivery": Risk.API_ONLY,
    "on.commit": Risk.API_ONLY,
}

#: The settings whose URLs Kafka's `org.apache.kafka.sasl.oauthbearer.allowed.urls` must list.
OAUTH_URL_SETTINGS = frozenset({"sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.jwks.endpoint.url"})

#: Name endings of settings librdkafka may add: paths, URLs, commands, libraries and callbacks.
_BY_SUFFIX: tuple[tuple[str, Risk], ...] = (
    (".library", Risk.CODE),
    (".cmd", Risk.COMMAND),
    (".location", Risk.FILE),
    (".file", Risk.FILE),
    (".path", Risk.FILE),
    (".paths", Risk.FILE),
    (".keytab", Risk.FILE),
    (".url", Risk.URL),
    (".urls", Risk.URL),
    (".cb", Risk.API_ONLY),
)

#: What the default `sasl.kerberos.kinit.cmd` may have substituted into its shell command: a principal
#: (unquoted) or a keytab path (in double quotes) made of these characters cannot break out of it.
_SHELL_SAFE = re.compile(r"[A-Za-z0-9._/@+-]+")


def canonical_name(name: str) -> str:
    """The setting `name` means to the Kafka clients, in librdkafka's dotted lower-case spelling."""
    return name.strip().lower().replace("_", ".")


def setting_risk(name: str, value: str) -> Risk | None:
    """What setting `name` to `value` makes a client do beyond talking to its brokers; None if nothing."""
    canonical = canonical_name(name)
    if canonical in _BY_VALUE:
        return _BY_VALUE[canonical](value.strip())
    if canonical in _BY_NAME:
        return _BY_NAME[canonical]
    for suffix, risk in _BY_SUFFIX:
        if canonical.endswith(suffix):
            return risk
    return None


def _principal(value: str) -> Risk | None:
    return None if _SHELL_SAFE.fullmatch(value) else Risk.COMMAND


def _keytab(value: str) -> Risk:
    return Risk.FILE if _SHELL_SAFE.fullmatch(value) else Risk.COMMAND


def _metadata_authentication(value: str) -> Risk | None:
    return None if value.lower() in ("", "none") else Risk.CLOUD_IDENTITY


def _ca_location(value: str) -> Risk | None:
    """`probe` makes librdkafka look for the system's CA bundle at its well-known places."""
    return None if value == "probe" else Risk.FILE


def _offset_store_method(value: str) -> Risk | None:
    return None if value.lower() in ("broker", "none") else Risk.FILE


#: Settings that are safe with some values only.
_BY_VALUE: dict[str, Callable[[str], Risk | None]] = {
    "sasl.kerberos.principal": _principal,
    "sasl.kerberos.keytab": _keytab,
    "sasl.oauthbearer.metadata.authentication.type": _metadata_authentication,
    "ssl.ca.location": _ca_location,
    "offset.store.method": _offset_store_method,
}
