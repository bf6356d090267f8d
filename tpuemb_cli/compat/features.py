"""What a config change does to the features: which table each looks up, and its shapes.

Features hold no state (no checkpoint variable is named after one), so a change here is at
worst a change in how the restored run trains; their names and order are cosmetic.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tpuemb_cli.compat.fields import differences
from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.sides import Side
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

Feature = TPUEmbeddingConfiguration.FeatureDescriptor


def feature_changes(old: Side, new: Side, pairs: dict[int, int]) -> Iterator[Change]:
    """``pairs``: new table index -> the old table it is (``matching.identities``)."""
    before, after = old.config.feature_descriptor, new.config.feature_descriptor
    now = {was: index for index, was in pairs.items()}
    matched = _match(before, after, now)
    # Reordered: features in both whose relative order changed (an inserted or removed feature
    # shifts the others' positions, not their order).
    olds = [i for i, _ in sorted(matched, key=lambda pair: pair[1])]
    moved = [(i, j) for i, j in matched if i != j]
    if olds != sorted(olds) and _named(before) and _named(after):
        i, j = moved[0]
        yield Change(
            "cosmetic",
            None,
            ("feature_descriptor", j),
            i,
            j,
            f"features reordered (`{after[j].name}` moved from {i} to {j}, and "
            f"{len(moved) - 1} more): features hold no checkpointed state",
        )
    for i, j in matched:
        was, feature = before[i], after[j]
        # The same feature of the same table (most, in a large config): nothing to say, and
        # nothing to look up (20,000 features in a config of renamed tables).
        if now.get(was.table_id) != feature.table_id or was != feature:
            yield from _feature(old, new, was, feature, i, j, now)
    old_seen, new_seen = {i for i, _ in matched}, {j for _, j in matched}
    for j, feature in enumerate(after):
        if j not in new_seen:
            yield Change(
                "training-change",
                _table_name(new, feature.table_id),
                ("feature_descriptor", j),
                None,
                feature.name or j,
                f"new feature {_label(feature, j)}: the model's inputs change",
            )
    for i, feature in enumerate(before):
        if i not in old_seen:
            yield Change(
                "training-change",
                _table_name(old, feature.table_id),
                ("feature_descriptor", i),
                feature.name or i,
                None,
                f"feature {_label(feature, i)} is gone: the model's inputs change",
                side="old",
            )


def _named(features: Sequence[Feature]) -> bool:
    names = [f.name for f in features]
    return all(names) and len(set(names)) == len(names)


def _match(
    before: Sequence[Feature], after: Sequence[Feature], now: dict[int, int]
) -> list[tuple[int, int]]:
    """(old index, new index) of each feature in both: by name when every feature has a name of
    its own on both sides, else by position. Of the named features left on each side, one that
    is another's copy but for its name (the same table, the same shapes) is that feature
    renamed, at the same position first. ``now``: old table index -> new table index."""
    if not (_named(before) and _named(after)):
        return [(i, i) for i in range(min(len(before), len(after)))]
    where = {f.name: i for i, f in enumerate(before)}
    matched = [(where[f.name], j) for j, f in enumerate(after) if f.name in where]
    taken_old, taken_new = {i for i, _ in matched}, {j for _, j in matched}
    left: dict[bytes, list[int]] = {}  # the old features left, by what they are but for names
    for i, feature in enumerate(before):
        if i not in taken_old:
            left.setdefault(_unnamed_key(feature, now.get(feature.table_id, -1)), []).append(i)
    for j, feature in enumerate(after):
        if j in taken_new:
            continue
        candidates = left.get(_unnamed_key(feature, feature.table_id))
        if candidates:
            i = j if j in candidates else candidates[0]
            candidates.remove(i)
            matched.append((i, j))
    return sorted(matched, key=lambda pair: pair[1])


def _unnamed_key(feature: Feature, table: int) -> bytes:
    """What a feature is but for its name, with its table as the new config numbers it."""
    copy = Feature()
    copy.CopyFrom(feature)
    copy.name = ""
    copy.table_id = table
    return copy.SerializeToString(deterministic=True)


def _label(feature: Feature, index: int) -> str:
    return f"`{feature.name}`" if feature.name else f"{index}"


def _table_name(side: Side, table_id: int) -> str | None:
    return side.tables[table_id].name if 0 <= table_id < len(side.tables) else None


def _table_label(name: str | None, table_id: int) -> str:
    return f"table `{name}`" if name is not None else f"table_id {table_id} (no such table)"


def _name(name: str) -> str:
    return f"`{name}`" if name else "(no name)"


def _feature(
    old: Side, new: Side, was: Feature, feature: Feature, i: int, j: int, now: dict[int, int]
) -> Iterator[Change]:
    path = ("feature_descriptor", j)
    before, after = _table_name(old, was.table_id), _table_name(new, feature.table_id)
    # The same table now as then; or the same table_id naming no table on either side (the
    # config is broken the same way: linting says so, it is no change).
    same = now.get(was.table_id) == feature.table_id or (
        before is None and after is None and was.table_id == feature.table_id
    )
    if not same:
        yield Change(
            "training-change",
            after,
            path + ("table_id",),
            before,
            after,
            f"feature {_label(feature, j)} now looks up {_table_label(after, feature.table_id)} "
            f"(it looked up {_table_label(before, was.table_id)})",
        )
    if was.name != feature.name:
        yield Change(
            "cosmetic",
            _table_name(new, feature.table_id),
            path + ("name",),
            was.name,
            feature.name,
            f"feature {i} renamed from {_name(was.name)} to {_name(feature.name)}: features "
            "hold no checkpointed state",
        )
    for field_path, before_value, after_value in (
        () if was == feature else differences(was, feature, path)
    ):
        if field_path[2] in ("table_id", "name"):
            continue
        yield Change(
            "training-change",
            _table_name(new, feature.table_id),
            field_path,
            before_value,
            after_value,
            f"feature {_label(feature, j)}: `{field_path[2]}` changes from {before_value} to "
            f"{after_value}: the activations' shapes change",
        )
