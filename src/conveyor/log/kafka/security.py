"""Kafka's client security settings, as a Kafka Connect user writes them, for librdkafka and for the
group protocol client.

Users copy `security.protocol`, `sasl.mechanism`, `sasl.jaas.config` and `ssl.truststore.*` /
`ssl.keystore.*` from their Java clients. librdkafka names some of these otherwise (`sasl.username`,
`ssl.ca.location`, ...) and refuses the Java-only ones, so `librdkafka_settings` translates them once;
`WireSecurity` then reads the translated settings for the connections that speak Kafka's protocol directly.
"""

from __future__ import annotations

import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.log.errors import InvalidConfigError

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")

_JAAS_OPTION = re.compile(r"""(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s;]+))""")
#: Java client keys with no librdkafka counterpart and no effect on how this client connects.
_JAVA_ONLY = frozenset(
    {
        "ssl.protocol",
        "ssl.provider",
        "ssl.keymanager.algorithm",
        "ssl.trustmanager.algorithm",
        "ssl.secure.random.implementation",
        "ssl.engine.factory.class",
        "ssl.truststore.password",
        "sasl.login.class",
        "sasl.login.callback.handler.class",
        "sasl.client.callback.handler.class",
    }
)


def librdkafka_settings(settings: Mapping[str, object]) -> dict[str, object]:
    """``settings`` with Kafka's Java security keys turned into librdkafka's; other keys unchanged."""
    result = {key: value for key, value in settings.items() if key not in _JAVA_ONLY}
    jaas = result.pop("sasl.jaas.config", None)
    if jaas is not None:
        for option, value in jaas_options(str(jaas)).items():
            if option in ("username", "password"):
                result.setdefault(f"sasl.{option}", value)
    if "ssl.endpoint.identification.algorithm" in result:
        algorithm = str(result["ssl.endpoint.identification.algorithm"]).strip()
        result["ssl.endpoint.identification.algorithm"] = algorithm.lower() or "none"
    _translate_truststore(result)
    _translate_keystore(result)
    result.pop("ssl.enabled.protocols", None)
    suites = result.pop("ssl.cipher.suites", None)
    if suites:
        result["ssl.cipher.suites"] = str(suites).replace(",", ":")
    return result


def jaas_options(jaas: str) -> dict[str, str]:
    """The options of a one-module JAAS line: ``...LoginModule required username="u" password="p";``."""
    module, _, rest = jaas.strip().partition(" ")
    if not module.endswith("LoginModule"):
        raise InvalidConfigError(f"sasl.jaas.config must start with a login module's class, not {module!r}")
    options = {}
    for match in _JAAS_OPTION.finditer(rest):
        name, double, single, bare = match.groups()
        quoted = double if double is not None else single
        options[name] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
    return options


def _translate_truststore(result: dict[str, object]) -> None:
    kind = str(result.pop("ssl.truststore.type", "JKS")).upper()
    location = result.pop("ssl.truststore.location", None)
    certificates = result.pop("ssl.truststore.certificates", None)
    if location is None and certificates is None:
        return
    if kind != "PEM":
        raise InvalidConfigError(
            f"ssl.truststore.type={kind}: Kafka clients here read PEM trust stores only; "
            "export the CA certificates as PEM (ssl.truststore.type=PEM) or set ssl.ca.location"
        )
    if location is not None:
        result.setdefault("ssl.ca.location", location)
    else:
        result.setdefault("ssl.ca.pem", certificates)


def _translate_keystore(result: dict[str, object]) -> None:
    kind = str(result.pop("ssl.keystore.type", "PKCS12")).upper()
    key, chain = result.pop("ssl.keystore.key", None), result.pop("ssl.keystore.certificate.chain", None)
    if kind == "PEM":
        location = result.pop("ssl.keystore.location", None)
        result.pop("ssl.keystore.password", None)
        if location is not None:
            result.setdefault("ssl.certificate.location", location)
            result.setdefault("ssl.key.location", location)
        if key is not None and chain is not None:
            result.setdefault("ssl.key.pem", key)
            result.setdefault("ssl.certificate.pem", chain)
    elif kind == "JKS" and "ssl.keystore.location" in result:
        raise InvalidConfigError(
            "ssl.keystore.type=JKS cannot be read; convert it to PKCS12 (keytool -importkeystore) or PEM"
        )


@dataclass(frozen=True)
class SaslCredentials:
    mechanism: str
    username: str
    password: str


@dataclass(frozen=True)
class WireSecurity:
    """How a connection that speaks Kafka's protocol itself secures and authenticates itself."""

    protocol: str = "PLAINTEXT"
    ssl_context: ssl.SSLContext | None = None
    sasl: SaslCredentials | None = None

    @classmethod
    def from_settings(cls, settings: Mapping[str, object]) -> WireSecurity:
        """Read librdkafka's names (``librdkafka_settings`` first for Kafka's)."""
        protocol = str(settings.get("security.protocol", "PLAINTEXT")).upper()
        if protocol not in PROTOCOLS:
            raise InvalidConfigError(f"security.protocol={protocol!r} is not one of {', '.join(PROTOCOLS)}")
        context = _ssl_context(settings) if protocol.endswith("SSL") else None
        sasl = _sasl(settings) if protocol.startswith("SASL") else None
        return cls(protocol, context, sasl)


def _ssl_context(settings: Mapping[str, object]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = str(settings.get("ssl.endpoint.identification.algorithm", "https")) == "https"
    try:
        if "ssl.ca.location" in settings:
            context.load_verify_locations(cafile=str(settings["ssl.ca.location"]))
        elif "ssl.ca.pem" in settings:
            context.load_verify_locations(cadata=str(settings["ssl.ca.pem"]))
        else:
            context.load_default_certs(ssl.Purpose.SERVER_AUTH)
        if "ssl.certificate.location" in settings:
            password = settings.get("ssl.key.password")
            context.load_cert_chain(
                str(settings["ssl.certificate.location"]),
                str(settings.get("ssl.key.location", settings["ssl.certificate.location"])),
                password=None if password is None else str(password),
            )
        elif "ssl.keystore.location" in settings:
            raise InvalidConfigError(
                "The group membership client reads PEM key stores only: set ssl.keystore.type=PEM "
                "(or ssl.certificate.location and ssl.key.location)"
            )
    except (OSError, ssl.SSLError) as error:
        raise InvalidConfigError(
            f"The TLS settings of the Kafka clients cannot be loaded: {error}"
        ) from error
    if "ssl.cipher.suites" in settings:
        context.set_ciphers(str(settings["ssl.cipher.suites"]))
    return context


def _sasl(settings: Mapping[str, object]) -> SaslCredentials:
    mechanism = str(settings.get("sasl.mechanism", settings.get("sasl.mechanisms", "GSSAPI"))).upper()
    if mechanism not in SASL_MECHANISMS:
        raise InvalidConfigError(
            f"sasl.mechanism={mechanism}: Conveyor's Kafka clients speak {', '.join(SASL_MECHANISMS)}"
        )
    username, password = settings.get("sasl.username"), settings.get("sasl.password")
    if username is None or password is None:
        raise InvalidConfigError(
            f"SASL {mechanism} needs a user name and password: set sasl.jaas.config (or sasl.username "
            "and sasl.password)"
        )
    return SaslCredentials(mechanism, str(username), str(password))
