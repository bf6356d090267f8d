"""Which tables jax-tpu-embedding stacks together, from a spec with a `jax` section, and what
it refuses -- the one implementation that `tpuemb compile --target jax` (`jax_layout`), the JAX
rules and the JAX memory model use -- with the library's padding and naming arithmetic.

It follows the library's source at v0.1.0:

- **Explicit stacks** (``table_stacking.stack_tables``): the tables of a `jax.stack`, in
  `stack_position` order.
- **Automatic stacking** (``auto_stack_tables``): the tables in first-use order grouped by padded
  dimension, optimizer (as ``OptimizerSpec.__eq__`` compares them: a hash of its hyperparameters,
  without its class) and combiner; each group split first-fit so that no stack's activations
  (padded dimension x samples per SparseCore x 4 bytes) pass 2 MiB; each group named by
  ``_get_stack_name`` (the names joined with ``_``; past 50 characters, the first 50, `...` and
  12 hex digits of a SHA-256).
- **The rest** (``prepare_feature_specs_for_training``): each table a stack of its own.

What the library would refuse (or silently garble) is a `JaxStackingError`; `problems` lists
every one with its field path (TE696 reports them).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from math import prod
from typing import Any

from tpuemb_cli.frontends.jax.spec.optimizer_key import optimizer_key
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record

# The library pads a table's rows to a multiple of this times the SparseCores in all, and its
# embedding dimension to a multiple of this (TPU_VECTOR_REGISTER_ALIGNMENT_SIZE in its C++).
ALIGNMENT = 8
# The SparseCores a device can have (`NUM_SC_PER_DEVICE_MAP`'s values, `utils.py`).
SPARSECORES_PER_DEVICE = (2, 4)
# The proto's int64 fields: a figure past it cannot be written.
INT64_MAX = 2**63 - 1
# The library's default per-table and per-stack limits (`get_default_limits`).
DEFAULT_LIMIT = 256
# auto_stack_tables' default activation_mem_bytes_limit: a stack's activations per SparseCore at
# most (the spec's `jax.activation_mem_bytes_limit` says another).
ACTIVATION_LIMIT = 2048 * 1024


def activation_limit(spec: Any) -> int:
    """The activation limit auto-stacking splits the spec's groups under."""
    jax = spec.jax
    return (
        int(jax.activation_mem_bytes_limit)
        if jax.HasField("activation_mem_bytes_limit")
        else ACTIVATION_LIMIT
    )


FLOAT_BYTES = 4
# _get_stack_name: how much of the joined names a short name keeps, and its hash's digits.
SHORT_NAME_LENGTH = 50
SHORT_NAME_HASH = 12


