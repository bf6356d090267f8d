from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class KerasModel(_message.Message):
    __slots__ = ("layers", "keras_version", "target", "optimizer")
    LAYERS_FIELD_NUMBER: _ClassVar[int]
    KERAS_VERSION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    layers: _containers.RepeatedCompositeFieldContainer[DistributedEmbeddingLayer]
    keras_version: str
    target: Target
    optimizer: Optimizer
    def __init__(self, layers: _Optional[_Iterable[_Union[DistributedEmbeddingLayer, _Mapping]]] = ..., keras_version: _Optional[str] = ..., target: _Optional[_Union[Target, _Mapping]] = ..., optimizer: _Optional[_Union[Optimizer, _Mapping]] = ...) -> None: ...

class Target(_message.Message):
    __slots__ = ("backend", "global_device_count", "num_sc_per_device", "accelerator")
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_DEVICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    NUM_SC_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    ACCELERATOR_FIELD_NUMBER: _ClassVar[int]
    backend: str
    global_device_count: int
    num_sc_per_device: int
    accelerator: str
    def __init__(self, backend: _Optional[str] = ..., global_device_count: _Optional[int] = ..., num_sc_per_device: _Optional[int] = ..., accelerator: _Optional[str] = ...) -> None: ...

class DistributedEmbeddingLayer(_message.Message):
    __slots__ = ("path", "name", "tables", "features", "table_stacking", "weights_path")
    PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    TABLE_STACKING_FIELD_NUMBER: _ClassVar[int]
    WEIGHTS_PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    name: str
    tables: _containers.RepeatedCompositeFieldContainer[Table]
    features: _containers.RepeatedCompositeFieldContainer[Feature]
    table_stacking: TableStacking
    weights_path: str
    def __init__(self, path: _Optional[str] = ..., name: _Optional[str] = ..., tables: _Optional[_Iterable[_Union[Table, _Mapping]]] = ..., features: _Optional[_Iterable[_Union[Feature, _Mapping]]] = ..., table_stacking: _Optional[_Union[TableStacking, _Mapping]] = ..., weights_path: _Optional[str] = ...) -> None: ...

class TableStacking(_message.Message):
    __slots__ = ("mode", "none", "stacks", "ignored", "live_tuple", "live_tuples_in_list")
    MODE_FIELD_NUMBER: _ClassVar[int]
    NONE_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    IGNORED_FIELD_NUMBER: _ClassVar[int]
    LIVE_TUPLE_FIELD_NUMBER: _ClassVar[int]
    LIVE_TUPLES_IN_LIST_FIELD_NUMBER: _ClassVar[int]
    mode: str
    none: bool
    stacks: StackList
    ignored: str
    live_tuple: bool
    live_tuples_in_list: bool
    def __init__(self, mode: _Optional[str] = ..., none: bool = ..., stacks: _Optional[_Union[StackList, _Mapping]] = ..., ignored: _Optional[str] = ..., live_tuple: bool = ..., live_tuples_in_list: bool = ...) -> None: ...

class StackList(_message.Message):
    __slots__ = ("stacks",)
    STACKS_FIELD_NUMBER: _ClassVar[int]
    stacks: _containers.RepeatedCompositeFieldContainer[Stack]
    def __init__(self, stacks: _Optional[_Iterable[_Union[Stack, _Mapping]]] = ...) -> None: ...

class Stack(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tables: _Optional[_Iterable[str]] = ...) -> None: ...

class Table(_message.Message):
    __slots__ = ("name", "vocabulary_size", "embedding_dim", "initializer", "optimizer", "combiner", "placement", "max_ids_per_partition", "max_unique_ids_per_partition")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VOCABULARY_SIZE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_DIM_FIELD_NUMBER: _ClassVar[int]
    INITIALIZER_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    COMBINER_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    MAX_UNIQUE_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    name: str
    vocabulary_size: int
    embedding_dim: int
    initializer: str
    optimizer: Optimizer
    combiner: str
    placement: str
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    def __init__(self, name: _Optional[str] = ..., vocabulary_size: _Optional[int] = ..., embedding_dim: _Optional[int] = ..., initializer: _Optional[str] = ..., optimizer: _Optional[_Union[Optimizer, _Mapping]] = ..., combiner: _Optional[str] = ..., placement: _Optional[str] = ..., max_ids_per_partition: _Optional[int] = ..., max_unique_ids_per_partition: _Optional[int] = ...) -> None: ...

class Optimizer(_message.Message):
    __slots__ = ("class_name", "by_name", "config", "learning_rate_schedule", "booleans", "integers", "schedule_shared_with", "name")
    class ConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    BY_NAME_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    BOOLEANS_FIELD_NUMBER: _ClassVar[int]
    INTEGERS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_SHARED_WITH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    class_name: str
    by_name: bool
    config: _containers.ScalarMap[str, float]
    learning_rate_schedule: str
    booleans: _containers.RepeatedScalarFieldContainer[str]
    integers: _containers.RepeatedScalarFieldContainer[str]
    schedule_shared_with: str
    name: str
    def __init__(self, class_name: _Optional[str] = ..., by_name: bool = ..., config: _Optional[_Mapping[str, float]] = ..., learning_rate_schedule: _Optional[str] = ..., booleans: _Optional[_Iterable[str]] = ..., integers: _Optional[_Iterable[str]] = ..., schedule_shared_with: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class Feature(_message.Message):
    __slots__ = ("key", "name", "table", "input_shape", "output_shape")
    KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    INPUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    key: str
    name: str
    table: int
    input_shape: _containers.RepeatedScalarFieldContainer[int]
    output_shape: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, key: _Optional[str] = ..., name: _Optional[str] = ..., table: _Optional[int] = ..., input_shape: _Optional[_Iterable[int]] = ..., output_shape: _Optional[_Iterable[int]] = ...) -> None: ...
