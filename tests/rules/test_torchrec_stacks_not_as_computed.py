"""torchrec-stacks-not-as-computed (TE862): a built collection's recorded stacks against the
stacks torchrec computes for its topology (stand-in objects with torchrec's attributes here;
tests/test_torchrec_oracle.py reads torchrec's own)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.torchrec_specs import findings_of

# The facade `tpuemb_cli.torchrec` is this module; type checkers do not follow the import hook.
from tpuemb_cli.frontends.torchrec.api import lint_torchrec, spec_from_torchrec


@dataclass
class EmbeddingBagConfig:
    name: str
    num_embeddings: int
    embedding_dim: int
    feature_names: list[str]
    pooling: str = "SUM"


@dataclass
class SparseCoreEmbeddingConfig:
    config: Any
    max_seq_len: int | None = None
    max_ids_per_partition: int = 256
    max_unique_ids_per_partition: int = 256
    stack_table_name: str | None = None

    @property
    def name(self) -> str:  # torchrec's: the wrapped config's
        return str(self.config.name)


@dataclass
class Stacked:
    stack_table_name: str
    tables: list[Any]
    feature_names: list[str]
    stack_num_embeddings: int
    stack_embedding_dim: int
    total_sample_count_multiplier: int
    row_offsets_in_shard: dict[str, int]
    shard_rotations: dict[str, int]
    padded_vocab_sizes: dict[str, int]
    padded_embedding_dims: dict[str, int] = field(default_factory=dict)


class Adagrad:
    pass


class SparseCoreFusedEmbeddingBagCollection:
    def __init__(self, tables: list[Any], stacked: list[Stacked], devices: int) -> None:
        self._tables = tables
        self._optimizer_type = Adagrad
        self._optimizer_kwargs = {"lr": 0.01}
        self._batch_size = 2
        self._global_device_count = devices
        self._num_sc_per_device = 2
        self._stacked_configs = stacked


def _collection(padded: int, rows: int, rotation: int, devices: int) -> Any:
    tables = [SparseCoreEmbeddingConfig(EmbeddingBagConfig(n, 8, 8, [n])) for n in ("a", "b")]
    stacked = Stacked(
        "a_b",
        tables,
        ["a", "b"],
        2 * padded,
        8,
        2,
        {"a": 0, "b": rows},
        {"a": 0, "b": rotation},
        {"a": padded, "b": padded},
        {"a": 8, "b": 8},
    )
    return SparseCoreFusedEmbeddingBagCollection(tables, [stacked], devices)


def test_a_collection_whose_stacks_are_its_topologys() -> None:
    # One device of 2 SparseCores: 8 rows pad to 16, 8 a SparseCore; rotation 0 (step 2 mod 2).
    built = _collection(16, 8, 0, 1)
    spec = spec_from_torchrec(built)
    assert [s.stack_name for s in spec.stacks] == ["a_b"] and not spec.stack_calls
    assert [f.rule for f in lint_torchrec(built, isolated=True)] == []


def test_a_stack_laid_out_for_another_topology() -> None:
    # Stacked for 2 devices of 2 SparseCores (8 rows pad to 32), in a collection of 1 device.
    found = [
        (f.rule, f.path, f.message) for f in lint_torchrec(_collection(32, 8, 2, 1), isolated=True)
    ]
    assert found == [
        (
            "TE862",
            ("stacks", 0),
            "stack `a_b` of the collection has stack_num_embeddings 64 (computed 32) for its 1 "
            "devices of 2 SparseCores: it was laid out for another topology, and the "
            "collection's lookups read other rows than its tables'",
        )
    ]


def test_a_file_without_recorded_stacks() -> None:
    text = (
        'tables { name: "a" kind: "bag" num_embeddings: 8 embedding_dim: 8 feature_names: "a" }\n'
        'collection { batch_size: 2 optimizer { type: "Adagrad" } }'
    )
    assert findings_of(text) == []