def round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple of ``multiple`` (the library's
    `_next_largest_multiple`)."""
    return -(-value // multiple) * multiple


def padded_vocab(vocab_size: int, num_sparsecores: int) -> int:
    """The rows the library pads a table of ``vocab_size`` rows to."""
    return round_up(vocab_size, ALIGNMENT * num_sparsecores)


def padded_dim(dim: int) -> int:
    return round_up(dim, ALIGNMENT)


def samples(output_shape: Any) -> int:
    """A feature's samples: its output shape without the last (embedding) dimension, as the
    library counts them (`np.prod(output_shape[:-1])`)."""
    return prod(list(output_shape)[:-1])


def stack_name(table_names: list[str], short: bool = True) -> str:
    """``_get_stack_name``: the name ``auto_stack_tables`` (and ``stack_tables`` without a name)
    gives a stack of these tables."""
    joined = "_".join(table_names)
    if not short or len(joined) <= SHORT_NAME_LENGTH:
        return joined
    digest = hashlib.sha256(joined.encode("utf-8")).hexdigest()[:SHORT_NAME_HASH]
    return f"{joined[:SHORT_NAME_LENGTH]}...{digest}"


def table_of(spec: Any, feature: Any) -> tuple[int, Any] | None:
    """The (index, table) a feature looks up: by name, or `#<i>` for one of two tables of one
    name; None when it names no table of the spec."""
    reference = feature.table
    tables = spec.tables
    if reference.startswith("#") and reference[1:].isdigit():
        index = int(reference[1:])
        return (index, tables[index]) if index < len(tables) else None
    found = _first_by_name(tables).get(reference)
    if found is not None and tables[found].name != reference:  # the list changed since
        found = _first_by_name(tables, fresh=True).get(reference)
    return None if found is None else (found, tables[found])


# The first index of each table name, for the last table list asked about: table_of runs for
# every feature many times over (stacking, layout, rules), and a scan of the tables each time
# made a spec of 10,000 tables take minutes. Held with the list itself (so that its id is not
# another list's) and its length; a miss or a stale entry rebuilds it.
_NAMES: list[tuple[Any, int, dict[str, int]]] = []


def _first_by_name(tables: Any, fresh: bool = False) -> dict[str, int]:
    if not fresh and _NAMES and _NAMES[0][0] is tables and _NAMES[0][1] == len(tables):
        return _NAMES[0][2]
    names: dict[str, int] = {}
    for index, table in enumerate(tables):
        names.setdefault(table.name, index)
    _NAMES[:] = [(tables, len(tables), names)]
    return names


class ExcessPadding(Record):
    """A stack whose tables' padded embedding dimensions differ (``stack_tables``' check): each
    table is padded to the widest, ``excess`` values in all beyond its own padding to 8."""

    names: list[str]  # the stack's tables, in stacking order
    padded_dims: list[int]  # in the order the features first use them, as the library lists them
    width: int  # the stack's embedding dimension: the widest padded one
    excess: int  # (width - a table's padded dimension) x its padded rows, summed
    values: int  # the stack's values in all: its padded rows x width


def first_use(spec: Any) -> dict[int, int]:
    """Each table features look up (by index) and its place in their first-use order."""
    return {index: place for place, index in enumerate(used_tables(spec)[0])}


def excess_padding(spec: Any, members: list[int], used: dict[int, int]) -> ExcessPadding | None:
    """``stack_tables``' excess-padding check on the tables ``members`` (indexes, stacking
    order; those features look up: ``used``, `first_use`), or None when their padded dimensions
    agree."""
    num_sc = spec.jax.global_device_count * spec.jax.num_sc_per_device
    if not members or num_sc < 1:
        return None
    dims = {index: padded_dim(spec.tables[index].dim) for index in members}
    width = max(dims.values())
    if all(dim == width for dim in dims.values()):
        return None
    rows = {index: padded_vocab(spec.tables[index].vocabulary_size, num_sc) for index in members}
    return ExcessPadding(
        names=[spec.tables[index].name for index in members],
        padded_dims=[dims[index] for index in sorted(dims, key=lambda index: used[index])],
        width=width,
        excess=sum((width - dims[index]) * rows[index] for index in members),
        values=sum(rows[index] for index in set(members)) * width,
    )


def excess_refusals(
    spec: Any,
    name: str,
    members: list[int],
    at: FieldPath,
    used: dict[int, int],
    failing: set[str],
) -> Iterator[JaxStackingError]:
    """``stack_tables(..., fail_on_excess_padding=True)`` on the stack ``name``, when it is one of
    ``failing`` (`jax.fail_on_excess_padding`): ValueError where its tables' padded dimensions
    differ (``used``: `first_use`)."""
    if name not in failing:
        return
    if not all(index in used for index in members):
        return  # stack_tables raises KeyError before (TE696 says so)
    found = excess_padding(spec, members, used)
    if found is None:
        return
    yield JaxStackingError(
        at,
        f'stack "{name}" pads its tables {found.names} (padded embedding dimensions '
        f"{found.padded_dims}) to {found.width}, and its stack_tables call passes "
        'fail_on_excess_padding=True: stack_tables raises ValueError ("Excess padding detected '
        f'for stacked table {name}. ... Excess padding: {found.excess} values.")',
        "stack tables whose embedding dimensions round up to the same multiple of 8, or drop "
        "fail_on_excess_padding to accept the padding",
    )


class JaxStackingError(ValueError):
    """What the library would refuse, or garble, at ``path`` of the spec; ``rule``: the rule
    that reports it (jax-invalid-stacking, unless one of its own says it better)."""

    def __init__(self, path: FieldPath, message: str, fix: str, rule: str = "TE696") -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.fix = fix
        self.rule = rule


def used_tables(spec: Any) -> tuple[list[int], dict[int, list[int]]]:
    """The tables features use, in first-use order, and each one's features (flatten order)."""
    order: list[int] = []
    features: dict[int, list[int]] = {}
    for f, feature in enumerate(spec.features):
        found = table_of(spec, feature)
        if found is None:
            continue
        if found[0] not in features:
            order.append(found[0])
            features[found[0]] = []
        features[found[0]].append(f)
    return order, features


