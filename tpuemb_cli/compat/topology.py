"""What a change of the config's own fields does: topology, mode, batch size.

TensorFlow's mid-level API splits each table's rows over the hosts (one shard per host,
``make_sharded_variable_creator`` in tensorflow/python/tpu/tpu_embedding_v2.py) and saves the
shards as slices of one full variable (``ShardedVariable._gather_saveables_for_checkpoint`` in
tensorflow/python/distribute/sharded_variable.py), so a checkpoint restores onto another host
count; the cores and SPMD decide how activations are laid out, not what is saved.
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.compat.fields import differences, value
from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.sides import Side
from tpuemb_cli.model.paths import FieldPath

# Config field -> (kind, why).
FIELDS: dict[str, tuple[str, str]] = {
    "num_hosts": (
        "topology-change",
        "each table's rows are split over the hosts and saved as slices of one variable, so the "
        "checkpoint restores onto the new host count",
    ),
    "num_tensor_cores": (
        "topology-change",
        "the embedding variables live on the hosts, not the cores: the checkpoint restores; "
        "the global batch and the activations' layout change",
    ),
    "sharding_strategy": (
        "topology-change",
        "which host holds which rows changes; the checkpoint holds whole tables and restores",
    ),
    "spmd_sharding": (
        "topology-change",
        "SPMD decides how activations are split over cores, not what is saved: the checkpoint "
        "restores; the activations' shapes change",
    ),
    "pipeline_execution_with_tensor_core": (
        "training-change",
        "with pipelining, the embedding lookups of a step use the tables before the previous "
        "step's update",
    ),
    "mode": ("training-change", "the mode decides whether the tables are updated at all"),
    "batch_size_per_tensor_core": ("training-change", "the batch each core trains on changes"),
    "profile_data_directory": ("cosmetic", "profiling only"),
}
TABLES_AND_FEATURES = ("table_descriptor", "feature_descriptor")


def topology_changes(old: Side, new: Side) -> Iterator[Change]:
    before, after = old.config, new.config
    for field in after.DESCRIPTOR.fields:
        if field.name in TABLES_AND_FEATURES:
            continue
        if field.name == "num_tensor_cores" and old.compiled and new.compiled:
            yield from _cores_per_host(old, new)
            continue
        kind, why = FIELDS.get(field.name, ("training-change", "a setting of the whole config"))
        path: FieldPath = (field.name,)
        mine, theirs = getattr(before, field.name), getattr(after, field.name)
        if field.message_type is not None:
            found = list(differences(mine, theirs, path))
        elif mine != theirs:
            found = [(path, value(field, mine), value(field, theirs))]
        else:
            found = []
        for at, old_value, new_value in found:
            yield Change(
                kind,
                None,
                at,
                old_value,
                new_value,
                f"`{field.name}` changes from {old_value} to {new_value}: {why}",
            )


def _cores_per_host(old: Side, new: Side) -> Iterator[Change]:
    """Two specs: their own `cores_per_host`, not the config's `num_tensor_cores` (hosts x
    cores per host), which changes with the host count already reported."""
    before = old.document.message.topology.cores_per_host  # type: ignore[union-attr]
    after = new.document.message.topology.cores_per_host  # type: ignore[union-attr]
    if before != after:
        kind, why = FIELDS["num_tensor_cores"]
        yield Change(
            kind,
            None,
            ("num_tensor_cores",),
            before,
            after,
            f"`topology.cores_per_host` changes from {before} to {after}: {why}",
        )
