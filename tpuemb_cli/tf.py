"""From live TensorFlow objects to a spec: lint a training script's real config on CPU.

    from tpuemb_cli.tf import spec_from_tf, lint_tf
    spec = spec_from_tf(feature_config, optimizer, num_hosts=4, cores_per_host=4,
                        per_replica_batch_size=128)
    findings = lint_tf(feature_config, optimizer, num_hosts=4, cores_per_host=4,
                       per_replica_batch_size=128)
    # TPUEmbeddingV2 on SparseCores: its SparseCoreEmbeddingConfig, and the chip
    findings = lint_tf(feature_config, optimizer, num_hosts=4, cores_per_host=4,
                       sparse_core_config=sparse_core_config, accelerator="v5p")

Only the Python objects' attributes are read (``TableConfig``, ``FeatureConfig``, the optimizers
of ``tf.tpu.experimental.embedding``); TensorFlow's protos are never touched, so this works under
protobuf 7, where TensorFlow 2.21 itself cannot build the config. TensorFlow is not imported here:
the objects come from the caller.

Learning-rate schedules are told apart the way TensorFlow tells them apart: by the callable's
identity. Each distinct callable becomes one named schedule (its ``__name__`` where it has one).

What TensorFlow would refuse becomes findings, never exceptions here: an optimizer class the spec
cannot express (``CustomOptimizer``, or a class that is not SGD, Adagrad, AdagradMomentum, Adam or
FTRL) is the spec's ``custom`` optimizer; weight decay and a missing ``output_shape`` are kept as
they are, for the rules to report; two table objects with one name are two spec tables, which
the features refer to by index (``#<i>``), so that the repeated name is reported as TensorFlow
raises it, not merged into one table.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Optimizer, SparseCore
from tpuemb_cli.spec.schedules import Schedules


def _flatten(structure: Any, key: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """``nest.flatten`` with the dict keys of each leaf: dicts in sorted key order."""
    if isinstance(structure, Mapping):
        for name in sorted(structure):
            yield from _flatten(structure[name], key + (str(name),))
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            yield from _flatten(item, key)
    else:
        yield key, structure


def _algorithm(source: Any) -> optimizers.Optimizer | None:
    """The optimizer of an optimizer object, by its class or the first of its base classes
    TensorFlow dispatches on (TensorFlow tests ``isinstance``, so a subclass of Adam is Adam);
    None for any other class, CustomOptimizer included."""
    for cls in type(source).__mro__:
        if cls.__name__ == "CustomOptimizer":
            return None
        found = optimizers.of_class(cls.__name__)
        if found is not None:
            return found
    return None


def _custom(source: Any, target: Optimizer) -> None:
    """An optimizer the spec knows only by its class and slots: the spec's ``custom``."""
    target.custom.type = type(source).__name__
    slot_names = getattr(source, "_slot_names", None)
    try:
        slots = slot_names() if callable(slot_names) else []
    except Exception:  # a class of the user's whose slots cannot be listed
        slots = []
    target.custom.slot_names.extend(str(name) for name in slots)


def _optimizer(source: Any, target: Optimizer, schedules: Schedules) -> None:
    algorithm = _algorithm(source)
    if algorithm is None:
        _custom(source, target)
    else:
        settings = getattr(target, algorithm.spec)
        settings.SetInParent()
        # The class keeps each argument as an attribute of the same name as the spec's field.
        for argument in algorithm.arguments:
            value = getattr(source, argument.name, None)
            if value is not None:
                setattr(settings, argument.name, value)
    rate = getattr(source, "learning_rate", 0.01)
    if callable(rate):
        target.learning_rate.schedule = schedules.name_of(rate)
    else:
        # An object of the user's that is no number: the spec keeps the default rate.
        with contextlib.suppress(TypeError, ValueError):
            target.learning_rate.constant = float(rate)
    target.use_gradient_accumulation = bool(getattr(source, "use_gradient_accumulation", True))
    for field in ("clip_weight_min", "clip_weight_max", "weight_decay_factor"):
        value = getattr(source, field, None)
        if value is not None:
            setattr(target, field, value)
    # Kept whenever it was given, False included: TPUEmbeddingV2 refuses it when it is not None.
    multiply = getattr(source, "multiply_weight_decay_factor_by_learning_rate", None)
    if multiply is not None:
        target.multiply_weight_decay_factor_by_learning_rate = bool(multiply)
    # TensorFlow keeps clipvalue only as its two bounds; (None, None) is the same as none.
    low, high = (
        getattr(source, "clip_gradient_min", None),
        getattr(source, "clip_gradient_max", None),
    )
    if low is not None or high is not None:
        target.clipvalue.range.SetInParent()
        if low is not None:
            target.clipvalue.range.min = low
        if high is not None:
            target.clipvalue.range.max = high
    if getattr(source, "low_dimensional_packing_status", False):
        target.low_dimensional_packing_status = True


