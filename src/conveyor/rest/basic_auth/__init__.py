"""HTTP basic authentication for the REST API, as Kafka Connect's `BasicAuthSecurityRestExtension`."""

from conveyor.rest.basic_auth.credentials import Credentials, verify_password
from conveyor.rest.basic_auth.extension import BasicAuthSecurityRestExtension
from conveyor.rest.basic_auth.jaas import JaasLoginModule, read_jaas_config

__all__ = [
    "BasicAuthSecurityRestExtension",
    "Credentials",
    "JaasLoginModule",
    "read_jaas_config",
    "verify_password",
]
