"""Every setting of the bundled librdkafka is either judged unsafe for a connector to set (it loads code,
runs a command, reads a file, reaches a URL, uses the host's cloud identity, is an API-only pointer, floods
the logs or changes the process) or reviewed as safe here: a librdkafka upgrade that adds settings fails
this test until someone decides about each one."""

from __future__ import annotations

import ctypes
from pathlib import Path

import confluent_kafka
import pytest

from conveyor.log.setting_risks import Risk, setting_risk

#: librdkafka's settings that only tune, name or secure the client's own connections to its brokers.
REVIEWED_SAFE = frozenset(
    """
    builtin.features client.id metadata.broker.list bootstrap.servers message.max.bytes message.copy.max.bytes
    receive.message.max.bytes max.in.flight.requests.per.connection max.in.flight metadata.recovery.strategy
    metadata.recovery.rebootstrap.trigger.ms topic.metadata.refresh.interval.ms metadata.max.age.ms
    topic.metadata.refresh.fast.interval.ms topic.metadata.refresh.fast.cnt topic.metadata.refresh.sparse
    topic.metadata.propagation.max.ms topic.blacklist socket.timeout.ms socket.blocking.max.ms
    socket.send.buffer.bytes socket.receive.buffer.bytes socket.keepalive.enable socket.nagle.disable
    socket.max.fails broker.address.ttl broker.address.family socket.connection.setup.timeout.ms
    connections.max.idle.ms reconnect.backoff.jitter.ms reconnect.backoff.ms reconnect.backoff.max.ms
    statistics.interval.ms log_level log.thread.name enable.random.seed log.connection.close
    api.version.request api.version.request.timeout.ms api.version.fallback.ms broker.version.fallback
    allow.auto.create.topics security.protocol ssl.cipher.suites ssl.curves.list ssl.sigalgs.list
    ssl.key.password ssl.key.pem ssl.certificate.pem https.ca.pem ssl.ca.pem ssl.ca.certificate.stores
    ssl.keystore.password enable.ssl.certificate.verification ssl.endpoint.identification.algorithm
    sasl.mechanisms sasl.mechanism sasl.kerberos.service.name sasl.kerberos.min.time.before.relogin
    sasl.username sasl.password sasl.oauthbearer.config enable.sasl.oauthbearer.unsecure.jwt
    sasl.oauthbearer.method sasl.oauthbearer.client.id sasl.oauthbearer.client.credentials.client.id
    sasl.oauthbearer.client.credentials.client.secret sasl.oauthbearer.client.secret sasl.oauthbearer.scope
    sasl.oauthbearer.extensions sasl.oauthbearer.sub.claim.name sasl.oauthbearer.grant.type
    sasl.oauthbearer.assertion.algorithm sasl.oauthbearer.assertion.private.key.passphrase
    sasl.oauthbearer.assertion.private.key.pem sasl.oauthbearer.assertion.claim.aud
    sasl.oauthbearer.assertion.claim.exp.seconds sasl.oauthbearer.assertion.claim.iss
    sasl.oauthbearer.assertion.claim.jti.include sasl.oauthbearer.assertion.claim.nbf.seconds
    sasl.oauthbearer.assertion.claim.sub group.id group.instance.id partition.assignment.strategy
    session.timeout.ms heartbeat.interval.ms group.protocol.type group.protocol group.remote.assignor
    coordinator.query.interval.ms max.poll.interval.ms enable.auto.commit auto.commit.interval.ms
    enable.auto.offset.store queued.min.messages queued.max.messages.kbytes fetch.wait.max.ms
    fetch.queue.backoff.ms fetch.message.max.bytes max.partition.fetch.bytes fetch.max.bytes fetch.min.bytes
    fetch.error.backoff.ms isolation.level enable.partition.eof check.crcs client.rack max.poll.records
    share.acknowledgement.mode transactional.id transaction.timeout.ms enable.idempotence
    enable.gapless.guarantee queue.buffering.max.messages queue.buffering.max.kbytes queue.buffering.max.ms
    linger.ms message.send.max.retries retries retry.backoff.ms retry.backoff.max.ms
    queue.buffering.backpressure.threshold compression.codec compression.type batch.num.messages batch.size
    delivery.report.only.error sticky.partitioning.linger.ms client.dns.lookup enable.metrics.push
    request.required.acks acks request.timeout.ms message.timeout.ms delivery.timeout.ms queuing.strategy
    produce.offset.report partitioner compression.level auto.commit.enable auto.offset.reset
    offset.store.sync.interval.ms consume.callback.max.messages
    """.split()  # noqa: SIM905
)


