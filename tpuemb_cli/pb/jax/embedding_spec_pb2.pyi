from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FeatureSpecProto(_message.Message):
    __slots__ = ("feature_name", "input_shape", "output_shape", "row_offset", "col_offset", "col_shift")
    FEATURE_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    ROW_OFFSET_FIELD_NUMBER: _ClassVar[int]
    COL_OFFSET_FIELD_NUMBER: _ClassVar[int]
    COL_SHIFT_FIELD_NUMBER: _ClassVar[int]
    feature_name: str
    input_shape: _containers.RepeatedScalarFieldContainer[int]
    output_shape: _containers.RepeatedScalarFieldContainer[int]
    row_offset: int
    col_offset: int
    col_shift: int
    def __init__(self, feature_name: _Optional[str] = ..., input_shape: _Optional[_Iterable[int]] = ..., output_shape: _Optional[_Iterable[int]] = ..., row_offset: _Optional[int] = ..., col_offset: _Optional[int] = ..., col_shift: _Optional[int] = ...) -> None: ...

class OptimizerSpecProto(_message.Message):
    __slots__ = ("type", "learning_rate", "learning_rate_tag", "float_params", "bool_params")
    class OptimizerType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OPTIMIZER_TYPE_UNSPECIFIED: _ClassVar[OptimizerSpecProto.OptimizerType]
        SGD: _ClassVar[OptimizerSpecProto.OptimizerType]
        ADAGRAD: _ClassVar[OptimizerSpecProto.OptimizerType]
        ADAM: _ClassVar[OptimizerSpecProto.OptimizerType]
        FTRL: _ClassVar[OptimizerSpecProto.OptimizerType]
        F2A: _ClassVar[OptimizerSpecProto.OptimizerType]
        ADAGRAD_MOMENTUM: _ClassVar[OptimizerSpecProto.OptimizerType]
        CUSTOM: _ClassVar[OptimizerSpecProto.OptimizerType]
    OPTIMIZER_TYPE_UNSPECIFIED: OptimizerSpecProto.OptimizerType
    SGD: OptimizerSpecProto.OptimizerType
    ADAGRAD: OptimizerSpecProto.OptimizerType
    ADAM: OptimizerSpecProto.OptimizerType
    FTRL: OptimizerSpecProto.OptimizerType
    F2A: OptimizerSpecProto.OptimizerType
    ADAGRAD_MOMENTUM: OptimizerSpecProto.OptimizerType
    CUSTOM: OptimizerSpecProto.OptimizerType
    class FloatParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class BoolParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: bool = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_TAG_FIELD_NUMBER: _ClassVar[int]
    FLOAT_PARAMS_FIELD_NUMBER: _ClassVar[int]
    BOOL_PARAMS_FIELD_NUMBER: _ClassVar[int]
    type: OptimizerSpecProto.OptimizerType
    learning_rate: float
    learning_rate_tag: str
    float_params: _containers.ScalarMap[str, float]
    bool_params: _containers.ScalarMap[str, bool]
    def __init__(self, type: _Optional[_Union[OptimizerSpecProto.OptimizerType, str]] = ..., learning_rate: _Optional[float] = ..., learning_rate_tag: _Optional[str] = ..., float_params: _Optional[_Mapping[str, float]] = ..., bool_params: _Optional[_Mapping[str, bool]] = ...) -> None: ...

class TableSpecProto(_message.Message):
    __slots__ = ("table_name", "vocab_size", "embedding_dim", "max_ids_per_partition", "max_unique_ids_per_partition", "padded_vocab_size", "padded_embedding_dim", "row_offset_in_shard", "shard_rotation", "feature_specs", "combiner", "optimizer")
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    VOCAB_SIZE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_DIM_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    MAX_UNIQUE_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    PADDED_VOCAB_SIZE_FIELD_NUMBER: _ClassVar[int]
    PADDED_EMBEDDING_DIM_FIELD_NUMBER: _ClassVar[int]
    ROW_OFFSET_IN_SHARD_FIELD_NUMBER: _ClassVar[int]
    SHARD_ROTATION_FIELD_NUMBER: _ClassVar[int]
    FEATURE_SPECS_FIELD_NUMBER: _ClassVar[int]
    COMBINER_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    table_name: str
    vocab_size: int
    embedding_dim: int
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    padded_vocab_size: int
    padded_embedding_dim: int
    row_offset_in_shard: int
    shard_rotation: int
    feature_specs: _containers.RepeatedCompositeFieldContainer[FeatureSpecProto]
    combiner: str
    optimizer: OptimizerSpecProto
    def __init__(self, table_name: _Optional[str] = ..., vocab_size: _Optional[int] = ..., embedding_dim: _Optional[int] = ..., max_ids_per_partition: _Optional[int] = ..., max_unique_ids_per_partition: _Optional[int] = ..., padded_vocab_size: _Optional[int] = ..., padded_embedding_dim: _Optional[int] = ..., row_offset_in_shard: _Optional[int] = ..., shard_rotation: _Optional[int] = ..., feature_specs: _Optional[_Iterable[_Union[FeatureSpecProto, _Mapping]]] = ..., combiner: _Optional[str] = ..., optimizer: _Optional[_Union[OptimizerSpecProto, _Mapping]] = ...) -> None: ...

class StackedTableSpecProto(_message.Message):
    __slots__ = ("stack_name", "stack_vocab_size", "stack_embedding_dim", "total_sample_count", "max_ids_per_partition", "max_unique_ids_per_partition", "num_sparsecores", "table_specs", "activation_mem_bytes_limit")
    STACK_NAME_FIELD_NUMBER: _ClassVar[int]
    STACK_VOCAB_SIZE_FIELD_NUMBER: _ClassVar[int]
    STACK_EMBEDDING_DIM_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SAMPLE_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    MAX_UNIQUE_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    NUM_SPARSECORES_FIELD_NUMBER: _ClassVar[int]
    TABLE_SPECS_FIELD_NUMBER: _ClassVar[int]
    ACTIVATION_MEM_BYTES_LIMIT_FIELD_NUMBER: _ClassVar[int]
    stack_name: str
    stack_vocab_size: int
    stack_embedding_dim: int
    total_sample_count: int
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    num_sparsecores: int
    table_specs: _containers.RepeatedCompositeFieldContainer[TableSpecProto]
    activation_mem_bytes_limit: int
    def __init__(self, stack_name: _Optional[str] = ..., stack_vocab_size: _Optional[int] = ..., stack_embedding_dim: _Optional[int] = ..., total_sample_count: _Optional[int] = ..., max_ids_per_partition: _Optional[int] = ..., max_unique_ids_per_partition: _Optional[int] = ..., num_sparsecores: _Optional[int] = ..., table_specs: _Optional[_Iterable[_Union[TableSpecProto, _Mapping]]] = ..., activation_mem_bytes_limit: _Optional[int] = ...) -> None: ...

class EmbeddingSpecProto(_message.Message):
    __slots__ = ("stacked_table_specs",)
    STACKED_TABLE_SPECS_FIELD_NUMBER: _ClassVar[int]
    stacked_table_specs: _containers.RepeatedCompositeFieldContainer[StackedTableSpecProto]
    def __init__(self, stacked_table_specs: _Optional[_Iterable[_Union[StackedTableSpecProto, _Mapping]]] = ...) -> None: ...
