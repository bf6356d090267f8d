from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EmbeddingSpec(_message.Message):
    __slots__ = ("optimizer", "schedules", "tables", "features", "topology", "sparse_core", "jax")
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    SCHEDULES_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_FIELD_NUMBER: _ClassVar[int]
    SPARSE_CORE_FIELD_NUMBER: _ClassVar[int]
    JAX_FIELD_NUMBER: _ClassVar[int]
    optimizer: Optimizer
    schedules: _containers.RepeatedCompositeFieldContainer[Schedule]
    tables: _containers.RepeatedCompositeFieldContainer[Table]
    features: _containers.RepeatedCompositeFieldContainer[Feature]
    topology: Topology
    sparse_core: SparseCore
    jax: Jax
    def __init__(self, optimizer: _Optional[_Union[Optimizer, _Mapping]] = ..., schedules: _Optional[_Iterable[_Union[Schedule, _Mapping]]] = ..., tables: _Optional[_Iterable[_Union[Table, _Mapping]]] = ..., features: _Optional[_Iterable[_Union[Feature, _Mapping]]] = ..., topology: _Optional[_Union[Topology, _Mapping]] = ..., sparse_core: _Optional[_Union[SparseCore, _Mapping]] = ..., jax: _Optional[_Union[Jax, _Mapping]] = ...) -> None: ...

class Jax(_message.Message):
    __slots__ = ("global_device_count", "num_sc_per_device", "auto_stack", "long_stack_names", "rotation", "stack_max_ids_per_partition", "stack_max_unique_ids_per_partition", "stack_calls", "activation_mem_bytes_limit", "stack_activation_mem_bytes_limit", "fail_on_excess_padding")
    class StackMaxIdsPerPartitionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class StackMaxUniqueIdsPerPartitionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class StackActivationMemBytesLimitEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    GLOBAL_DEVICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    NUM_SC_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    AUTO_STACK_FIELD_NUMBER: _ClassVar[int]
    LONG_STACK_NAMES_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    STACK_MAX_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    STACK_MAX_UNIQUE_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    STACK_CALLS_FIELD_NUMBER: _ClassVar[int]
    ACTIVATION_MEM_BYTES_LIMIT_FIELD_NUMBER: _ClassVar[int]
    STACK_ACTIVATION_MEM_BYTES_LIMIT_FIELD_NUMBER: _ClassVar[int]
    FAIL_ON_EXCESS_PADDING_FIELD_NUMBER: _ClassVar[int]
    global_device_count: int
    num_sc_per_device: int
    auto_stack: bool
    long_stack_names: bool
    rotation: int
    stack_max_ids_per_partition: _containers.ScalarMap[str, int]
    stack_max_unique_ids_per_partition: _containers.ScalarMap[str, int]
    stack_calls: _containers.RepeatedCompositeFieldContainer[JaxStackCall]
    activation_mem_bytes_limit: int
    stack_activation_mem_bytes_limit: _containers.ScalarMap[str, int]
    fail_on_excess_padding: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, global_device_count: _Optional[int] = ..., num_sc_per_device: _Optional[int] = ..., auto_stack: bool = ..., long_stack_names: bool = ..., rotation: _Optional[int] = ..., stack_max_ids_per_partition: _Optional[_Mapping[str, int]] = ..., stack_max_unique_ids_per_partition: _Optional[_Mapping[str, int]] = ..., stack_calls: _Optional[_Iterable[_Union[JaxStackCall, _Mapping]]] = ..., activation_mem_bytes_limit: _Optional[int] = ..., stack_activation_mem_bytes_limit: _Optional[_Mapping[str, int]] = ..., fail_on_excess_padding: _Optional[_Iterable[str]] = ...) -> None: ...

class JaxStackCall(_message.Message):
    __slots__ = ("name", "tables")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    name: str
    tables: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., tables: _Optional[_Iterable[str]] = ...) -> None: ...

class JaxTable(_message.Message):
    __slots__ = ("optimizer", "max_ids_per_partition", "max_unique_ids_per_partition", "suggested_coo_buffer_size_per_device", "stack", "stack_position")
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    MAX_UNIQUE_IDS_PER_PARTITION_FIELD_NUMBER: _ClassVar[int]
    SUGGESTED_COO_BUFFER_SIZE_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    STACK_POSITION_FIELD_NUMBER: _ClassVar[int]
    optimizer: JaxOptimizer
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    suggested_coo_buffer_size_per_device: int
    stack: str
    stack_position: int
    def __init__(self, optimizer: _Optional[_Union[JaxOptimizer, _Mapping]] = ..., max_ids_per_partition: _Optional[int] = ..., max_unique_ids_per_partition: _Optional[int] = ..., suggested_coo_buffer_size_per_device: _Optional[int] = ..., stack: _Optional[str] = ..., stack_position: _Optional[int] = ...) -> None: ...

