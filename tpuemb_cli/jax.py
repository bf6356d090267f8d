"""From live JAX SparseCore objects to a spec: lint a training script's real feature specs on CPU.

    from tpuemb_cli.jax import spec_from_jax, lint_jax
    spec = spec_from_jax(feature_specs, global_device_count=8, num_sc_per_device=4)
    findings = lint_jax(feature_specs, global_device_count=8, num_sc_per_device=4,
                        stacks={"user_stack": ["user", "user_history"]})

``feature_specs`` is what you would pass to jax-tpu-embedding's
``prepare_feature_specs_for_training``: its ``FeatureSpec`` objects, alone or in lists, tuples
and dicts (nested; dict values in sorted key order, as ``jax.tree.leaves`` takes them). Only the
objects' attributes are read (``name``, ``table_spec``, ``input_shape``, ``output_shape``; a
``TableSpec``'s ``name``, ``vocabulary_size``, ``embedding_dim``, ``optimizer``, ``combiner``,
limits, ``quantization_config`` and the stack it is in once the library stacked it): JAX is not
imported here, and tpuemb never needs it.

``stacks`` are the explicit stacks you mean to ask ``stack_tables`` for (stack name to table
names, in call order; None or "" for the name the library gives itself): the spec records them,
so that a stack the library would refuse is a finding before it raises.

FeatureSpecs the library already stacked or prepared (after ``stack_tables``,
``auto_stack_tables``, ``prepare_feature_specs_for_training`` or
``update_preprocessing_parameters``) are read as it left them
(`tpuemb_cli.frontends.jax.spec.prepared`):
each table keeps its stack and place, the spec takes the rotation the stacks were made with and
each stack's limits from its ``StackedTableSpec``, and ``compile_jax`` then writes what
``create_proto_from_feature_specs`` writes for them. What one spec cannot say -- stacks made with
two rotations, tables stacked for another device count than the one passed, features other than
the ones stacked -- raises `PreparedSpecError` (a ValueError) saying so.

What the library would refuse or misread becomes findings, never exceptions here: two features
with one name are two spec features, and two table objects with one name are two spec tables that
the features refer to by index (``#<i>``).

Limits are 64-bit integers, as the library's protos hold them; a value past what a spec field
holds (a shape's 32-bit dimension, a vocabulary past 64 bits) is a `PreparedSpecError` that names
it, never protobuf's bare "Value out of range".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from numbers import Number
from typing import Any

from tpuemb_cli.frontends.jax.spec import prepared as jax_prepared
from tpuemb_cli.frontends.jax.spec.prepared import PreparedSpecError
from tpuemb_cli.frontends.jax.spec.stacking import ACTIVATION_LIMIT, stack_name
from tpuemb_cli.frontends.jax.spec.versions import DEFAULT as JAX_DEFAULT
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, JaxOptimizer, LearningRate
from tpuemb_cli.spec.schedules import Schedules

__all__ = ["PreparedSpecError", "compile_jax", "lint_jax", "spec_from_jax"]

# The explicit stacks asked for: stack name (None or "": the library's own) to table names.
# Either mapping, as Mapping's key type is invariant: a dict[str, ...] must fit too.
StackNames = Mapping[str, Sequence[str]] | Mapping[str | None, Sequence[str]]

# An OptimizerSpec's attributes that are not hyperparameters: its learning rate (kept apart) and
# CustomOptimizerSpec's function and initializers.
_NOT_SETTINGS = frozenset(
    {"learning_rate", "custom_computation_fn", "slot_variable_initializers_tuple"}
)


def _leaves(structure: Any) -> Iterator[Any]:
    """``jax.tree.leaves`` of FeatureSpecs: dict values in sorted key order; None is no leaf."""
    if structure is None:
        return
    if isinstance(structure, Mapping):
        for key in sorted(structure):
            yield from _leaves(structure[key])
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            yield from _leaves(item)
    else:
        yield structure


def _number(value: Any) -> float | None:
    """A hyperparameter as a float (a bool as 0 or 1, a 0-d array by ``float``), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, Number):
        return float(value)  # type: ignore[arg-type]
    try:
        return float(value) if getattr(value, "shape", None) == () else None
    except (TypeError, ValueError):
        return None