def explicit_stacks(spec: Any) -> dict[str, list[int]]:
    """Each `jax.stack`'s tables (indexes) in stacking order: by `stack_position`, then table
    order."""
    found: dict[str, list[int]] = {}
    for index, table in enumerate(spec.tables):
        if table.jax.stack:
            found.setdefault(table.jax.stack, []).append(index)
    for members in found.values():

        def place(index: int) -> tuple[int, int]:
            jax = spec.tables[index].jax
            return (0, jax.stack_position) if jax.HasField("stack_position") else (1, 0)

        members.sort(key=lambda index: (*place(index), index))
    return found


def _auto_groups(spec: Any, order: list[int], features: dict[int, list[int]]) -> list[list[int]]:
    """``_get_stack_table_names``: tables grouped by padded dimension, optimizer and combiner (in
    first-use order), then split first-fit under the activation limit."""
    num_sc = spec.jax.global_device_count * spec.jax.num_sc_per_device
    grouped: dict[tuple[Any, ...], list[int]] = {}
    for index in order:
        table = spec.tables[index]
        key = (padded_dim(table.dim), optimizer_key(table), table.combiner)
        grouped.setdefault(key, []).append(index)
    activation: dict[int, int] = {}
    for index in order:
        count = sum(
            samples(spec.features[f].output_shape) // num_sc if num_sc else 0
            for f in features[index]
        )
        activation[index] = padded_dim(spec.tables[index].dim) * count * FLOAT_BYTES
    groups: list[list[int]] = []
    limit = activation_limit(spec)
    for group in grouped.values():
        groups.extend(_first_fit(group, activation, limit))
    return groups


def _first_fit(group: list[int], activation: dict[int, int], limit: int) -> list[list[int]]:
    """``_split_groups_by_memory_limit`` on one group: each table joins the first stack whose
    activations with its own stay within ``limit``, else starts one. The library sums every
    stack's tables again for every table (quadratic: minutes for 10,000 tables); here the
    stacks' sums sit in a tree of minimums over the stacks in order, where the first stack that
    fits is found by going down to the leftmost leaf at most the room the table leaves."""
    leaves = 1
    while leaves < len(group):
        leaves *= 2
    # tree[1] is the root, tree[leaves + i] stack i's sum; a stack not yet made never fits.
    tree: list[float] = [math.inf] * (2 * leaves)
    totals: list[int] = []
    stacks: list[list[int]] = []
    for index in group:
        room = limit - activation[index]
        if tree[1] <= room:
            node = 1
            while node < leaves:
                node = 2 * node if tree[2 * node] <= room else 2 * node + 1
            slot = node - leaves
            stacks[slot].append(index)
            totals[slot] += activation[index]
        else:
            slot = len(stacks)
            stacks.append([index])
            totals.append(activation[index])
            node = leaves + slot
        tree[node] = totals[slot]
        node //= 2
        while node:
            tree[node] = min(tree[2 * node], tree[2 * node + 1])
            node //= 2
    return stacks


class Stacking(Record):
    """A spec's stacking, worked out once for every reader (`stacking`): ``auto``, the stacks
    ``auto_stack_tables`` makes, each with its name, in the order it makes them (none without
    `auto_stack`); ``groups``, which tables the library stacks together (stack name -> table
    indexes, in stacking order): the explicit stacks, or with `auto_stack` the automatic ones; a
    table in neither is alone."""

    auto: list[tuple[str, list[int]]]
    groups: dict[str, list[int]]


