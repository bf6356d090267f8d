"""Stand-ins for jax-tpu-embedding's FeatureSpec, TableSpec and optimizer specs: the attributes
`tpuemb_cli.jax` reads, for tests that run without JAX."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tpuemb_cli.jax import lint_jax


class SGDOptimizerSpec:
    def __init__(self, learning_rate: Any = 0.001) -> None:
        self.learning_rate = learning_rate


class AdagradOptimizerSpec:
    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1) -> None:
        self.learning_rate = learning_rate
        self.initial_accumulator_value = initial_accumulator_value


@dataclass(eq=False)
class Setting:
    stack_name: str


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


@dataclass(eq=False)
class FeatureSpec:
    name: str
    table_spec: TableSpec
    input_shape: tuple[int | None, ...] = (128, 1)
    output_shape: tuple[int | None, ...] = (128, 16)


def codes(features: Any, **options: Any) -> list[str]:
    arguments = {"global_device_count": 8, "num_sc_per_device": 4, **options}
    return [finding.rule for finding in lint_jax(features, **arguments)]
