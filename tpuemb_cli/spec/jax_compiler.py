"""A spec with a `jax` section to the ``EmbeddingSpecProto`` jax-tpu-embedding writes for it
(``tpuemb compile --target jax``): the library's stacking (`jax_layout.layout`), then its
``create_proto_from_feature_specs`` (v0.1.0, ``lib/nn/embedding.py``): stacks in the order their
first feature comes, each stack's tables in the order their first feature comes, each feature
under its table; the fields the library sets, and no other (0.1.0 records no optimizer, combiner
or table limits in the proto)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.pb.jax.embedding_spec_pb2 import (
    EmbeddingSpecProto,
    StackedTableSpecProto,
    TableSpecProto,
)
from tpuemb_cli.spec.jax_layout import Layout, layout
from tpuemb_cli.spec.jax_stacking import table_of


def compile_jax_spec(spec: Any, laid_out: Layout | None = None) -> EmbeddingSpecProto:
    """The library's ``EmbeddingSpecProto`` for ``spec`` (an EmbeddingSpec with a `jax` section),
    from its layout (computed here unless given); `JaxStackingError` for a spec the library
    would refuse."""
    laid_out = laid_out or layout(spec)
    stacks: dict[str, StackedTableSpecProto] = {}
    tables: dict[str, dict[int, TableSpecProto]] = {}
    for index, feature in enumerate(spec.features):
        place = laid_out.features[index]
        stack = laid_out.stacks[place.stack]
        found = table_of(spec, feature)
        assert found is not None  # layout refuses a feature without a table
        table_index, table = found
        if stack.name not in stacks:
            stacks[stack.name] = StackedTableSpecProto(
                stack_name=stack.name,
                stack_vocab_size=stack.vocab_size,
                stack_embedding_dim=stack.embedding_dim,
                total_sample_count=stack.total_sample_count,
                max_ids_per_partition=stack.max_ids_per_partition,
                num_sparsecores=laid_out.num_sparsecores,
                max_unique_ids_per_partition=stack.max_unique_ids_per_partition,
            )
            tables[stack.name] = {}
        if table_index not in tables[stack.name]:
            setting = next(t for t in stack.tables if t.table == table_index)
            tables[stack.name][table_index] = TableSpecProto(
                table_name=table.name,
                vocab_size=table.vocabulary_size,
                embedding_dim=table.dim,
                padded_vocab_size=setting.padded_vocab_size,
                padded_embedding_dim=setting.padded_embedding_dim,
                row_offset_in_shard=setting.row_offset_in_shard,
                shard_rotation=setting.shard_rotation,
            )
        tables[stack.name][table_index].feature_specs.add(
            feature_name=feature.name,
            row_offset=place.row_offset,
            col_offset=place.col_offset,
            col_shift=place.col_shift,
            input_shape=feature.input_shape,
            output_shape=feature.output_shape,
        )
    for name, made in tables.items():
        stacks[name].table_specs.extend(made.values())
    return EmbeddingSpecProto(stacked_table_specs=stacks.values())
