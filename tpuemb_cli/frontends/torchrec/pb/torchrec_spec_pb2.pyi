from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TorchRecSpec(_message.Message):
    __slots__ = ("tables", "collection", "stack_calls", "prepare", "stacks")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    STACK_CALLS_FIELD_NUMBER: _ClassVar[int]
    PREPARE_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[SparseCoreTable]
    collection: Collection
    stack_calls: _containers.RepeatedCompositeFieldContainer[StackCall]
    prepare: Topology
    stacks: _containers.RepeatedCompositeFieldContainer[Stack]
    def __init__(self, tables: _Optional[_Iterable[_Union[SparseCoreTable, _Mapping]]] = ..., collection: _Optional[_Union[Collection, _Mapping]] = ..., stack_calls: _Optional[_Iterable[_Union[StackCall, _Mapping]]] = ..., prepare: _Optional[_Union[Topology, _Mapping]] = ..., stacks: _Optional[_Iterable[_Union[Stack, _Mapping]]] = ...) -> None: ...

class SparseCoreTable(_message.Message):
    __slots__ = ("name", "kind", "num_embeddings", "embedding_dim", "feature_names", "pooling", "max_seq_len", "max_ids_per_partition", "max_unique_ids_per_partition", "suggested_coo_buffer_size_per_device", "stack_table_name", "data_type")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NUM_EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_DIM_FIELD_NUMBER: _ClassVar[int]
    FEATURE_NAMES_FIELD_NUMBER: _ClassVar[int]
    POOLING_FIELD_NUMBER: _ClassVar[int]
    MAX_SEQ_LEN_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    MAX_UNIQUE_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    SUGGESTED_COO_BUFFER_SIZE_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    STACK_TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    num_embeddings: int
    embedding_dim: int
    feature_names: _containers.RepeatedScalarFieldContainer[str]
    pooling: str
    max_seq_len: int
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    suggested_coo_buffer_size_per_device: int
    stack_table_name: str
    data_type: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., num_embeddings: _Optional[int] = ..., embedding_dim: _Optional[int] = ..., feature_names: _Optional[_Iterable[str]] = ..., pooling: _Optional[str] = ..., max_seq_len: _Optional[int] = ..., max_ids_per_partition: _Optional[int] = ..., max_unique_ids_per_partition: _Optional[int] = ..., suggested_coo_buffer_size_per_device: _Optional[int] = ..., stack_table_name: _Optional[str] = ..., data_type: _Optional[str] = ...) -> None: ...

class Topology(_message.Message):
    __slots__ = ("global_device_count", "num_sc_per_device")
    GLOBAL_DEVICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    NUM_SC_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    global_device_count: int
    num_sc_per_device: int
    def __init__(self, global_device_count: _Optional[int] = ..., num_sc_per_device: _Optional[int] = ...) -> None: ...

class Collection(_message.Message):
    __slots__ = ("type", "optimizer", "batch_size", "global_device_count", "num_sc_per_device", "auto_stack", "activation_mem_bytes_limit")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_DEVICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    NUM_SC_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    AUTO_STACK_FIELD_NUMBER: _ClassVar[int]
    ACTIVATION_MEM_BYTES_LIMIT_FIELD_NUMBER: _ClassVar[int]
    type: str
    optimizer: Optimizer
    batch_size: int
    global_device_count: int
    num_sc_per_device: int
    auto_stack: bool
    activation_mem_bytes_limit: int
    def __init__(self, type: _Optional[str] = ..., optimizer: _Optional[_Union[Optimizer, _Mapping]] = ..., batch_size: _Optional[int] = ..., global_device_count: _Optional[int] = ..., num_sc_per_device: _Optional[int] = ..., auto_stack: bool = ..., activation_mem_bytes_limit: _Optional[int] = ...) -> None: ...

