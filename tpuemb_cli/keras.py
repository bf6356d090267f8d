"""From Keras-RS models to specs: lint a training script's real ``DistributedEmbedding`` on CPU,
or a saved ``.keras`` file, as its backend's SparseCore conversion will see them on the TPU.

    from tpuemb_cli.keras import spec_from_keras, lint_keras, specs_from_file
    spec = spec_from_keras(layer, backend="jax", global_device_count=8, num_sc_per_device=4)
    findings = lint_keras(layer, global_device_count=8, num_sc_per_device=4)
    for path, spec in specs_from_file("model.keras", global_device_count=8,
                                      num_sc_per_device=4):
        ...

``layer_or_feature_configs`` is a ``keras_rs.layers.DistributedEmbedding``, a Keras model holding
some (nested models too), or the nested ``FeatureConfig`` structure you would pass to one. Only
attributes are read (a layer's ``_feature_configs`` and ``_table_stacking``; a FeatureConfig's
``name``, ``table``, ``input_shape``, ``output_shape``; a TableConfig's fields; an optimizer's
class and ``get_config()``): Keras is never imported here, and tpuemb never needs it.

The live objects are first written as ``DistributedEmbedding.get_config()`` writes them (tables
by index, shared by identity), and read back as a saved model's config.json is: a layer and the
model saved from it give the same spec. A ``table_stacking`` tuple, which the live JAX layer
ignores and its saved model holds as lists, reads as those lists; ``lint_keras`` reports the
difference (TE767). For ``backend="jax"`` the spec is what
``tpuemb_cli.jax.spec_from_jax`` writes for the FeatureSpecs Keras-RS's JAX conversion makes
(``keras_to_jte_feature_configs`` of the features placed on SparseCores); for
``backend="tensorflow"``, what ``tpuemb_cli.tf.spec_from_tf`` writes for the TPUEmbeddingV2
objects its TensorFlow conversion makes (``keras_to_tf_tpu_configuration``), the replicas being
one host's ``global_device_count`` devices -- or, for ``accelerator`` v2, v3 or v4 (embedding
feature V1), for the TPUEmbedding (v1) the layer builds there from the same FeatureConfigs, with
no ``sparse_core`` section. A learning-rate schedule is named after its class
(``lambda`` for TensorFlow, which wraps it in one), and described by it. An optimizer the
conversion refuses (TE762 says why) is kept under its Keras class name, so that the layer's other
findings still show.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tpuemb_cli.model.findings import Finding
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

__all__ = ["lint_keras", "spec_from_keras", "specs_from_file", "specs_from_keras"]


def _is_feature(value: Any) -> bool:
    return hasattr(value, "table") and hasattr(value, "output_shape") and hasattr(value, "name")


def _is_layer(value: Any) -> bool:
    return hasattr(value, "_feature_configs")


def _layers(
    value: Any, names: tuple[str, ...] = (), saved_at: str | None = None
) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """The DistributedEmbedding layers of ``value``: itself, or those of a model's ``layers``
    (nested models walked), each with the names of the models around it and where Keras saves
    its weights ("" when not known: a layer given alone, or in a model Keras saves by its
    attributes' names; the rule is ``load.keras_config.weights_paths``'s)."""
    if _is_layer(value):
        yield (*names, str(getattr(value, "name", "") or "")), saved_at or "", value
        return
    layers = getattr(value, "layers", None)
    if not isinstance(layers, (list, tuple)):
        return
    kind = getattr(value, "_obj_type", None)
    walked = callable(kind) and kind() in ("Functional", "Sequential")
    prefix = "" if saved_at is None else f"{saved_at}/"
    from tpuemb_cli.frontends.keras.load.config import snake_case

    used: dict[str, int] = {}
    for layer in layers:
        name = snake_case(type(layer).__name__)
        if name in used:
            used[name] += 1
            name = f"{name}_{used[name]}"
        else:
            used[name] = 0
        place = f"{prefix}layers/{name}" if walked and (saved_at is None or saved_at) else ""
        yield from _layers(layer, (*names, str(getattr(value, "name", "") or "")), place)


def _shape(shape: Any) -> list[Any]:
    return [None if d is None else int(d) for d in shape]


def _optimizer(optimizer: Any) -> Any:
    """As ``keras.saving.serialize_keras_object`` writes it: a name, or a class and config."""
    if isinstance(optimizer, str) or optimizer is None:
        return optimizer
    get_config = getattr(optimizer, "get_config", None)
    config = get_config() if callable(get_config) else dict(vars(optimizer))
    return {"class_name": type(optimizer).__name__, "config": config}


def _initializer(initializer: Any) -> Any:
    if initializer is None or isinstance(initializer, str):
        return initializer
    return type(initializer).__name__


def _table(table: Any) -> dict[str, Any]:
    return {
        "name": table.name,
        "vocabulary_size": table.vocabulary_size,
        "embedding_dim": table.embedding_dim,
        "initializer": _initializer(getattr(table, "initializer", None)),
        "optimizer": _optimizer(getattr(table, "optimizer", "adam")),
        "combiner": getattr(table, "combiner", "mean"),
        "placement": getattr(table, "placement", "auto"),
        "max_ids_per_partition": getattr(table, "max_ids_per_partition", 256),
        "max_unique_ids_per_partition": getattr(table, "max_unique_ids_per_partition", 256),
    }


def _serialized(feature_configs: Any, name: str, stacking: Any) -> dict[str, Any]:
    """The layer's configuration as ``get_config()`` writes it: the tables by first use (dict
    keys sorted, as Keras's tree functions walk them), the features pointing at them by index."""
    tables: list[dict[str, Any]] = []
    table_objects: list[Any] = []
    index_of: dict[int, int] = {}

    def walk(value: Any) -> Any:
        if _is_feature(value):
            if id(value.table) not in index_of:
                index_of[id(value.table)] = len(tables)
                tables.append(_table(value.table))
                table_objects.append(value.table)
            return {
                "name": value.name,
                "table": index_of[id(value.table)],
                "input_shape": _shape(value.input_shape),
                "output_shape": _shape(value.output_shape),
            }
        if isinstance(value, Mapping):
            walked = {key: walk(value[key]) for key in sorted(value, key=str)}
            return {key: walked[key] for key in value}
        if isinstance(value, (list, tuple)):
            return [walk(item) for item in value]
        return value

    config: dict[str, Any] = {
        "name": name,
        "feature_configs": walk(feature_configs),
        "tables": tables,
    }
    _mark_shared_schedules(tables, table_objects)
    if stacking is not _ABSENT:
        config["table_stacking"] = _as_saved(stacking)
    return {"class_name": "DistributedEmbedding", "config": config}