def stacking(spec: Any) -> Stacking:
    """The spec's `Stacking`; the engine keeps it with the spec's facts
    (`tpuemb_cli.spec.facts.SpecFacts.jax_stacking`), so that the rules share one."""
    auto = _auto_stacks(spec) if spec.jax.auto_stack else []
    found = explicit_stacks(spec)
    for name, group in auto:
        found.setdefault(name, group)
    return Stacking(auto=auto, groups=found)


def _auto_stacks(spec: Any) -> list[tuple[str, list[int]]]:
    """The stacks ``auto_stack_tables`` makes, each with its name, in the order it makes them."""
    order, features = used_tables(spec)
    short = not spec.jax.long_stack_names
    return [
        (stack_name([spec.tables[index].name for index in group], short), group)
        for group in _auto_groups(spec, order, features)
    ]


def groups(spec: Any) -> dict[str, list[int]]:
    """`Stacking.groups` of the spec, worked out anew."""
    return stacking(spec).groups


def problems(spec: Any, stacked: Stacking | None = None) -> Iterator[JaxStackingError]:
    """What the library refuses in the spec's stacking (``stacked``, when already worked out),
    or merges without a word."""
    jax = spec.jax
    if jax.num_sc_per_device not in SPARSECORES_PER_DEVICE:
        yield JaxStackingError(
            ("jax", "num_sc_per_device"),
            f"num_sc_per_device {jax.num_sc_per_device} is no TPU's: the library raises "
            'ValueError ("Invalid num_sc_per_device") for any but '
            + " or ".join(map(str, SPARSECORES_PER_DEVICE)),
            "set the SparseCores per device of the TPU: 4 (v5p) or 2 (v6e, TPU7x)",
        )
    if jax.global_device_count < 1:
        yield JaxStackingError(
            ("jax", "global_device_count"),
            f"global_device_count {jax.global_device_count} is no device: the library pads "
            "to a multiple of the SparseCores and divides by them (ZeroDivisionError)",
            "set the devices in all (mesh.size), at least 1",
        )
    names: dict[str, int] = {}
    for index, table in enumerate(spec.tables):
        if table.name in names:
            yield JaxStackingError(
                ("tables", index, "name"),
                f'table {index} is named "{table.name}", as table {names[table.name]}: the library '
                "keys tables by name, and lays out only one of them (its features looking up "
                "the other's rows)",
                "give each table its own name",
            )
        names.setdefault(table.name, index)
    for index, feature in enumerate(spec.features):
        if len(feature.output_shape) < 2:
            # An empty shape is also how a spec records one with an unknown dimension (None):
            # the library's arithmetic fails on both.
            shape = (
                f"an output shape of {len(feature.output_shape)} dimension"
                if feature.output_shape
                else "no output shape with every dimension known"
            )
            yield JaxStackingError(
                ("features", index, "output_shape"),
                f'feature "{feature.name}" has {shape}: the library counts its samples as the '
                "product of all but the last, and prepare_feature_specs_for_training or "
                "create_proto_from_feature_specs raises TypeError",
                "give the output shape its samples and the embedding dimension, e.g. [batch, dim], "
                "every dimension a number (the global batch, not None)",
            )
        yield from shape_problems(index, feature)
        if table_of(spec, feature) is None:
            yield JaxStackingError(
                ("features", index, "table"),
                f'feature "{feature.name}" looks up table "{feature.table}", which the spec does '
                "not have",
                "name one of the spec's tables",
                rule="TE699",  # jax-unknown-table; compile still refuses it with TE699 off
            )
    order, _ = used_tables(spec)
    used = set(order)
    ranks = {index: place for place, index in enumerate(order)}
    failing = set(spec.jax.fail_on_excess_padding)
    yield from _refused_calls(
        spec, {spec.tables[index].name: index for index in order}, ranks, failing
    )
    explicit = explicit_stacks(spec)
    for name, members in explicit.items():
        if not spec.jax.auto_stack:
            first: FieldPath = ("tables", members[0], "jax", "stack")
            yield from excess_refusals(spec, name, members, first, ranks, failing)
        for index in members:
            at: FieldPath = ("tables", index, "jax", "stack")
            if spec.jax.auto_stack:
                yield JaxStackingError(
                    at,
                    f'table "{spec.tables[index].name}" is put in stack "{name}" and the tables '
                    "are auto-stacked too: stack_tables raises ValueError (the table is already "
                    "stacked)",
                    "either auto-stack (jax.auto_stack) or name stacks, not both",
                )
            elif index not in used:
                yield JaxStackingError(
                    at,
                    f'table "{spec.tables[index].name}" of stack "{name}" is looked up by no '
                    "feature: stack_tables finds no such table among the features (KeyError)",
                    "stack only tables that features look up",
                )
    yield from _unhashable(spec, order if spec.jax.auto_stack else explicit)
    if spec.jax.auto_stack:
        yield from _auto_name_clashes(spec, (stacked or stacking(spec)).auto)
        return
    for index in order:
        table = spec.tables[index]
        if not table.jax.stack and table.name in explicit:
            yield JaxStackingError(
                ("tables", index, "name"),
                f'table "{table.name}" is alone in a stack of its name, and stack "{table.name}" '
                "holds other tables: create_proto_from_feature_specs merges both into one stack",
                "rename the stack or the table",
            )


