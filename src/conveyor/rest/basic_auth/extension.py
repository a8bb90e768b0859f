"""`BasicAuthSecurityRestExtension`: every request needs a user and password from the credentials file.

As in Kafka Connect, the file is named by the `KafkaConnect` entry of a JAAS configuration, found at
the worker property `java.security.auth.login.config` or at `-Djava.security.auth.login.config=` in
`KAFKA_OPTS`. Requests one worker sends another (`POST /connectors/{c}/tasks`, `PUT
/connectors/{c}/fence`) pass without user credentials: their endpoints check the request signature.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from conveyor.api.rest_extension import (
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RestRequest,
    RestResponse,
)
from conveyor.errors import ConfigError
from conveyor.rest.basic_auth.credentials import Credentials
from conveyor.rest.basic_auth.jaas import read_jaas_config
from conveyor.rest.server_info import version
from conveyor.settings.properties import jvm_option

logger = logging.getLogger(__name__)

JAAS_CONFIG_PROPERTY = "java.security.auth.login.config"
LOGIN_CONTEXT = "KafkaConnect"
PROPERTY_FILE_LOGIN_MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
REALM = LOGIN_CONTEXT
UNAUTHORIZED_MESSAGE = "User cannot access the resource."
_INTERNAL_REQUESTS = (
    ("POST", re.compile(r"/?connectors/[^/]+/tasks/?")),
    ("PUT", re.compile(r"/?connectors/[^/]+/fence/?")),
    ("GET", re.compile(r"/?conveyor/internal/worker/?")),
)


class BasicAuthSecurityRestExtension(ConnectRestExtension):
    """HTTP basic authentication against a credentials file (Kafka's class of the same name)."""

    def __init__(self) -> None:
        self._credentials: Credentials | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        self._credentials = Credentials.read(credentials_file(jaas_config_path(configs)))

    def register(self, context: ConnectRestExtensionContext) -> None:
        if self._credentials is None:
            raise ConfigError("BasicAuthSecurityRestExtension was registered before it was configured")
        context.register_filter(BasicAuthFilter(self._credentials))

    def version(self) -> str:
        return version()


class BasicAuthFilter:
    """Lets through requests with a known user and password, and internal requests; answers others 401.

    A slow hash (bcrypt) is checked once per user and password: the filter then remembers, per user, a
    keyed digest of the last password that passed, so a client polling the API costs one HMAC a request.
    """

    def __init__(self, credentials: Credentials) -> None:
        self._credentials = credentials
        self._digest_key = secrets.token_bytes(32)
        self._passed: dict[str, bytes] = {}

    def __call__(self, request: RestRequest) -> RestResponse | None:
        if is_internal_request(request):
            return None
        user_and_password = basic_credentials(request.headers.get("authorization"))
        if user_and_password is not None and self._authenticated(*user_and_password):
            return None
        logger.debug("Request %s %s failed authentication", request.method, request.path)
        return RestResponse.error(401, UNAUTHORIZED_MESSAGE, {"WWW-Authenticate": f'Basic realm="{REALM}"'})

    def _authenticated(self, user: str, password: str) -> bool:
        digest = hmac.digest(self._digest_key, password.encode(), "sha256")
        passed = self._passed.get(user)
        if passed is not None and hmac.compare_digest(passed, digest):
            return True
        if not self._credentials.check(user, password):
            return False
        self._passed[user] = digest
        return True


def is_internal_request(request: RestRequest) -> bool:
    """Whether the request is one workers send each other, signed rather than user-authenticated."""
    return any(
        request.method == method and pattern.fullmatch(request.path) for method, pattern in _INTERNAL_REQUESTS
    )


def basic_credentials(authorization: str | None) -> tuple[str, str] | None:
    """The user and password of a `Basic` Authorization header, or None if it carries none."""
    if authorization is None:
        return None
    scheme, _, encoded = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, colon, password = decoded.partition(":")
    return (user, password) if colon and user else None


def jaas_config_path(configs: Mapping[str, str]) -> Path:
    """Where the JAAS configuration is: the worker property, else the JVM option in `KAFKA_OPTS`."""
    configured = configs.get(JAAS_CONFIG_PROPERTY)
    if configured:
        return Path(configured)
    option = jvm_option(JAAS_CONFIG_PROPERTY)
    if option:
        return Path(option)
    raise ConfigError(
        f"BasicAuthSecurityRestExtension needs a JAAS configuration: set the worker property "
        f"{JAAS_CONFIG_PROPERTY} (or -D{JAAS_CONFIG_PROPERTY}=<file> in KAFKA_OPTS)"
    )


def credentials_file(jaas_config: Path) -> Path:
    """The `file` option of the `KafkaConnect` entry's property-file login module."""
    modules = read_jaas_config(jaas_config).get(LOGIN_CONTEXT)
    if not modules:
        raise ConfigError(f"The JAAS configuration {jaas_config} has no {LOGIN_CONTEXT} entry")
    for module in modules:
        if module.class_name == PROPERTY_FILE_LOGIN_MODULE:
            if "file" not in module.options:
                raise ConfigError(f"{module.class_name} in {jaas_config} has no file option")
            return Path(module.options["file"])
    names = ", ".join(module.class_name for module in modules)
    raise ConfigError(
        f"The {LOGIN_CONTEXT} entry of {jaas_config} uses {names}; Conveyor supports only "
        f"{PROPERTY_FILE_LOGIN_MODULE}"
    )