def spec_from_tf(
    feature_config: Any,
    optimizer: Any = None,
    *,
    num_hosts: int,
    cores_per_host: int,
    num_cores_per_replica: int | None = None,
    per_replica_batch_size: int | None = None,
    per_replica_input_shapes: Any = None,
    pipeline_execution_with_tensor_core: bool = False,
    sparse_core_config: Any = None,
    sparse_cores_per_chip: int | None = None,
    accelerator: str | None = None,
) -> EmbeddingSpec:
    """The spec of ``TPUEmbedding(feature_config, optimizer, ...)`` on the given TPU topology.

    ``per_replica_input_shapes`` is what you would pass to ``TPUEmbedding.build``: a structure
    like ``feature_config`` of shapes (``tf.TensorShape`` or lists).

    For ``TPUEmbeddingV2`` (SparseCore), pass its ``SparseCoreEmbeddingConfig`` as
    ``sparse_core_config`` (``SparseCoreEmbeddingConfig()`` for TensorFlow's defaults, which is
    what TPUEmbeddingV2 uses when given none): the spec gets a ``sparse_core`` section and the
    SparseCore rules run on it. The replicas are ``num_hosts * cores_per_host /
    num_cores_per_replica`` (TensorFlow's ``num_replicas_in_sync``); the SparseCores per chip are
    ``sparse_cores_per_chip``, else the ``accelerator``'s from tpuemb's chip table.
    """
    spec = EmbeddingSpec()
    schedules = Schedules(spec)
    if optimizer is not None:
        _optimizer(optimizer, spec.optimizer, schedules)
    leaves = list(_flatten(feature_config))
    shapes: Sequence[Any] = (
        [shape for _, shape in _flatten(per_replica_input_shapes)]
        if per_replica_input_shapes is not None
        else []
    )
    tables: list[Any] = []
    for _, feature in leaves:
        if not any(feature.table is known for known in tables):
            tables.append(feature.table)
    for table in tables:
        target = spec.tables.add()
        if table.name:
            target.name = table.name
        target.vocabulary_size = table.vocabulary_size
        target.dim = table.dim
        if isinstance(table.combiner, str) and table.combiner != "mean":
            target.combiner = table.combiner
        dtype = getattr(getattr(table, "dtype", None), "name", None)
        if dtype and dtype != "float32":
            target.dtype = dtype
        if table.optimizer is not None and table.optimizer is not optimizer:
            _optimizer(table.optimizer, target.optimizer, schedules)
        quantization = getattr(table, "quantization_config", None)
        if quantization is not None:
            target.quantization.num_buckets = quantization.num_buckets
            target.quantization.lower = quantization.lower
            target.quantization.upper = quantization.upper
    keyed = any(key for key, _ in leaves)
    # Features name their table, unless another table has the same name: TensorFlow tells the
    # objects apart (and then refuses the repeated name), so the spec keeps both, by index, for
    # spec-duplicate-table-name to report.
    named = Counter(table.name for table in tables if table.name)
    for position, (key, feature) in enumerate(leaves):
        target_feature = spec.features.add()
        if feature.name:
            target_feature.name = feature.name
        index = next(i for i, known in enumerate(tables) if known is feature.table)
        name = tables[index].name
        target_feature.table = name if name and named[name] == 1 else f"#{index}"
        target_feature.max_sequence_length = feature.max_sequence_length
        output = getattr(feature, "output_shape", None)
        dims = _dims(output)
        if dims:
            target_feature.output_shape.extend(dims)
        if position < len(shapes):
            target_feature.input_shape.extend(_dims(shapes[position]) or [])
        if keyed:
            target_feature.key = "/".join(key)
    topology = spec.topology
    topology.num_hosts = num_hosts
    topology.cores_per_host = cores_per_host
    if num_cores_per_replica:
        topology.num_cores_per_replica = num_cores_per_replica
    if per_replica_batch_size:
        topology.per_replica_batch_size = per_replica_batch_size
    topology.pipeline_execution_with_tensor_core = pipeline_execution_with_tensor_core
    if accelerator:
        topology.accelerator = accelerator
    if sparse_cores_per_chip is not None:
        topology.sparse_cores_per_chip = sparse_cores_per_chip
    if sparse_core_config is not None:
        _sparse_core(sparse_core_config, spec.sparse_core)
    return spec


# SparseCoreEmbeddingConfig's fields and defaults (tpu_embedding_v3.py): a field is written to the
# spec only when the object's value differs, so the spec says what the script chose.
_SPARSE_CORE_DEFAULTS = {
    "disable_table_stacking": False,
    "max_ids_per_chip_per_sample": 64,
    "allow_id_dropping": False,
    "initialize_tables_on_host": True,
    "enable_fast_table_initialization": False,
}


def _sparse_core(source: Any, target: SparseCore) -> None:
    target.SetInParent()
    for field, default in _SPARSE_CORE_DEFAULTS.items():
        value = getattr(source, field, default)
        if value is not None and value != default:
            setattr(target, field, value)
    for field in ("max_ids_per_table", "max_unique_ids_per_table"):
        limits = getattr(source, field, None) or {}
        for name, limit in limits.items():
            getattr(target, field)[str(name)] = int(limit)


def _dims(shape: Any) -> list[int] | None:
    """A fully known shape as a list of ints (``tf.TensorShape`` or a sequence), else None."""
    if shape is None:
        return None
    as_list = getattr(shape, "as_list", None)
    try:
        dims = as_list() if as_list is not None else list(shape)
    except ValueError:  # a TensorShape of unknown rank
        return None
    if any(d is None for d in dims):
        return None
    return [int(d) for d in dims]


def lint_tf(
    feature_config: Any,
    optimizer: Any = None,
    *,
    tpu: str | None = None,
    isolated: bool = False,
    **topology: Any,
) -> list[Finding]:
    """Findings for the spec ``spec_from_tf`` builds: the spec rules and the compiled config's,
    with the working directory's configuration (``.tpuemb.toml``; none when ``isolated``) and
    ``tpu`` the chip the memory rules check, as ``tpuemb_cli.lint_file`` takes them."""
    from tpuemb_cli.api import lint_objects
    from tpuemb_cli.load import Document

    spec = spec_from_tf(feature_config, optimizer, **topology)
    document = Document("<tensorflow objects>", "binary", "EmbeddingSpec", spec, None)
    return lint_objects(document, tpu, isolated)