class JaxOptimizer(_message.Message):
    __slots__ = ("type", "learning_rate", "settings", "custom", "unhashable")
    class SettingsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    UNHASHABLE_FIELD_NUMBER: _ClassVar[int]
    type: str
    learning_rate: LearningRate
    settings: _containers.ScalarMap[str, float]
    custom: str
    unhashable: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., learning_rate: _Optional[_Union[LearningRate, _Mapping]] = ..., settings: _Optional[_Mapping[str, float]] = ..., custom: _Optional[str] = ..., unhashable: _Optional[_Iterable[str]] = ...) -> None: ...

class Schedule(_message.Message):
    __slots__ = ("name", "tag", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    tag: int
    description: str
    def __init__(self, name: _Optional[str] = ..., tag: _Optional[int] = ..., description: _Optional[str] = ...) -> None: ...

class LearningRate(_message.Message):
    __slots__ = ("constant", "schedule")
    CONSTANT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    constant: float
    schedule: str
    def __init__(self, constant: _Optional[float] = ..., schedule: _Optional[str] = ...) -> None: ...

class ClipValue(_message.Message):
    __slots__ = ("scalar", "range")
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    scalar: float
    range: ClipRange
    def __init__(self, scalar: _Optional[float] = ..., range: _Optional[_Union[ClipRange, _Mapping]] = ...) -> None: ...

class ClipRange(_message.Message):
    __slots__ = ("min", "max")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    min: float
    max: float
    def __init__(self, min: _Optional[float] = ..., max: _Optional[float] = ...) -> None: ...

class Optimizer(_message.Message):
    __slots__ = ("sgd", "adagrad", "adagrad_momentum", "adam", "ftrl", "custom", "learning_rate", "use_gradient_accumulation", "clip_weight_min", "clip_weight_max", "weight_decay_factor", "multiply_weight_decay_factor_by_learning_rate", "clipvalue", "low_dimensional_packing_status")
    SGD_FIELD_NUMBER: _ClassVar[int]
    ADAGRAD_FIELD_NUMBER: _ClassVar[int]
    ADAGRAD_MOMENTUM_FIELD_NUMBER: _ClassVar[int]
    ADAM_FIELD_NUMBER: _ClassVar[int]
    FTRL_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    USE_GRADIENT_ACCUMULATION_FIELD_NUMBER: _ClassVar[int]
    CLIP_WEIGHT_MIN_FIELD_NUMBER: _ClassVar[int]
    CLIP_WEIGHT_MAX_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_DECAY_FACTOR_FIELD_NUMBER: _ClassVar[int]
    MULTIPLY_WEIGHT_DECAY_FACTOR_BY_LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    CLIPVALUE_FIELD_NUMBER: _ClassVar[int]
    LOW_DIMENSIONAL_PACKING_STATUS_FIELD_NUMBER: _ClassVar[int]
    sgd: SGD
    adagrad: Adagrad
    adagrad_momentum: AdagradMomentum
    adam: Adam
    ftrl: FTRL
    custom: CustomOptimizer
    learning_rate: LearningRate
    use_gradient_accumulation: bool
    clip_weight_min: float
    clip_weight_max: float
    weight_decay_factor: float
    multiply_weight_decay_factor_by_learning_rate: bool
    clipvalue: ClipValue
    low_dimensional_packing_status: bool
    def __init__(self, sgd: _Optional[_Union[SGD, _Mapping]] = ..., adagrad: _Optional[_Union[Adagrad, _Mapping]] = ..., adagrad_momentum: _Optional[_Union[AdagradMomentum, _Mapping]] = ..., adam: _Optional[_Union[Adam, _Mapping]] = ..., ftrl: _Optional[_Union[FTRL, _Mapping]] = ..., custom: _Optional[_Union[CustomOptimizer, _Mapping]] = ..., learning_rate: _Optional[_Union[LearningRate, _Mapping]] = ..., use_gradient_accumulation: bool = ..., clip_weight_min: _Optional[float] = ..., clip_weight_max: _Optional[float] = ..., weight_decay_factor: _Optional[float] = ..., multiply_weight_decay_factor_by_learning_rate: bool = ..., clipvalue: _Optional[_Union[ClipValue, _Mapping]] = ..., low_dimensional_packing_status: bool = ...) -> None: ...

class SGD(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Adagrad(_message.Message):
    __slots__ = ("initial_accumulator_value",)
    INITIAL_ACCUMULATOR_VALUE_FIELD_NUMBER: _ClassVar[int]
    initial_accumulator_value: float
    def __init__(self, initial_accumulator_value: _Optional[float] = ...) -> None: ...

class AdagradMomentum(_message.Message):
    __slots__ = ("momentum", "use_nesterov", "exponent", "beta2", "epsilon")
    MOMENTUM_FIELD_NUMBER: _ClassVar[int]
    USE_NESTEROV_FIELD_NUMBER: _ClassVar[int]
    EXPONENT_FIELD_NUMBER: _ClassVar[int]
    BETA2_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    momentum: float
    use_nesterov: bool
    exponent: float
    beta2: float
    epsilon: float
    def __init__(self, momentum: _Optional[float] = ..., use_nesterov: bool = ..., exponent: _Optional[float] = ..., beta2: _Optional[float] = ..., epsilon: _Optional[float] = ...) -> None: ...

class Adam(_message.Message):
    __slots__ = ("beta_1", "beta_2", "epsilon", "lazy_adam", "sum_inside_sqrt")
    BETA_1_FIELD_NUMBER: _ClassVar[int]
    BETA_2_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    LAZY_ADAM_FIELD_NUMBER: _ClassVar[int]
    SUM_INSIDE_SQRT_FIELD_NUMBER: _ClassVar[int]
    beta_1: float
    beta_2: float
    epsilon: float
    lazy_adam: bool
    sum_inside_sqrt: bool
    def __init__(self, beta_1: _Optional[float] = ..., beta_2: _Optional[float] = ..., epsilon: _Optional[float] = ..., lazy_adam: bool = ..., sum_inside_sqrt: bool = ...) -> None: ...

class FTRL(_message.Message):
    __slots__ = ("learning_rate_power", "initial_accumulator_value", "l1_regularization_strength", "l2_regularization_strength", "beta", "multiply_linear_by_learning_rate", "allow_zero_accumulator")
    LEARNING_RATE_POWER_FIELD_NUMBER: _ClassVar[int]
    INITIAL_ACCUMULATOR_VALUE_FIELD_NUMBER: _ClassVar[int]
    L1_REGULARIZATION_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    L2_REGULARIZATION_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    MULTIPLY_LINEAR_BY_LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    ALLOW_ZERO_ACCUMULATOR_FIELD_NUMBER: _ClassVar[int]
    learning_rate_power: float
    initial_accumulator_value: float
    l1_regularization_strength: float
    l2_regularization_strength: float
    beta: float
    multiply_linear_by_learning_rate: bool
    allow_zero_accumulator: bool
    def __init__(self, learning_rate_power: _Optional[float] = ..., initial_accumulator_value: _Optional[float] = ..., l1_regularization_strength: _Optional[float] = ..., l2_regularization_strength: _Optional[float] = ..., beta: _Optional[float] = ..., multiply_linear_by_learning_rate: bool = ..., allow_zero_accumulator: bool = ...) -> None: ...

class CustomOptimizer(_message.Message):
    __slots__ = ("type", "slot_names")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SLOT_NAMES_FIELD_NUMBER: _ClassVar[int]
    type: str
    slot_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., slot_names: _Optional[_Iterable[str]] = ...) -> None: ...

class Quantization(_message.Message):
    __slots__ = ("num_buckets", "lower", "upper")
    NUM_BUCKETS_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    num_buckets: int
    lower: float
    upper: float
    def __init__(self, num_buckets: _Optional[int] = ..., lower: _Optional[float] = ..., upper: _Optional[float] = ...) -> None: ...

class Table(_message.Message):
    __slots__ = ("name", "vocabulary_size", "dim", "combiner", "optimizer", "quantization", "dtype", "jax")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VOCABULARY_SIZE_FIELD_NUMBER: _ClassVar[int]
    DIM_FIELD_NUMBER: _ClassVar[int]
    COMBINER_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    QUANTIZATION_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    JAX_FIELD_NUMBER: _ClassVar[int]
    name: str
    vocabulary_size: int
    dim: int
    combiner: str
    optimizer: Optimizer
    quantization: Quantization
    dtype: str
    jax: JaxTable
    def __init__(self, name: _Optional[str] = ..., vocabulary_size: _Optional[int] = ..., dim: _Optional[int] = ..., combiner: _Optional[str] = ..., optimizer: _Optional[_Union[Optimizer, _Mapping]] = ..., quantization: _Optional[_Union[Quantization, _Mapping]] = ..., dtype: _Optional[str] = ..., jax: _Optional[_Union[JaxTable, _Mapping]] = ...) -> None: ...

class Feature(_message.Message):
    __slots__ = ("name", "table", "max_sequence_length", "output_shape", "input_shape", "key")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    MAX_SEQUENCE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    INPUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    name: str
    table: str
    max_sequence_length: int
    output_shape: _containers.RepeatedScalarFieldContainer[int]
    input_shape: _containers.RepeatedScalarFieldContainer[int]
    key: str
    def __init__(self, name: _Optional[str] = ..., table: _Optional[str] = ..., max_sequence_length: _Optional[int] = ..., output_shape: _Optional[_Iterable[int]] = ..., input_shape: _Optional[_Iterable[int]] = ..., key: _Optional[str] = ...) -> None: ...

class Topology(_message.Message):
    __slots__ = ("num_hosts", "cores_per_host", "num_cores_per_replica", "per_replica_batch_size", "pipeline_execution_with_tensor_core", "accelerator", "sparse_cores_per_chip")
    NUM_HOSTS_FIELD_NUMBER: _ClassVar[int]
    CORES_PER_HOST_FIELD_NUMBER: _ClassVar[int]
    NUM_CORES_PER_REPLICA_FIELD_NUMBER: _ClassVar[int]
    PER_REPLICA_BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    PIPELINE_EXECUTION_WITH_TENSOR_CORE_FIELD_NUMBER: _ClassVar[int]
    ACCELERATOR_FIELD_NUMBER: _ClassVar[int]
    SPARSE_CORES_PER_CHIP_FIELD_NUMBER: _ClassVar[int]
    num_hosts: int
    cores_per_host: int
    num_cores_per_replica: int
    per_replica_batch_size: int
    pipeline_execution_with_tensor_core: bool
    accelerator: str
    sparse_cores_per_chip: int
    def __init__(self, num_hosts: _Optional[int] = ..., cores_per_host: _Optional[int] = ..., num_cores_per_replica: _Optional[int] = ..., per_replica_batch_size: _Optional[int] = ..., pipeline_execution_with_tensor_core: bool = ..., accelerator: _Optional[str] = ..., sparse_cores_per_chip: _Optional[int] = ...) -> None: ...

class SparseCore(_message.Message):
    __slots__ = ("disable_table_stacking", "max_ids_per_chip_per_sample", "max_ids_per_table", "max_unique_ids_per_table", "allow_id_dropping", "initialize_tables_on_host", "enable_fast_table_initialization")
    class MaxIdsPerTableEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class MaxUniqueIdsPerTableEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    DISABLE_TABLE_STACKING_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_CHIP_PER_SAMPLE_FIELD_NUMBER: _ClassVar[int]
    MAX_IDS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    MAX_UNIQUE_IDS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    ALLOW_ID_DROPPING_FIELD_NUMBER: _ClassVar[int]
    INITIALIZE_TABLES_ON_HOST_FIELD_NUMBER: _ClassVar[int]
    ENABLE_FAST_TABLE_INITIALIZATION_FIELD_NUMBER: _ClassVar[int]
    disable_table_stacking: bool
    max_ids_per_chip_per_sample: int
    max_ids_per_table: _containers.ScalarMap[str, int]
    max_unique_ids_per_table: _containers.ScalarMap[str, int]
    allow_id_dropping: bool
    initialize_tables_on_host: bool
    enable_fast_table_initialization: bool
    def __init__(self, disable_table_stacking: bool = ..., max_ids_per_chip_per_sample: _Optional[int] = ..., max_ids_per_table: _Optional[_Mapping[str, int]] = ..., max_unique_ids_per_table: _Optional[_Mapping[str, int]] = ..., allow_id_dropping: bool = ..., initialize_tables_on_host: bool = ..., enable_fast_table_initialization: bool = ...) -> None: ...