def _mark_shared_schedules(tables: list[dict[str, Any]], objects: list[Any]) -> None:
    """Marks each serialized table whose optimizer's learning-rate schedule is the same object
    as an earlier table's (with another optimizer object) as Keras's saving marks it: with
    ``shared_object_id`` on the second schedule -- the live layer stacks the two tables, the
    model loaded from the file (two schedules) does not."""
    seen: dict[int, Any] = {}
    for serialized, table in zip(tables, objects, strict=True):
        optimizer = getattr(table, "optimizer", None)
        # A Keras optimizer keeps the schedule itself in `_learning_rate` (its `learning_rate`
        # property evaluates it).
        schedule = getattr(optimizer, "_learning_rate", None)
        rate = serialized["optimizer"]
        if not isinstance(rate, dict) or not callable(getattr(schedule, "get_config", None)):
            continue
        earlier = seen.get(id(schedule))
        if earlier is None:
            seen[id(schedule)] = optimizer
        elif earlier is not optimizer and isinstance(rate["config"].get("learning_rate"), dict):
            rate["config"]["learning_rate"] = {
                **rate["config"]["learning_rate"],
                "shared_object_id": id(schedule),
            }


def _as_saved(value: Any) -> Any:
    """``table_stacking`` as config.json holds it: tuples are JSON lists."""
    if isinstance(value, (list, tuple)):
        return [_as_saved(item) for item in value]
    return value


def _tuples(value: Any) -> tuple[bool, bool]:
    """Whether a live ``table_stacking`` is a tuple (which keras-rs's JAX layer ignores), and
    whether it is a list whose first item is one (which it refuses: it looks at that one)."""
    # An empty tuple is saved as an empty list, which the reloaded layer ignores as well.
    return isinstance(value, tuple) and bool(value), (
        isinstance(value, list) and bool(value) and isinstance(value[0], tuple)
    )


_ABSENT = object()


def _model(layer_or_feature_configs: Any) -> Any:
    """The KerasModel of live objects, read as a saved model's config.json is."""
    from tpuemb_cli.frontends.keras.load.config import read_model

    found = list(_layers(layer_or_feature_configs))
    serialized = []
    tuples = []
    for names, _, layer in found:
        stacking = getattr(layer, "_table_stacking", _ABSENT)
        tuples.append(_tuples(stacking))
        serialized.append((names, _serialized(layer._feature_configs, names[-1], stacking)))
    if not found:  # the feature configs themselves
        serialized.append(
            (("distributed_embedding",), _serialized(layer_or_feature_configs, "", _ABSENT))
        )
    value = _nest(serialized)
    reading = read_model(value)
    if reading.pending:
        raise ValueError("; ".join(message for message, *_ in reading.pending))
    # The layers read back in the order they were written.
    for layer, (_, saved_at, _) in zip(reading.model.layers, found, strict=False):
        layer.weights_path = saved_at
    for layer, (is_tuple, in_list) in zip(reading.model.layers, tuples, strict=False):
        if is_tuple:
            layer.table_stacking.live_tuple = True
        if in_list:
            layer.table_stacking.live_tuples_in_list = True
    return reading.model


