"""What jax-tpu-embedding's own stacking left on FeatureSpecs it already stacked or prepared
(``stack_tables``, ``auto_stack_tables``, ``prepare_feature_specs_for_training``,
``update_preprocessing_parameters``), read into a spec by `tpuemb_cli.jax.spec_from_jax`.

A stacked TableSpec carries its ``_setting_in_stack`` (stack name, padded sizes,
``row_offset_in_shard``, ``shard_rotation``) and its ``_stacked_table_spec`` (the stack's sizes,
sample count and limits); a stacked FeatureSpec its ``_id_transformation``. The spec keeps what
tpuemb cannot recompute -- the rotation the stacks were made with and the stacks' limits -- and
`check_layout` then proves that tpuemb lays the spec out exactly as the objects say, so that
`compile --target jax` writes what ``create_proto_from_feature_specs`` writes. What one spec
cannot hold (stacks made with different rotations, tables stacked for another device count, a
layout tpuemb would place otherwise) is a `PreparedSpecError`, never a silently different spec.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any

from tpuemb_cli.frontends.jax.spec.layout import layout
from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError, samples, table_of
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec


class PreparedSpecError(ValueError):
    """FeatureSpecs the library stacked in a way one spec cannot say."""


def stacked_spec(table: Any) -> Any:
    """The library's StackedTableSpec of ``table``, or None when it is not stacked yet."""
    return getattr(table, "_stacked_table_spec", None)


def _setting(table: Any) -> Any:
    return getattr(table, "_setting_in_stack", None)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _stacks(tables: Sequence[Any]) -> dict[str, list[Any]]:
    """The tables the library stacked, by stack name, in their stack's row order."""
    found: dict[str, list[Any]] = {}
    for table in tables:
        stacked = stacked_spec(table)
        if stacked is not None:
            found.setdefault(str(stacked.stack_name), []).append(table)
    for members in found.values():
        members.sort(
            key=lambda table: _int(getattr(_setting(table), "row_offset_in_shard", 0)) or 0
        )
    return found


def _row_offsets(own: Sequence[Any], order: Sequence[Any]) -> list[int]:
    """The row offsets of the features ``own`` in a stack of their one table whose features
    the library laid in ``order``."""
    offsets: dict[int, int] = {}
    count = 0
    for feature in order:
        offsets[id(feature)] = count
        count += samples(feature.output_shape)
    return [offsets[id(feature)] for feature in own]


def stacks_of(tables: Sequence[Any], features: Sequence[Any]) -> dict[int, str]:
    """Each stacked table's stack (by ``id`` of the table), or "" where the library left it
    alone, read from what it did rather than from names: a table is in the stack its
    StackedTableSpec names when that stack holds other tables too, or has another name than the
    table. A stack of one table named after it was made either by ``stack_tables`` (or
    ``auto_stack_tables``), which lays the table's features in flatten order, or by
    ``prepare_feature_specs_for_training`` alone, which lays them by name: the features'
    ``_id_transformation`` row offsets say which, and so does a quantization_config or suggested
    COO buffer the table has and its stack lacks (only ``stack_tables`` drops them); where both
    orders agree and nothing was dropped, so do the layouts."""
    found: dict[int, str] = {}
    by_table: dict[int, list[Any]] = {}  # each table's features, in flatten order
    features_order = {id(feature): place for place, feature in enumerate(features)}
    for feature in features:
        by_table.setdefault(id(feature.table_spec), []).append(feature)
    for name, members in _stacks(tables).items():
        holders = {table.name for table in members}
        for table in members:
            found[id(table)] = name
        if holders != {name}:
            continue
        own = [feature for table in members for feature in by_table.get(id(table), [])]
        own.sort(key=lambda feature: features_order[id(feature)])
        read = [
            _int(getattr(getattr(feature, "_id_transformation", None), "row_offset", None))
            for feature in own
        ]
        by_name = sorted(own, key=lambda feature: str(feature.name))
        if read == _row_offsets(own, own) and read != _row_offsets(own, by_name):
            continue  # stacked on its own, in flatten order: a stack the spec must name
        if any(dropped(table, field) for table in members for field in DROPPED):
            continue  # stack_tables made it: prepare_feature_specs_for_training keeps both
        for table in members:
            found[id(table)] = ""
    return found


DROPPED = ("quantization_config", "suggested_coo_buffer_size_per_device")


def dropped(table: Any, field: str) -> bool:
    """Whether ``table`` has a ``field`` (one of `DROPPED`) its StackedTableSpec lacks:
    ``stack_tables`` leaves both out of the stacks it makes, while
    ``prepare_feature_specs_for_training`` copies them into a table alone's."""
    stacked = stacked_spec(table)
    return (
        stacked is not None
        and getattr(table, field, None) is not None
        and getattr(stacked, field, None) is None
    )