def _unhashable(spec: Any, stacked: Any) -> Iterator[JaxStackingError]:
    """Tables whose optimizer the library cannot hash, where it hashes it: ``auto_stack_tables``
    keys every table's group by its optimizer (``stacked``: the tables features use), and
    ``stack_tables`` compares a stack's optimizers with ``==``, which compares hashes
    (``stacked``: the explicit stacks)."""
    if isinstance(stacked, dict):
        members = [(index, name) for name, group in stacked.items() for index in group]
        how = 'stack_tables compares the optimizers of its stack "{}" by their hashes'
    else:
        members = [(index, "") for index in stacked]
        how = "auto_stack_tables groups the tables by optimizer, a dict key"
    for index, name in members:
        optimizer = spec.tables[index].jax.optimizer
        if not optimizer.unhashable:
            continue
        what = ", ".join(optimizer.unhashable)
        yield JaxStackingError(
            ("tables", index, "jax", "optimizer", "unhashable", 0),
            f'table "{spec.tables[index].name}"\'s optimizer {optimizer.type or "spec"} holds '
            f"values Python cannot hash ({what}: an array, e.g. jnp.array(0.1)), and "
            + how.format(name)
            + ": it raises TypeError (unhashable type)",
            "give the optimizer a Python float (float(rate)) or a schedule function instead of an "
            "array",
            rule="TE676",  # jax-unhashable-optimizer; compile still refuses it with TE676 off
        )


def _auto_name_clashes(spec: Any, auto: list[tuple[str, list[int]]]) -> Iterator[JaxStackingError]:
    """Two automatic stacks of one name. ``auto_stack_tables`` calls ``stack_tables`` on each in
    turn, whose check counts a name as used when a table already stacked under it has another
    name: a first stack that is one table of the stack's name goes unseen."""
    first: dict[str, list[int]] = {}
    used: dict[str, bool] = {}  # whether stack_tables' check sees the name as used
    for name, group in auto:
        names = [spec.tables[index].name for index in group]
        if name in first:
            before = [spec.tables[index].name for index in first[name]]
            if used[name]:
                done = (
                    f'auto_stack_tables raises ValueError ("Cannot use stack name {name} since '
                    "it's already used.\")"
                )
            else:
                done = (
                    f'the first is table "{name}" alone, which stack_tables does not count as '
                    "stacked: auto_stack_tables accepts both, and create_proto_from_feature_specs "
                    f'merges them into one stack "{name}" of the first one\'s size, the later '
                    "tables' rows outside it"
                )
            yield JaxStackingError(
                ("tables", group[0], "name"),
                f'auto-stacking names two stacks "{name}" (tables {before}, then {names}): {done}',
                "rename a table",
            )
        first.setdefault(name, group)
        used[name] = used.get(name, False) or any(table != name for table in names)