def _nest(serialized: list[tuple[tuple[str, ...], dict[str, Any]]]) -> Any:
    """The layers inside models named as they were found: a path of names is a layer's place."""
    layers = []
    for names, layer in serialized:
        value: Any = layer
        for name in reversed(names[:-1]):
            value = {"class_name": "Model", "config": {"name": name, "layers": [value]}}
        layers.append(value)
    return layers


def _target(model: Any, backend: str, devices: int, per_device: int, chip: str | None) -> None:
    from tpuemb_cli.frontends.keras.model.optimizers import BACKENDS

    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    model.target.backend = backend
    model.target.global_device_count = devices
    model.target.num_sc_per_device = per_device
    model.target.accelerator = chip or ""


def specs_from_keras(
    layer_or_feature_configs: Any,
    *,
    backend: str = "jax",
    global_device_count: int = 0,
    num_sc_per_device: int = 0,
    accelerator: str | None = None,
) -> list[tuple[str, EmbeddingSpec]]:
    """The spec of each DistributedEmbedding layer, with its place in the model (see the
    module's docstring); ``accelerator``: the chip (``"v5p"``), which decides where placement
    ``"auto"`` puts a table with the JAX backend."""
    model = _model(layer_or_feature_configs)
    _target(model, backend, global_device_count, num_sc_per_device, accelerator)
    return _specs(model)


def _specs(model: Any) -> list[tuple[str, EmbeddingSpec]]:
    from tpuemb_cli.frontends.keras.spec.conversion import Topology, convert

    target = model.target
    topology = Topology(
        target.backend, target.global_device_count, target.num_sc_per_device, target.accelerator
    )
    return [(layer.path, convert(layer, topology).spec) for layer in model.layers]


def spec_from_keras(
    layer_or_feature_configs: Any,
    *,
    backend: str = "jax",
    global_device_count: int = 0,
    num_sc_per_device: int = 0,
    accelerator: str | None = None,
) -> EmbeddingSpec:
    """The spec of the one DistributedEmbedding layer ``layer_or_feature_configs`` is or holds
    (ValueError when a model holds several: use ``specs_from_keras``)."""
    found = specs_from_keras(
        layer_or_feature_configs,
        backend=backend,
        global_device_count=global_device_count,
        num_sc_per_device=num_sc_per_device,
        accelerator=accelerator,
    )
    if len(found) != 1:
        raise ValueError(
            f"{len(found)} DistributedEmbedding layers: specs_from_keras gives each one's spec"
        )
    return found[0][1]


def specs_from_file(
    path: str | Path,
    *,
    backend: str = "jax",
    global_device_count: int = 0,
    num_sc_per_device: int = 0,
    accelerator: str | None = None,
) -> list[tuple[str, EmbeddingSpec]]:
    """The spec of each DistributedEmbedding layer of a saved model -- a ``.keras`` archive, or
    a model folder's ``config.json`` -- with its place in the model, as ``tpuemb check`` reads
    the file. Raises ValueError when the file is no Keras model or does not read."""
    from tpuemb_cli.load import Document, load_input

    name = str(path)
    data = Path(path).read_bytes()
    loaded = load_input(data, name, "KerasModel")
    if not isinstance(loaded, Document) or loaded.message is None:
        problems = getattr(loaded, "problems", ())
        why = "; ".join(problem.message for problem in problems) or "not a Keras model"
        raise ValueError(f"{name}: {why}")
    model = loaded.message
    _target(model, backend, global_device_count, num_sc_per_device, accelerator)
    return _specs(model)


def lint_keras(
    layer_or_feature_configs: Any,
    *,
    backend: str = "jax",
    global_device_count: int = 0,
    num_sc_per_device: int = 0,
    accelerator: str | None = None,
    tpu: str | None = None,
    isolated: bool = False,
) -> list[Finding]:
    """Findings for the layers ``layer_or_feature_configs`` is or holds: the Keras rules, and
    the rules of the backend's library on each layer's spec, at the layers' field paths
    (``layers[0].tables[1].optimizer.config.clipnorm``), with the working directory's
    configuration (``.tpuemb.toml``; none when ``isolated``) and ``tpu``, as
    ``tpuemb_cli.lint_file`` takes them."""
    from tpuemb_cli.api import lint_objects
    from tpuemb_cli.load import Document

    model = _model(layer_or_feature_configs)
    _target(model, backend, global_device_count, num_sc_per_device, accelerator)
    document = Document("<keras objects>", "binary", "KerasModel", model, None)
    return lint_objects(document, tpu, isolated)
