"""The transformations and predicates that ship with Conveyor, keyed by Kafka's simple class names."""

from __future__ import annotations

from conveyor.api.config.classes import resolve_class
from conveyor.transforms.cast import CastKey, CastValue
from conveyor.transforms.drop_headers import DropHeaders
from conveyor.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from conveyor.transforms.extract_new_record_state import ExtractNewRecordState
from conveyor.transforms.filter import Filter
from conveyor.transforms.flatten import FlattenKey, FlattenValue
from conveyor.transforms.header_from import HeaderFromKey, HeaderFromValue
from conveyor.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from conveyor.transforms.insert_field import InsertFieldKey, InsertFieldValue
from conveyor.transforms.insert_header import InsertHeader
from conveyor.transforms.mask_field import MaskFieldKey, MaskFieldValue
from conveyor.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from conveyor.transforms.regex_router import RegexRouter
from conveyor.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from conveyor.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from conveyor.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from conveyor.transforms.timestamp_router import TimestampRouter
from conveyor.transforms.value_to_key import ValueToKey

KAFKA_TRANSFORMS_PACKAGE = "org.apache.kafka.connect.transforms"
KAFKA_PREDICATES_PACKAGE = "org.apache.kafka.connect.transforms.predicates"
DEBEZIUM_TRANSFORMS_PACKAGE = "io.debezium.transforms"

BUILTIN_TRANSFORMS: dict[str, type] = {
    "Cast$Key": CastKey,
    "Cast$Value": CastValue,
    "DropHeaders": DropHeaders,
    "ExtractField$Key": ExtractFieldKey,
    "ExtractField$Value": ExtractFieldValue,
    "Filter": Filter,
    "Flatten$Key": FlattenKey,
    "Flatten$Value": FlattenValue,
    "HeaderFrom$Key": HeaderFromKey,
    "HeaderFrom$Value": HeaderFromValue,
    "HoistField$Key": HoistFieldKey,
    "HoistField$Value": HoistFieldValue,
    "InsertField$Key": InsertFieldKey,
    "InsertField$Value": InsertFieldValue,
    "InsertHeader": InsertHeader,
    "MaskField$Key": MaskFieldKey,
    "MaskField$Value": MaskFieldValue,
    "RegexRouter": RegexRouter,
    "ReplaceField$Key": ReplaceFieldKey,
    "ReplaceField$Value": ReplaceFieldValue,
    "SetSchemaMetadata$Key": SetSchemaMetadataKey,
    "SetSchemaMetadata$Value": SetSchemaMetadataValue,
    "TimestampConverter$Key": TimestampConverterKey,
    "TimestampConverter$Value": TimestampConverterValue,
    "TimestampRouter": TimestampRouter,
    "ValueToKey": ValueToKey,
}
"""Kafka's simple name (``InsertField$Value``) of each built-in transformation, to its class."""

DEBEZIUM_TRANSFORMS: dict[str, type] = {
    "ExtractNewRecordState": ExtractNewRecordState,
}
"""Debezium's transformations that Conveyor ships, by simple name (in ``io.debezium.transforms``)."""

BUILTIN_PREDICATES: dict[str, type] = {
    "HasHeaderKey": HasHeaderKey,
    "RecordIsTombstone": RecordIsTombstone,
    "TopicNameMatches": TopicNameMatches,
}
"""Kafka's simple name of each built-in predicate, to its class."""


def resolve_builtin_plugin(kind: str, class_name: str) -> type:
    """Find a built-in transformation or predicate by Kafka's fully qualified or simple class name."""
    registry, package = (
        (BUILTIN_PREDICATES, KAFKA_PREDICATES_PACKAGE)
        if kind == "predicate"
        else (BUILTIN_TRANSFORMS, KAFKA_TRANSFORMS_PACKAGE)
    )
    simple = class_name.removeprefix(package + ".")
    if simple in registry:
        return registry[simple]
    debezium = class_name.removeprefix(DEBEZIUM_TRANSFORMS_PACKAGE + ".")
    if kind != "predicate" and debezium in DEBEZIUM_TRANSFORMS:
        return DEBEZIUM_TRANSFORMS[debezium]
    return resolve_class(class_name)