def rotation(tables: Sequence[Any], num_sparsecores: int) -> int | None:
    """The rotation the library's stacks of several tables were made with (modulo the
    SparseCores in all), or None when no stack of several says one; `PreparedSpecError` when two
    stacks say two, which a spec's one `jax.rotation` cannot hold."""
    if num_sparsecores < 1:
        return None
    found: dict[int, str] = {}
    for name, members in _stacks(tables).items():
        read = [_int(getattr(_setting(table), "shard_rotation", None)) for table in members]
        shifts = [shift for shift in read if shift is not None]
        if len(members) < 2 or len(shifts) < len(read):
            continue
        steps = {(after - before) % num_sparsecores for before, after in pairwise(shifts)}
        if shifts[0] != 0 or len(steps) > 1:
            raise PreparedSpecError(
                f'stack "{name}" has shard rotations {shifts} (tables '
                f"{[table.name for table in members]}): no one rotation makes them, and a spec "
                "holds one (jax.rotation)"
            )
        found.setdefault(steps.pop(), name)
    if len(found) > 1:
        described = ", ".join(f'{step} (stack "{name}")' for step, name in found.items())
        raise PreparedSpecError(
            f"the stacks were made with different rotations, {described}: a spec holds one "
            "(jax.rotation); stack the tables with one rotation"
        )
    return next(iter(found), None)


def stack_limits(tables: Sequence[Any]) -> dict[str, tuple[int, int]]:
    """Each stack of several tables' (max ids, max unique ids) per partition, as its
    StackedTableSpec holds them (what the script's limit functions, or a later
    ``update_preprocessing_parameters``, gave it)."""
    limits: dict[str, tuple[int, int]] = {}
    for name, members in _stacks(tables).items():
        stacked = stacked_spec(members[0])
        if len({table.name for table in members}) > 1:
            limits[name] = (
                int(stacked.max_ids_per_partition),
                int(stacked.max_unique_ids_per_partition),
            )
    return limits


def activation_limits(tables: Sequence[Any], default: int) -> dict[str, int]:
    """Each stack's ``activation_mem_bytes_limit`` where its StackedTableSpec holds another than
    ``default`` (0.2.0's field: ``stack_tables``' argument, or the one ``auto_stack_tables``
    passed on; 0.1.0's StackedTableSpec has none)."""
    limits: dict[str, int] = {}
    for name, members in _stacks(tables).items():
        limit = _int(getattr(stacked_spec(members[0]), "activation_mem_bytes_limit", None))
        if limit is not None and limit != default:
            limits[name] = limit
    return limits


def _differences(spec: EmbeddingSpec, features: Sequence[Any]) -> Iterator[str]:
    """Where tpuemb's layout of ``spec`` is not what the library left on the objects."""
    laid_out = layout(spec)
    for index, feature in enumerate(features):
        table = feature.table_spec
        stacked = stacked_spec(table)
        if stacked is None:
            continue
        place = laid_out.features[index]
        stack = laid_out.stacks[place.stack]
        found = table_of(spec, spec.features[index])
        assert found is not None  # layout refuses a feature without a table
        ours = next(t for t in stack.tables if t.table == found[0])
        setting = _setting(table)
        transformation = getattr(feature, "_id_transformation", None)
        compared: list[tuple[str, Any, Any]] = [
            ("its stack", stacked.stack_name, stack.name),
            ("its stack's vocabulary", stacked.stack_vocab_size, stack.vocab_size),
            ("its stack's embedding dimension", stacked.stack_embedding_dim, stack.embedding_dim),
            ("its stack's sample count", stacked.total_sample_count, stack.total_sample_count),
            ("its stack's max ids", stacked.max_ids_per_partition, stack.max_ids_per_partition),
            (
                "its stack's max unique ids",
                stacked.max_unique_ids_per_partition,
                stack.max_unique_ids_per_partition,
            ),
            ("its padded vocabulary", setting.padded_vocab_size, ours.padded_vocab_size),
            ("its padded dimension", setting.padded_embedding_dim, ours.padded_embedding_dim),
            ("its row offset in a shard", setting.row_offset_in_shard, ours.row_offset_in_shard),
            ("its shard rotation", setting.shard_rotation, ours.shard_rotation),
        ]
        if transformation is not None:
            compared += [
                ("the feature's row offset", transformation.row_offset, place.row_offset),
                ("the feature's column offset", transformation.col_offset, place.col_offset),
                ("the feature's column shift", transformation.col_shift, place.col_shift),
            ]
        for what, theirs, mine in compared:
            if theirs != mine:
                yield (
                    f'feature "{feature.name}" (table "{table.name}"): the library stacked it '
                    f"with {what} {theirs}, tpuemb lays it out with {mine}"
                )


def check_layout(spec: EmbeddingSpec, tables: Sequence[Any], features: Sequence[Any]) -> None:
    """`PreparedSpecError` unless tpuemb lays ``spec`` out as the library stacked ``features``
    (``tables``: theirs, in the spec's order). A spec the library would refuse is left to the
    rules (TE696), which say why."""
    if not any(stacked_spec(table) is not None for table in tables):
        return
    try:
        differences = list(_differences(spec, features))
    except JaxStackingError:
        return
    if differences:
        jax = spec.jax
        raise PreparedSpecError(
            "these FeatureSpecs were stacked in a way this spec cannot say: "
            + "; ".join(differences[:3])
            + (f" (and {len(differences) - 3} more)" if len(differences) > 3 else "")
            + f". Pass the global_device_count ({jax.global_device_count}) and "
            f"num_sc_per_device ({jax.num_sc_per_device}) the tables were stacked with, and "
            "the same features in the same structure; or pass the FeatureSpecs before stacking, "
            "with the stacks you ask for (stacks=, auto_stack=, rotation=, stack_limits=)"
        )
