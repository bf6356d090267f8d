"""Stand-ins for jax-tpu-embedding's FeatureSpec, TableSpec and optimizer specs: the attributes
`tpuemb_cli.jax` reads, for tests that run without JAX."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tpuemb_cli.jax import lint_jax


class SGDOptimizerSpec:
    def __init__(self, learning_rate: Any = 0.001) -> None:
        self.learning_rate = learning_rate

    # As the library's: a hash of the hyperparameters, which an array learning rate fails.
    def __hash__(self) -> int:
        return hash((self.learning_rate,))


class AdagradOptimizerSpec:
    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: Any = 0.1) -> None:
        self.learning_rate = learning_rate
        self.initial_accumulator_value = initial_accumulator_value

    def __hash__(self) -> int:
        return hash((self.learning_rate, self.initial_accumulator_value))


class ArrayRate:
    """A 0-d array learning rate (``jnp.array(0.1)``): a number by ``float``, unhashable."""

    __hash__ = None  # type: ignore[assignment]
    shape = ()

    def __init__(self, value: float) -> None:
        self.value = value

    def __float__(self) -> float:
        return self.value


@dataclass(eq=False)
class Setting:
    stack_name: str
    padded_vocab_size: int = 0
    padded_embedding_dim: int = 0
    row_offset_in_shard: int = 0
    shard_rotation: int = 0


@dataclass(eq=False)
class StackedTableSpec:
    stack_name: str
    stack_vocab_size: int
    stack_embedding_dim: int
    total_sample_count: int
    max_ids_per_partition: int = 256
    max_unique_ids_per_partition: int = 256


@dataclass(eq=False)
class IdTransformation:
    row_offset: int
    col_offset: int
    col_shift: int


@dataclass(eq=False)
class TableSpec:
    name: str
    vocabulary_size: int = 1000
    embedding_dim: int = 16
    optimizer: Any = field(default_factory=SGDOptimizerSpec)
    combiner: str = "sum"
    max_ids_per_partition: int = 256
    max_unique_ids_per_partition: int = 256
    suggested_coo_buffer_size_per_device: int | None = None
    quantization_config: Any = None
    _setting_in_stack: Any = None
    _stacked_table_spec: Any = None


@dataclass(eq=False)
class FeatureSpec:
    name: str
    table_spec: TableSpec
    input_shape: tuple[int | None, ...] = (128, 1)
    output_shape: tuple[int | None, ...] = (128, 16)
    _id_transformation: Any = None


def codes(features: Any, **options: Any) -> list[str]:
    arguments = {"global_device_count": 8, "num_sc_per_device": 4, **options}
    return [finding.rule for finding in lint_jax(features, **arguments)]
