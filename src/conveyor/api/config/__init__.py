"""Config definitions: typed keys, defaults, validators, recommenders and the validate response.

>>> from conveyor.api.config import ConfigDef, ConfigType, Importance
>>> ConfigDef().define("topic", ConfigType.STRING, importance=Importance.HIGH).parse({"topic": " t "})
{'topic': 't'}
"""

from conveyor.api.config.classes import ClassNotFound, import_dotted_class, resolve_class, use_class_resolver
from conveyor.api.config.definition import ConfigDef, ConfigKey
from conveyor.api.config.infos import config_infos
from conveyor.api.config.parsing import parse_type, to_config_string
from conveyor.api.config.types import HIDDEN, NO_DEFAULT, ConfigType, Importance, Password, Width
from conveyor.api.config.validators import (
    CaseInsensitiveValidString,
    CompositeValidator,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Range,
    Recommender,
    Validator,
    ValidList,
    ValidString,
)
from conveyor.api.config.values import ConfigValue
from conveyor.api.errors import ConfigError

__all__ = [
    "HIDDEN",
    "NO_DEFAULT",
    "CaseInsensitiveValidString",
    "ClassNotFound",
    "CompositeValidator",
    "ConfigDef",
    "ConfigError",
    "ConfigKey",
    "ConfigType",
    "ConfigValue",
    "Importance",
    "LambdaValidator",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "Password",
    "Range",
    "Recommender",
    "ValidList",
    "ValidString",
    "Validator",
    "Width",
    "config_infos",
    "import_dotted_class",
    "parse_type",
    "resolve_class",
    "to_config_string",
    "use_class_resolver",
]