def _learning_rate(rate: Any, target: LearningRate, schedules: Schedules) -> None:
    if callable(rate):
        target.schedule = schedules.name_of(rate)
        return
    number = _number(rate)
    if number is not None:
        target.constant = number


def _custom(source: Any, customs: dict[tuple[int, str], int]) -> str:
    """A CustomOptimizerSpec's `<short name>#<i>`: the i-th distinct update function, StableHLO
    module (0.2.0's ``stablehlo``; None in 0.1.0, which has none), slot initializers and short
    name (hashed as the library's ``__hash__`` hashes them, without the learning rate), or "" for
    another optimizer."""
    if not hasattr(source, "custom_computation_fn"):
        return ""
    short = str(getattr(source, "short_name_str", ""))
    try:
        identity = hash(
            (
                source.custom_computation_fn,
                getattr(source, "stablehlo", None),
                getattr(source, "slot_variable_initializers_tuple", ()),
            )
        )
    except TypeError:  # something unhashable: the library could not hash it either
        identity = id(source)
    return f"{short}#{customs.setdefault((identity, short), len(customs))}"


def _optimizer(
    source: Any, target: JaxOptimizer, schedules: Schedules, customs: dict[tuple[int, str], int]
) -> None:
    target.type = type(source).__name__
    _learning_rate(getattr(source, "learning_rate", None), target.learning_rate, schedules)
    target.custom = _custom(source, customs)
    target.unhashable.extend(_unhashable(source))
    for name, value in sorted(vars(source).items()):
        if name.startswith("_") or name in _NOT_SETTINGS:
            continue
        number = _number(value)
        if number is not None:
            target.settings[name] = number


def _unhashable(source: Any) -> list[str]:
    """The attributes of an optimizer the library cannot hash (its ``__hash__`` hashes its
    learning rate and hyperparameters, and ``__eq__`` compares hashes), when hashing it raises
    TypeError: a ``jax.Array`` or NumPy array learning rate, say. None for one it can hash."""
    try:
        hash(source)
    except TypeError:
        pass
    else:
        return []
    found = []
    for name, value in sorted(vars(source).items()):
        if name.startswith("_"):
            continue
        try:
            hash(value)
        except TypeError:
            found.append(name)
    # An object whose hash fails on something no public attribute holds: say the whole.
    return found or ["__hash__"]


def _stack_of(table: Any, stacks: Mapping[int, str]) -> str:
    """The stack the library put ``table`` in, or "" when it is in none yet or was left alone
    (``stacks``: `jax_prepared.stacks_of`, read from what it did). A table with no
    StackedTableSpec whose setting_in_stack names another stack keeps that name: the library
    refuses it, and the rules say so."""
    if id(table) in stacks:
        return stacks[id(table)]
    setting = getattr(table, "_setting_in_stack", None)
    name = getattr(setting, "stack_name", "") or ""
    return "" if name == table.name else str(name)


def _held(value: Any, bits: int, what: str) -> Any:
    """``value``, when a spec's field of ``bits`` bits holds it (the library may take more);
    `PreparedSpecError` naming it otherwise, not protobuf's bare "Value out of range"."""
    if isinstance(value, int) and not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise PreparedSpecError(
            f"{what} is {value}: a spec holds a {bits}-bit integer there "
            f"(at most {2 ** (bits - 1) - 1:,})"
        )
    return value


def _dims(shape: Any) -> list[int]:
    try:
        return [int(d) for d in shape]
    except (TypeError, ValueError):  # a shape with an unknown dimension, or no shape
        return []


def _shape(feature: Any, field: str) -> list[int]:
    """A feature's shape as the spec holds it: 32-bit dimensions (TensorFlow's too)."""
    dims = _dims(getattr(feature, field))
    return [_held(d, 32, f'feature "{feature.name}"\'s {field} {dims}: a dimension') for d in dims]