class Optimizer(_message.Message):
    __slots__ = ("type", "kwargs", "other_kwargs")
    class KwargsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    KWARGS_FIELD_NUMBER: _ClassVar[int]
    OTHER_KWARGS_FIELD_NUMBER: _ClassVar[int]
    type: str
    kwargs: _containers.ScalarMap[str, float]
    other_kwargs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., kwargs: _Optional[_Mapping[str, float]] = ..., other_kwargs: _Optional[_Iterable[str]] = ...) -> None: ...

class StackCall(_message.Message):
    __slots__ = ("call", "tables", "tables_string", "name", "rotation", "fail_on_excess_padding", "global_device_count", "num_sc_per_device", "batch_size", "activation_mem_bytes_limit", "use_short_names")
    CALL_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TABLES_STRING_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    FAIL_ON_EXCESS_PADDING_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_DEVICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    NUM_SC_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    ACTIVATION_MEM_BYTES_LIMIT_FIELD_NUMBER: _ClassVar[int]
    USE_SHORT_NAMES_FIELD_NUMBER: _ClassVar[int]
    call: str
    tables: _containers.RepeatedScalarFieldContainer[str]
    tables_string: bool
    name: str
    rotation: int
    fail_on_excess_padding: bool
    global_device_count: int
    num_sc_per_device: int
    batch_size: int
    activation_mem_bytes_limit: int
    use_short_names: bool
    def __init__(self, call: _Optional[str] = ..., tables: _Optional[_Iterable[str]] = ..., tables_string: bool = ..., name: _Optional[str] = ..., rotation: _Optional[int] = ..., fail_on_excess_padding: bool = ..., global_device_count: _Optional[int] = ..., num_sc_per_device: _Optional[int] = ..., batch_size: _Optional[int] = ..., activation_mem_bytes_limit: _Optional[int] = ..., use_short_names: bool = ...) -> None: ...

class Stack(_message.Message):
    __slots__ = ("stack_name", "tables", "feature_names", "stack_num_embeddings", "stack_embedding_dim", "total_sample_count_multiplier", "row_offsets_in_shard", "shard_rotations", "padded_vocab_sizes", "padded_embedding_dims")
    class RowOffsetsInShardEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ShardRotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PaddedVocabSizesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PaddedEmbeddingDimsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    STACK_NAME_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    FEATURE_NAMES_FIELD_NUMBER: _ClassVar[int]
    STACK_NUM_EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    STACK_EMBEDDING_DIM_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SAMPLE_COUNT_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    ROW_OFFSETS_IN_SHARD_FIELD_NUMBER: _ClassVar[int]
    SHARD_ROTATIONS_FIELD_NUMBER: _ClassVar[int]
    PADDED_VOCAB_SIZES_FIELD_NUMBER: _ClassVar[int]
    PADDED_EMBEDDING_DIMS_FIELD_NUMBER: _ClassVar[int]
    stack_name: str
    tables: _containers.RepeatedScalarFieldContainer[str]
    feature_names: _containers.RepeatedScalarFieldContainer[str]
    stack_num_embeddings: int
    stack_embedding_dim: int
    total_sample_count_multiplier: int
    row_offsets_in_shard: _containers.ScalarMap[str, int]
    shard_rotations: _containers.ScalarMap[str, int]
    padded_vocab_sizes: _containers.ScalarMap[str, int]
    padded_embedding_dims: _containers.ScalarMap[str, int]
    def __init__(self, stack_name: _Optional[str] = ..., tables: _Optional[_Iterable[str]] = ..., feature_names: _Optional[_Iterable[str]] = ..., stack_num_embeddings: _Optional[int] = ..., stack_embedding_dim: _Optional[int] = ..., total_sample_count_multiplier: _Optional[int] = ..., row_offsets_in_shard: _Optional[_Mapping[str, int]] = ..., shard_rotations: _Optional[_Mapping[str, int]] = ..., padded_vocab_sizes: _Optional[_Mapping[str, int]] = ..., padded_embedding_dims: _Optional[_Mapping[str, int]] = ...) -> None: ...
