"""Single message transforms and predicates, as Kafka ships them, and the chains that run them."""

from conveyor.transforms.cast import Cast, CastKey, CastValue
from conveyor.transforms.chain import (
    PluginResolver,
    TransformationChain,
    TransformationStage,
)
from conveyor.transforms.chain_config import transformation_config_def
from conveyor.transforms.drop_headers import DropHeaders
from conveyor.transforms.extract_field import ExtractField, ExtractFieldKey, ExtractFieldValue
from conveyor.transforms.extract_new_record_state import ExtractNewRecordState
from conveyor.transforms.filter import Filter
from conveyor.transforms.flatten import Flatten, FlattenKey, FlattenValue
from conveyor.transforms.header_from import HeaderFrom, HeaderFromKey, HeaderFromValue
from conveyor.transforms.hoist_field import HoistField, HoistFieldKey, HoistFieldValue
from conveyor.transforms.insert_field import InsertField, InsertFieldKey, InsertFieldValue
from conveyor.transforms.insert_header import InsertHeader
from conveyor.transforms.mask_field import MaskField, MaskFieldKey, MaskFieldValue
from conveyor.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from conveyor.transforms.regex_router import RegexRouter
from conveyor.transforms.registry import (
    BUILTIN_PREDICATES,
    BUILTIN_TRANSFORMS,
    DEBEZIUM_TRANSFORMS,
    resolve_builtin_plugin,
)
from conveyor.transforms.replace_field import ReplaceField, ReplaceFieldKey, ReplaceFieldValue
from conveyor.transforms.set_schema_metadata import (
    SetSchemaMetadata,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
)
from conveyor.transforms.timestamp_converter import (
    TimestampConverter,
    TimestampConverterKey,
    TimestampConverterValue,
)
from conveyor.transforms.timestamp_router import TimestampRouter
from conveyor.transforms.value_to_key import ValueToKey

__all__ = [
    "BUILTIN_PREDICATES",
    "BUILTIN_TRANSFORMS",
    "DEBEZIUM_TRANSFORMS",
    "Cast",
    "CastKey",
    "CastValue",
    "DropHeaders",
    "ExtractField",
    "ExtractFieldKey",
    "ExtractFieldValue",
    "ExtractNewRecordState",
    "Filter",
    "Flatten",
    "FlattenKey",
    "FlattenValue",
    "HasHeaderKey",
    "HeaderFrom",
    "HeaderFromKey",
    "HeaderFromValue",
    "HoistField",
    "HoistFieldKey",
    "HoistFieldValue",
    "InsertField",
    "InsertFieldKey",
    "InsertFieldValue",
    "InsertHeader",
    "MaskField",
    "MaskFieldKey",
    "MaskFieldValue",
    "PluginResolver",
    "RecordIsTombstone",
    "RegexRouter",
    "ReplaceField",
    "ReplaceFieldKey",
    "ReplaceFieldValue",
    "SetSchemaMetadata",
    "SetSchemaMetadataKey",
    "SetSchemaMetadataValue",
    "TimestampConverter",
    "TimestampConverterKey",
    "TimestampConverterValue",
    "TimestampRouter",
    "TopicNameMatches",
    "TransformationChain",
    "TransformationStage",
    "ValueToKey",
    "resolve_builtin_plugin",
    "transformation_config_def",
]