def _place_in_stack(table: Any, stacks: Mapping[int, str]) -> int | None:
    """Where the library put ``table`` in its stack: its row offset in a shard (the stack's rows
    follow its tables' order), or None when it is in no stack."""
    setting = getattr(table, "_setting_in_stack", None)
    if not _stack_of(table, stacks):
        return None
    offset = getattr(setting, "row_offset_in_shard", None)
    return int(offset) if isinstance(offset, int) else None


def _exact_learning_rates(tables: list[Any], spec: EmbeddingSpec) -> None:
    """Records the learning rate in full (``settings["learning_rate"]``, a double) for tables
    whose constant rates differ but are one float32 -- what ``LearningRate.constant`` holds: the
    library compares optimizers by the hash of the Python value, so ``0.1`` and
    ``np.float32(0.1)`` (or ``0.3 / 3``) are two optimizers it will not stack together."""
    by_float32: dict[float, list[tuple[int, float]]] = {}
    for index, table in enumerate(tables):
        rate = getattr(table.optimizer, "learning_rate", None)
        number = None if callable(rate) else _number(rate)
        if number is not None:
            by_float32.setdefault(
                spec.tables[index].jax.optimizer.learning_rate.constant, []
            ).append((index, number))
    for members in by_float32.values():
        if len({number for _, number in members}) > 1:
            for index, number in members:
                spec.tables[index].jax.optimizer.settings["learning_rate"] = number


def _asked_stacks(
    spec: EmbeddingSpec, stacks: StackNames, known: set[str]
) -> tuple[dict[str, str], dict[str, int]]:
    """Each table's explicit stack and place in it, from ``stacks`` in call order; a call the
    tables' `stack` cannot say (no table, a table twice, a table no feature looks up or one an
    earlier call stacked) goes to `jax.stack_calls` instead, for jax-invalid-stacking to report."""
    asked: dict[str, str] = {}
    position: dict[str, int] = {}
    for name, names in stacks.items():
        names = list(names)
        # stack_tables names a stack itself when given no name (None or "").
        stack = name or stack_name(names)
        if (
            not names
            or len(set(names)) < len(names)
            or any(table not in known or table in asked for table in names)
        ):
            spec.jax.stack_calls.add(name=stack, tables=names)
            continue
        for place, table in enumerate(names):
            asked[table] = stack
            position[table] = place
    return asked, position


def _failing(stacks: StackNames, fail: bool | Collection[str | None]) -> list[str]:
    """The stacks whose ``stack_tables`` call passes ``fail_on_excess_padding=True``: all the
    explicit ``stacks`` (True), or those named (None or "": the one the library names itself)."""
    if isinstance(fail, bool):
        chosen = list(stacks) if fail else []
    else:
        named = set(fail)
        chosen = [name for name in stacks if name in named or (not name and named & {None, ""})]
    return [name or stack_name(list(stacks[name])) for name in chosen]  # type: ignore[index]


