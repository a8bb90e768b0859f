"""How the basic-auth extension finds and reads its credentials: JAAS file, credentials file, hashes."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import bcrypt
import pytest

from conveyor.api import RestRequest
from conveyor.errors import ConfigError
from conveyor.rest.basic_auth import Credentials, verify_password
from conveyor.rest.basic_auth.extension import BasicAuthFilter, credentials_file, jaas_config_path
from conveyor.rest.extensions import extension_class

from .credentials import BASIC_AUTH_EXTENSION, write_credentials

BCRYPT_HASH = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()


@pytest.mark.parametrize(
    "stored",
    [
        "s3cret",
        "{noop}s3cret",
        BCRYPT_HASH,
        "{bcrypt}" + BCRYPT_HASH,
        "{sha256}" + hashlib.sha256(b"s3cret").hexdigest(),
        "{sha512}" + hashlib.sha512(b"s3cret").hexdigest().upper(),
    ],
    ids=["plain", "noop", "bcrypt-bare", "bcrypt", "sha256", "sha512"],
)
def test_a_stored_password_plain_or_hashed_accepts_the_password(stored: str) -> None:
    assert verify_password("s3cret", stored)
    assert not verify_password("s3cret!", stored)


def test_a_broken_bcrypt_hash_accepts_nothing() -> None:
    assert not verify_password("s3cret", "$2b$04$broken")


def test_the_jaas_file_is_the_worker_property_when_set(tmp_path: Path) -> None:
    configured = {"java.security.auth.login.config": str(tmp_path / "a.conf")}
    assert jaas_config_path(configured) == tmp_path / "a.conf"


def test_the_jaas_file_may_be_given_as_the_jvm_option_in_kafka_opts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_OPTS", f"-Xmx1g -Djava.security.auth.login.config={tmp_path}/jaas.conf")
    assert jaas_config_path({}) == tmp_path / "jaas.conf"


def test_without_a_jaas_file_the_extension_refuses_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFKA_OPTS", raising=False)
    extension = extension_class(BASIC_AUTH_EXTENSION)()
    with pytest.raises(ConfigError, match="needs a JAAS configuration"):
        extension.configure({})


def test_the_credentials_file_is_the_file_option_of_the_kafka_connect_entry(tmp_path: Path) -> None:
    assert credentials_file(write_credentials(tmp_path)) == tmp_path / "credentials.properties"


def test_a_jaas_file_without_a_kafka_connect_entry_is_refused(tmp_path: Path) -> None:
    jaas = tmp_path / "jaas.conf"
    jaas.write_text('KafkaServer { a.b.C required file="x"; };')
    with pytest.raises(ConfigError, match="has no KafkaConnect entry"):
        credentials_file(jaas)


def test_a_login_module_other_than_the_property_file_one_is_refused(tmp_path: Path) -> None:
    jaas = tmp_path / "jaas.conf"
    jaas.write_text("KafkaConnect { com.example.LdapLoginModule required url=ldap://x; };")
    with pytest.raises(ConfigError, match=r"uses com\.example\.LdapLoginModule"):
        credentials_file(jaas)


def test_a_malformed_jaas_file_is_refused_with_its_name(tmp_path: Path) -> None:
    jaas = tmp_path / "jaas.conf"
    jaas.write_text("KafkaConnect { a.b.C required file=")
    with pytest.raises(ConfigError, match=r"jaas\.conf is malformed"):
        credentials_file(jaas)


def test_an_unknown_extension_class_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"rest\.extension\.classes"):
        extension_class("com.example.NoSuchExtension")


def test_a_class_that_is_no_rest_extension_is_refused() -> None:
    with pytest.raises(ConfigError, match="Not a ConnectRestExtension"):
        extension_class("conveyor.api.config:ConfigDef")


def authorization(user: str, password: str) -> RestRequest:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return RestRequest("GET", "/connectors", {"authorization": f"Basic {token}"})


def test_after_a_user_passed_a_wrong_password_of_theirs_is_still_refused() -> None:
    check = BasicAuthFilter(Credentials({"bob": BCRYPT_HASH}))
    assert check(authorization("bob", "s3cret")) is None
    refused = check(authorization("bob", "s3cret!"))
    assert refused is not None
    assert refused.status == 401
    assert check(authorization("bob", "s3cret")) is None


def test_a_password_that_passed_for_one_user_does_not_pass_for_another() -> None:
    check = BasicAuthFilter(Credentials({"bob": BCRYPT_HASH, "eve": "other"}))
    assert check(authorization("bob", "s3cret")) is None
    assert check(authorization("eve", "s3cret")) is not None