def shape_problems(index: int, feature: Any) -> Iterator[JaxStackingError]:
    """A dimension below 1 in a feature's shapes (jax-zero-size reports it): the library takes it
    as it is, counts the feature's samples from it and writes a proto whose stack sample count
    does not hold its features."""
    for field in ("output_shape", "input_shape"):
        for place, size in enumerate(getattr(feature, field)):
            if size >= 1:
                continue
            yield JaxStackingError(
                ("features", index, field, place),
                f'feature "{feature.name}" has {field} {list(getattr(feature, field))}, whose '
                f"dimension {place} is {size}: "
                + (
                    "an empty shape, which the library accepts and no lookup can use"
                    if size == 0
                    else "prepare_feature_specs_for_training and stack_tables accept it and count "
                    "negative samples, and create_proto_from_feature_specs writes a stack whose "
                    "total_sample_count its features' rows do not fit"
                ),
                f"give {field} dimension {place} a size of at least 1 (the global batch, the ids "
                "per sample or the embedding width)",
                rule="TE694",  # jax-zero-size; compile still refuses it with TE694 off
            )


def _refused_calls(
    spec: Any, used: dict[str, int], ranks: dict[int, int], failing: set[str]
) -> Iterator[JaxStackingError]:
    """What ``stack_tables`` raises on each of `jax.stack_calls` (``used``: the tables features
    look up, by name), in the order it checks: a stack of no table, a table no feature looks up,
    a table already stacked, a table twice."""
    for call, asked in enumerate(spec.jax.stack_calls):
        at: FieldPath = ("jax", "stack_calls", call, "tables")
        stacked = [name for name in asked.tables if name in used]
        if not asked.tables:
            yield JaxStackingError(
                at,
                f'stack "{asked.name}" is asked for with no table: stack_tables raises ValueError '
                '("max() arg is an empty sequence")',
                "give stack_tables the tables to stack, or drop the call",
            )
        elif len(stacked) < len(asked.tables):
            place = next(i for i, name in enumerate(asked.tables) if name not in used)
            yield JaxStackingError(
                (*at, place),
                f'stack "{asked.name}" is asked for with table "{asked.tables[place]}", which no '
                f"feature looks up: stack_tables raises KeyError ('{asked.tables[place]}')",
                "stack only tables that features look up, by their names",
            )
        else:
            members = [used[name] for name in asked.tables]
            refused = list(excess_refusals(spec, asked.name, members, at, ranks, failing))
            yield from refused or _restacked(spec, call, used)


def _restacked(spec: Any, call: int, used: dict[str, int]) -> Iterator[JaxStackingError]:
    """``_verify_stack_tables`` on a call whose tables features look up: a table stacked already
    (by a table's `stack` or an earlier call), then a table twice."""
    asked = spec.jax.stack_calls[call]
    at: FieldPath = ("jax", "stack_calls", call, "tables")
    earlier = {
        name: before.name
        for before in spec.jax.stack_calls[:call]
        for name in before.tables
        if name in used
    }
    for place, name in enumerate(asked.tables):
        group = spec.tables[used[name]].jax.stack or earlier.get(name, "")
        if group:
            yield JaxStackingError(
                (*at, place),
                f'stack "{asked.name}" is asked for with table "{name}", which stack "{group}" '
                f'holds: stack_tables raises ValueError ("Table {name} is already stacked in '
                f'group {group}.")',
                "put each table in one stack",
            )
            return
    for place, name in enumerate(asked.tables):
        if name in asked.tables[:place]:
            yield JaxStackingError(
                (*at, place),
                f'stack "{asked.name}" is asked for with table "{name}" twice: stack_tables '
                f'raises ValueError ("Table {name} is repeated in group {asked.name}.")',
                "name each table of a stack once",
            )
            return