UNSAFE_VALUE = "$(id)"
"""A value that makes every setting whose risk depends on its value unsafe."""


def librdkafka_settings(folder: Path) -> set[str]:
    """The names of every setting the bundled librdkafka documents (its CONFIGURATION.md tables)."""
    bundled = Path(confluent_kafka.__file__).parent.parent / "confluent_kafka.libs"
    libraries = sorted(bundled.glob("librdkafka*"))
    assert libraries, "confluent-kafka's bundled librdkafka not found"
    rdkafka, libc = ctypes.CDLL(str(libraries[0])), ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    rdkafka.rd_kafka_conf_properties_show.argtypes = [ctypes.c_void_p]
    table = folder / "CONFIGURATION.md"
    stream = libc.fopen(str(table).encode(), b"w")
    rdkafka.rd_kafka_conf_properties_show(stream)
    libc.fclose(stream)
    names = set()
    for line in table.read_text().splitlines():
        name = line.split("|")[0].strip()
        if "|" in line and name and not name.startswith(("Property", "-")):
            names.add(name)
    return names


def test_every_librdkafka_setting_is_judged(tmp_path: Path) -> None:
    names = librdkafka_settings(tmp_path)
    assert len(names) > 150
    unjudged = {
        name for name in names if name not in REVIEWED_SAFE and setting_risk(name, UNSAFE_VALUE) is None
    }
    assert unjudged == set()


def test_no_reviewed_safe_setting_is_judged_unsafe() -> None:
    assert {name for name in REVIEWED_SAFE if setting_risk(name, UNSAFE_VALUE) is not None} == set()


@pytest.mark.parametrize(
    ("name", "risk"),
    [
        ("plugin.library.paths", Risk.CODE),
        ("plugin_library_paths", Risk.CODE),
        (" Plugin.Library.Paths ", Risk.CODE),
        ("ssl.engine.location", Risk.CODE),
        ("ssl_engine_id", Risk.CODE),
        ("ssl.providers", Risk.CODE),
        ("sasl.kerberos.kinit.cmd", Risk.COMMAND),
        ("sasl.kerberos.keytab", Risk.FILE),
        ("ssl.truststore.location", Risk.FILE),
        ("ssl.keystore.location", Risk.FILE),
        ("https.ca.location", Risk.FILE),
        ("sasl.oauthbearer.token.endpoint.url", Risk.URL),
        ("sasl.oauthbearer.jwks.endpoint.url", Risk.URL),
        ("debug", Risk.LOG_FLOOD),
        ("log.queue", Risk.LOG_FLOOD),
        ("internal.termination.signal", Risk.PROCESS),
        ("oauthbearer_token_refresh_cb", Risk.API_ONLY),
        ("logger", Risk.API_ONLY),
        ("some.future.key.file", Risk.FILE),
        ("some.future.endpoint.url", Risk.URL),
    ],
)
def test_a_setting_is_judged_by_its_name_in_any_spelling(name: str, risk: Risk) -> None:
    assert setting_risk(name, "anything") is risk


@pytest.mark.parametrize(
    ("name", "value", "risk"),
    [
        ("sasl.kerberos.principal", "connector-a/host.example.com@EXAMPLE.COM", None),
        ("sasl.kerberos.principal", "a; touch /tmp/x", Risk.COMMAND),
        ("sasl.kerberos.principal", "$(id)", Risk.COMMAND),
        ("sasl.kerberos.keytab", "/etc/conveyor/connector.keytab", Risk.FILE),
        ("sasl.kerberos.keytab", '/tmp/x"; touch /tmp/y; "', Risk.COMMAND),
        ("sasl.oauthbearer.metadata.authentication.type", "none", None),
        ("sasl.oauthbearer.metadata.authentication.type", "azure_imds", Risk.CLOUD_IDENTITY),
        ("sasl.oauthbearer.metadata.authentication.type", "aws_iam", Risk.CLOUD_IDENTITY),
        ("ssl.ca.location", "probe", None),
        ("ssl.ca.location", "/etc/ssl/certs", Risk.FILE),
        ("offset.store.method", "broker", None),
        ("offset.store.method", "file", Risk.FILE),
    ],
)
def test_some_settings_are_judged_by_their_value(name: str, value: str, risk: Risk | None) -> None:
    assert setting_risk(name, value) is risk