def spec_from_jax(
    feature_specs: Any,
    *,
    global_device_count: int,
    num_sc_per_device: int,
    stacks: StackNames | None = None,
    auto_stack: bool = False,
    use_short_stack_names: bool = True,
    rotation: int | None = None,
    stack_limits: Mapping[str, tuple[int, int]] | None = None,
    activation_mem_bytes_limit: int | None = None,
    fail_on_excess_padding: bool | Collection[str | None] = False,
) -> EmbeddingSpec:
    """The spec of jax-tpu-embedding's ``feature_specs`` on ``global_device_count`` devices of
    ``num_sc_per_device`` SparseCores each, stacked as your script asks the library to: the
    explicit ``stacks`` (stack name to table names, in the order you give ``stack_tables``), or
    ``auto_stack`` (you call ``auto_stack_tables``, with ``use_short_stack_names``), with the
    ``rotation`` you pass them and each stack's ``stack_limits`` (stack name to (max ids, max
    unique ids) per partition: what your ``stack_to_max_ids_per_partition`` and
    ``stack_to_max_unique_ids_per_partition`` return for it), and the
    ``activation_mem_bytes_limit`` you pass ``auto_stack_tables`` (None: its default), and
    ``fail_on_excess_padding``: True when every ``stack_tables`` call passes it, or the names of
    the stacks whose call does (the library then raises where their tables' padded dimensions
    differ, instead of warning). Tables the
    library already stacked bring their stack, rotation and limits (activation limits too, from
    0.2.0's StackedTableSpec) with them (the module's docstring says how); `PreparedSpecError`
    for a stacking one spec cannot say."""
    spec = EmbeddingSpec()
    spec.jax.global_device_count = global_device_count
    spec.jax.num_sc_per_device = num_sc_per_device
    spec.jax.auto_stack = auto_stack
    spec.jax.long_stack_names = not use_short_stack_names
    features = list(_leaves(feature_specs))
    tables: list[Any] = []
    for feature in features:
        if not any(feature.table_spec is known for known in tables):
            tables.append(feature.table_spec)
    num_sparsecores = global_device_count * num_sc_per_device
    if rotation is None:
        rotation = jax_prepared.rotation(tables, num_sparsecores)
        if rotation is not None and rotation == num_sc_per_device % num_sparsecores:
            rotation = None  # the library's default: the spec says so by leaving it out
    if rotation is not None:
        spec.jax.rotation = rotation
    prepared_limits = jax_prepared.stack_limits(tables)
    for stack, (max_ids, max_unique_ids) in {**prepared_limits, **(stack_limits or {})}.items():
        what = f'stack "{stack}"\'s max'
        spec.jax.stack_max_ids_per_partition[stack] = _held(max_ids, 64, f"{what} ids")
        spec.jax.stack_max_unique_ids_per_partition[stack] = _held(
            max_unique_ids, 64, f"{what} unique ids"
        )
    if activation_mem_bytes_limit is not None:
        spec.jax.activation_mem_bytes_limit = activation_mem_bytes_limit
    spec.jax.stack_activation_mem_bytes_limit.update(
        jax_prepared.activation_limits(tables, ACTIVATION_LIMIT)
    )
    schedules = Schedules(spec)
    asked, position = _asked_stacks(spec, stacks or {}, {table.name for table in tables})
    spec.jax.fail_on_excess_padding.extend(_failing(stacks or {}, fail_on_excess_padding))
    customs: dict[tuple[int, str], int] = {}
    stacked_by_library = jax_prepared.stacks_of(tables, features)
    for table in tables:
        target = spec.tables.add(
            name=table.name,
            vocabulary_size=_held(table.vocabulary_size, 64, f'table "{table.name}"\'s vocabulary'),
            dim=_held(table.embedding_dim, 32, f'table "{table.name}"\'s embedding_dim'),
        )
        # The library has no default combiner: the spec says it even when it is "mean".
        target.combiner = str(table.combiner)
        jax = target.jax
        _optimizer(table.optimizer, jax.optimizer, schedules, customs)
        # A stack of one table takes its table's limits; the library may have changed its
        # StackedTableSpec's since (update_preprocessing_parameters), and those are the ones used.
        stacked = jax_prepared.stacked_spec(table)
        alone = stacked is not None and str(stacked.stack_name) not in prepared_limits
        for field in (
            "max_ids_per_partition",
            "max_unique_ids_per_partition",
            "suggested_coo_buffer_size_per_device",
        ):
            # A suggestion stack_tables dropped stays the table's: the rules say it was dropped.
            source = stacked if alone and not jax_prepared.dropped(table, field) else table
            value = getattr(source, field, None)
            if value is not None:
                setattr(jax, field, _held(int(value), 64, f'table "{table.name}"\'s {field}'))
        jax.stack = asked.get(table.name, "") or _stack_of(table, stacked_by_library)
        place = (
            position.get(table.name)
            if table.name in asked
            else _place_in_stack(table, stacked_by_library)
        )
        if place is not None:
            jax.stack_position = place
        quantization = getattr(table, "quantization_config", None)
        if quantization is not None:
            target.quantization.num_buckets = quantization.num_buckets
            target.quantization.lower = quantization.min_value
            target.quantization.upper = quantization.max_value
    _exact_learning_rates(tables, spec)
    named = Counter(table.name for table in tables)
    for feature in features:
        index = next(i for i, known in enumerate(tables) if known is feature.table_spec)
        name = tables[index].name
        spec.features.add(
            name=feature.name,
            table=name if named[name] == 1 else f"#{index}",
            input_shape=_shape(feature, "input_shape"),
            output_shape=_shape(feature, "output_shape"),
        )
    jax_prepared.check_layout(spec, tables, features)
    return spec


