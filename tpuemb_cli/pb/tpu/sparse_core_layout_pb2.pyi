from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SparseCoreTableLayout(_message.Message):
    __slots__ = ("table_name", "fdo_key", "stacked_table_name", "num_sparse_cores", "num_partitions", "total_rows_per_sparse_core_shard", "unsharded_shape", "unsharded_padded_shape", "sparse_core_shard_row_offset", "sparse_core_shard_rotation", "per_sparse_core_batch_size", "num_features")
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    FDO_KEY_FIELD_NUMBER: _ClassVar[int]
    STACKED_TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    NUM_SPARSE_CORES_FIELD_NUMBER: _ClassVar[int]
    NUM_PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ROWS_PER_SPARSE_CORE_SHARD_FIELD_NUMBER: _ClassVar[int]
    UNSHARDED_SHAPE_FIELD_NUMBER: _ClassVar[int]
    UNSHARDED_PADDED_SHAPE_FIELD_NUMBER: _ClassVar[int]
    SPARSE_CORE_SHARD_ROW_OFFSET_FIELD_NUMBER: _ClassVar[int]
    SPARSE_CORE_SHARD_ROTATION_FIELD_NUMBER: _ClassVar[int]
    PER_SPARSE_CORE_BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    NUM_FEATURES_FIELD_NUMBER: _ClassVar[int]
    table_name: str
    fdo_key: str
    stacked_table_name: str
    num_sparse_cores: int
    num_partitions: int
    total_rows_per_sparse_core_shard: int
    unsharded_shape: _containers.RepeatedScalarFieldContainer[int]
    unsharded_padded_shape: _containers.RepeatedScalarFieldContainer[int]
    sparse_core_shard_row_offset: int
    sparse_core_shard_rotation: int
    per_sparse_core_batch_size: int
    num_features: int
    def __init__(self, table_name: _Optional[str] = ..., fdo_key: _Optional[str] = ..., stacked_table_name: _Optional[str] = ..., num_sparse_cores: _Optional[int] = ..., num_partitions: _Optional[int] = ..., total_rows_per_sparse_core_shard: _Optional[int] = ..., unsharded_shape: _Optional[_Iterable[int]] = ..., unsharded_padded_shape: _Optional[_Iterable[int]] = ..., sparse_core_shard_row_offset: _Optional[int] = ..., sparse_core_shard_rotation: _Optional[int] = ..., per_sparse_core_batch_size: _Optional[int] = ..., num_features: _Optional[int] = ...) -> None: ...

class SparseCoreTableLayouts(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[SparseCoreTableLayout]
    def __init__(self, tables: _Optional[_Iterable[_Union[SparseCoreTableLayout, _Mapping]]] = ...) -> None: ...
