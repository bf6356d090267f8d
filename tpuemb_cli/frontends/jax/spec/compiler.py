"""A spec with a `jax` section to the ``EmbeddingSpecProto`` jax-tpu-embedding writes for it
(``tpuemb compile --target jax``): the library's stacking (`jax_layout.layout`), then its
``create_proto_from_feature_specs`` (v0.1.0, ``lib/nn/embedding.py``): stacks in the order their
first feature comes, each stack's tables in the order their first feature comes, each feature
under its table; the fields the library sets, and no other (0.1.0 records no optimizer, combiner
or table limits in the proto).

0.2.0 (``lib/nn/embedding_proto_utils.py``) writes the same and three fields more: each stack's
``activation_mem_bytes_limit`` (the stack's own, `jax.stack_activation_mem_bytes_limit`; else
auto-stacking's for a stack it made; else the 2 MiB default) and each table's
``combiner`` and ``optimizer`` (`jax_optimizer_proto`). It stacks the same way, but for one thing
the spec cannot say and tpuemb does not model: it also groups tables by quantization; and it names
a learning-rate schedule by a tag the spec does not hold. `version_refusal` says when a spec has
either."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.jax.spec.layout import Layout, layout
from tpuemb_cli.frontends.jax.spec.optimizer_proto import optimizer_proto
from tpuemb_cli.frontends.jax.spec.stacking import activation_limit, stacking, table_of
from tpuemb_cli.frontends.jax.spec.versions import DEFAULT
from tpuemb_cli.pb.jax.embedding_spec_pb2 import (
    EmbeddingSpecProto,
    StackedTableSpecProto,
    TableSpecProto,
)

# embedding_spec.DEFAULT_ACTIVATION_MEM_BYTES_LIMIT (0.2.0): what a stack records when the script
# gives stack_tables and auto_stack_tables no other.
DEFAULT_ACTIVATION_MEM_BYTES_LIMIT = 2048 * 1024


def version_refusal(spec: Any, version: str) -> str | None:
    """Why ``spec``'s proto for ``version`` cannot be written as the library writes it, or None."""
    if version == DEFAULT:
        return None
    for table in spec.tables:
        if table.jax.optimizer.learning_rate.WhichOneof("value") == "schedule":
            return (
                f"table {table.name!r} has a learning-rate schedule: jax-tpu-embedding {version} "
                "records it by the callable's tag (its `tag`, else its module and name), which the "
                "spec does not hold; compile it for 0.1.0 (--jax-version 0.1.0)"
            )
    stacked = spec.jax.auto_stack or any(t.jax.stack for t in spec.tables)
    if stacked and any(t.HasField("quantization") for t in spec.tables):
        return (
            f"a stacked spec with a quantized table: jax-tpu-embedding {version} also stacks by "
            "quantization, which tpuemb does not model; compile it for 0.1.0 (--jax-version 0.1.0)"
        )
    return None


def _activation_limit(spec: Any, name: str, made_by_auto: bool) -> int:
    """The ``activation_mem_bytes_limit`` 0.2.0 records for stack ``name``: its StackedTableSpec's
    (``stack_tables``' argument; ``auto_stack_tables`` passes its own on)."""
    own = spec.jax.stack_activation_mem_bytes_limit
    if name in own:
        return int(own[name])
    return activation_limit(spec) if made_by_auto else DEFAULT_ACTIVATION_MEM_BYTES_LIMIT


def compile_jax_spec(
    spec: Any, laid_out: Layout | None = None, version: str = DEFAULT
) -> EmbeddingSpecProto:
    """The library's ``EmbeddingSpecProto`` for ``spec`` (an EmbeddingSpec with a `jax` section),
    from its layout (computed here unless given), as release ``version`` writes it;
    `JaxStackingError` for a spec the library would refuse. For 0.2.0, the caller checks
    `version_refusal` first."""
    laid_out = laid_out or layout(spec)
    newer = version != DEFAULT
    # Which stacks auto-stacking made, for their activation limit (0.2.0 records it).
    made_by_auto = (
        {name for name, _ in stacking(spec).auto} if newer and spec.jax.auto_stack else set()
    )
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
                activation_mem_bytes_limit=(
                    _activation_limit(spec, stack.name, stack.name in made_by_auto)
                    if newer
                    else None
                ),
            )
            tables[stack.name] = {}
        if table_index not in tables[stack.name]:
            setting = next(t for t in stack.tables if t.table == table_index)
            # 0.2.0's fields given to the constructor, as the library does: the optimizer's
            # maps are copied the library's way, so their entries serialize in its order.
            training: dict[str, Any] = (
                {"combiner": table.combiner, "optimizer": optimizer_proto(table.jax.optimizer)}
                if newer
                else {}
            )
            tables[stack.name][table_index] = TableSpecProto(
                table_name=table.name,
                vocab_size=table.vocabulary_size,
                embedding_dim=table.dim,
                padded_vocab_size=setting.padded_vocab_size,
                padded_embedding_dim=setting.padded_embedding_dim,
                row_offset_in_shard=setting.row_offset_in_shard,
                shard_rotation=setting.shard_rotation,
                **training,
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