def lint_jax(
    feature_specs: Any,
    *,
    global_device_count: int,
    num_sc_per_device: int,
    stacks: StackNames | None = None,
    auto_stack: bool = False,
    use_short_stack_names: bool = True,
    rotation: int | None = None,
    stack_limits: Mapping[str, tuple[int, int]] | None = None,
    activation_mem_bytes_limit: int | None = None,
    fail_on_excess_padding: bool | Collection[str | None] = False,
    tpu: str | None = None,
    isolated: bool = False,
) -> list[Finding]:
    """Findings for the spec ``spec_from_jax`` builds: JAX's rules, not TensorFlow's, with the
    working directory's configuration (``.tpuemb.toml``; none when ``isolated``) and ``tpu``, as
    ``tpuemb_cli.lint_file`` takes them."""
    from tpuemb_cli.api import lint_objects
    from tpuemb_cli.load import Document

    spec = spec_from_jax(
        feature_specs,
        global_device_count=global_device_count,
        num_sc_per_device=num_sc_per_device,
        stacks=stacks,
        auto_stack=auto_stack,
        use_short_stack_names=use_short_stack_names,
        rotation=rotation,
        stack_limits=stack_limits,
        activation_mem_bytes_limit=activation_mem_bytes_limit,
        fail_on_excess_padding=fail_on_excess_padding,
    )
    document = Document("<jax objects>", "binary", "EmbeddingSpec", spec, None)
    return lint_objects(document, tpu, isolated)


def compile_jax(
    feature_specs: Any,
    *,
    global_device_count: int,
    num_sc_per_device: int,
    stacks: StackNames | None = None,
    auto_stack: bool = False,
    use_short_stack_names: bool = True,
    rotation: int | None = None,
    stack_limits: Mapping[str, tuple[int, int]] | None = None,
    activation_mem_bytes_limit: int | None = None,
    fail_on_excess_padding: bool | Collection[str | None] = False,
    version: str = JAX_DEFAULT,
) -> EmbeddingSpecProto:
    """The ``EmbeddingSpecProto`` the library writes (``create_proto_from_feature_specs``) once
    it has stacked ``feature_specs`` as asked and prepared them for training, without running it:
    what ``tpuemb compile --target jax`` writes for the spec ``spec_from_jax`` builds. A
    stacking the library would refuse raises
    `tpuemb_cli.frontends.jax.spec.stacking.JaxStackingError`
    (``lint_jax`` reports it, with the rest, as TE696). ``version``: the library's release,
    0.1.0 or 0.2.0 (`tpuemb_cli.frontends.jax.spec.versions`); ValueError for a spec whose 0.2.0
    proto tpuemb cannot write (`version_refusal`)."""
    from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec, version_refusal
    from tpuemb_cli.frontends.jax.spec.stack_checks import verify_stack_tables
    from tpuemb_cli.frontends.jax.spec.versions import VERSIONS

    if version not in VERSIONS:
        raise ValueError(f"version {version!r}: tpuemb writes {', '.join(VERSIONS)}")
    spec = spec_from_jax(
        feature_specs,
        global_device_count=global_device_count,
        num_sc_per_device=num_sc_per_device,
        stacks=stacks,
        auto_stack=auto_stack,
        use_short_stack_names=use_short_stack_names,
        rotation=rotation,
        stack_limits=stack_limits,
        activation_mem_bytes_limit=activation_mem_bytes_limit,
        fail_on_excess_padding=fail_on_excess_padding,
    )
    refusal = version_refusal(spec, version)
    if refusal is not None:
        raise ValueError(refusal)
    verify_stack_tables(spec)
    return compile_jax_spec(spec, version=version)
