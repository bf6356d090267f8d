"""A Keras model's configuration (its ``config.json``) as a ``KerasModel``: every Keras-RS
``DistributedEmbedding`` layer in it, nested models included, with where each field was read.

Keras writes a model's configuration as nested objects: a model's ``config.layers`` holds layer
objects, a layer may hold a model (a Functional or Sequential inside a layer, a sub-model's
``config``). A layer object is a ``DistributedEmbedding`` when its ``class_name`` is
``DistributedEmbedding`` or its ``registered_name`` is ``keras_rs>DistributedEmbedding``; its
``config`` holds what ``DistributedEmbedding.get_config()`` writes (keras-rs 0.4.0,
``keras_rs/src/layers/embedding/base_distributed_embedding.py``): ``tables``, a list of
serialized TableConfigs, and ``feature_configs``, a nested structure of FeatureConfigs (an object
with a string ``name`` is one) that point at the tables by index.

Nothing here runs or imports Keras: the configuration is data, read with ``json``. A value of the
wrong kind is a problem at its place (the field keeps its default), never an exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tpuemb_cli.frontends.keras.load.layer_config import (
    json_type,
    schedule_partners,
    top_level_types,
)
from tpuemb_cli.load.document import MAX_DEPTH
from tpuemb_cli.load.limits import lone_surrogate, max_nesting, nests_deeper, repaired
from tpuemb_cli.model.paths import FieldPath

if TYPE_CHECKING:
    from tpuemb_cli.load.document import Document
    from tpuemb_cli.load.problems import LoadProblem
    from tpuemb_cli.load.signatures import Verdict
    from tpuemb_cli.pb.keras.keras_model_pb2 import (
        DistributedEmbeddingLayer,
        KerasModel,
        Optimizer,
        Table,
    )

JsonPath = tuple[str | int, ...]
LAYER_CLASS = "DistributedEmbedding"
LAYER_REGISTERED = "keras_rs>DistributedEmbedding"


def is_keras_model(value: Any) -> bool:
    """Whether a JSON value is a serialized Keras object at its top: a ``class_name`` and a
    ``config`` object, with the ``module`` or ``registered_name`` Keras writes beside them."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("class_name"), str)
        and isinstance(value.get("config"), dict)
        and ("module" in value or "registered_name" in value)
    )


def is_layer(value: Any) -> bool:
    """Whether a JSON object is a serialized DistributedEmbedding layer."""
    return (
        isinstance(value, dict)
        and (
            value.get("class_name") == LAYER_CLASS
            or value.get("registered_name") == LAYER_REGISTERED
        )
        and isinstance(value.get("config"), dict)
    )


def layers_in(value: Any) -> Iterator[tuple[JsonPath, str, dict[str, Any]]]:
    """Each DistributedEmbedding layer object in ``value``, in the order of the text: its JSON
    path, its place in the model (the names of the objects around it and its own, joined by
    ``/``), and the object. Walked with a stack (JSON nests as deep as ``json`` reads)."""
    waiting: list[tuple[JsonPath, tuple[str, ...], Any]] = [((), (), value)]
    while waiting:
        path, names, current = waiting.pop()
        if isinstance(current, dict):
            config = current.get("config")
            name = config.get("name") if isinstance(config, dict) else None
            if "class_name" in current and isinstance(name, str):
                names = (*names, name)
            if is_layer(current):
                yield path, "/".join(names), current
                continue
            children = [(path + (key,), names, item) for key, item in current.items()]
        elif isinstance(current, list):
            children = [(path + (index,), names, item) for index, item in enumerate(current)]
        else:
            continue
        waiting.extend(reversed(children))


# The models whose sub-layers Keras saves under `layers` (keras 3.15.1, saving/saving_lib.py
# `_walk_saveable`: "Save all layers directly tracked by Sequential and Functional first").
# Any other layer or model saves what it holds under its attributes' names, which config.json
# does not hold.
_CONTAINERS = frozenset({"Functional", "Sequential"})


def _container(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("class_name") in _CONTAINERS
        and isinstance(value.get("config"), dict)
        and isinstance(value["config"].get("layers"), list)
    )


def snake_case(name: str) -> str:
    """A class's name as Keras names its saved objects (keras 3.15.1, utils/naming.py
    ``to_snake_case``)."""
    import re

    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def weights_paths(value: Any) -> dict[JsonPath, str]:
    """Where Keras saves each DistributedEmbedding layer's weights (its group in
    model.weights.h5), by the JSON path of the layer's object; a layer not here has no place
    tpuemb can tell. Keras saves a Functional or Sequential model's ``layers`` in their order
    (the order config.json lists them in: Functional.get_config walks the same operations),
    each under its class's snake_case name, numbered among the same name (`_get_unique_name`:
    ``distributed_embedding``, ``distributed_embedding_1``, ...), and a model's under its own."""
    found: dict[JsonPath, str] = {}
    waiting: list[tuple[JsonPath, str, dict[str, Any]]] = (
        [((), "", value)] if _container(value) else []
    )
    while waiting:
        json_path, prefix, model = waiting.pop()
        used: dict[str, int] = {}
        for index, item in enumerate(model["config"]["layers"]):
            if not isinstance(item, dict) or not isinstance(item.get("class_name"), str):
                continue
            name = snake_case(item["class_name"])
            if name in used:
                used[name] += 1
                name = f"{name}_{used[name]}"
            else:
                used[name] = 0
            at = (*json_path, "config", "layers", index)
            if is_layer(item):
                found[at] = f"{prefix}layers/{name}"
            elif _container(item):
                waiting.append((at, f"{prefix}layers/{name}/", item))
    return found


class KerasReading:
    """A KerasModel being read, and for each of its field paths the JSON path it came from."""

    def __init__(self) -> None:
        from tpuemb_cli.pb.keras.keras_model_pb2 import KerasModel

        self.model: KerasModel = KerasModel()
        self.places: dict[FieldPath, JsonPath] = {}
        # Problems with the JSON path of their value: the codec, which knows the text, places
        # them (``problems``).
        self.pending: list[tuple[str, FieldPath, JsonPath, str, str, bool]] = []

    def note(self, path: FieldPath, json_path: JsonPath) -> None:
        self.places[path] = json_path

    def problem(
        self,
        message: str,
        at: FieldPath,
        json_path: JsonPath,
        fix: str = "",
        rule: str = "invalid-value",
        fails: bool = True,
    ) -> None:
        """``fails``: whether the value at ``at`` could not be read (the rules on it give way);
        False for a problem of how the fields read fit together."""
        self.pending.append((message, at, json_path, fix, rule, fails))

    def problems(self, spans: dict[JsonPath, tuple[int, int]]) -> list[LoadProblem]:
        """The problems found, each at the span of its value in the text (``spans``: by JSON
        path, as ``json_parser.value_spans`` finds them), or of the nearest value around it."""
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        found = []
        for message, at, json_path, fix, rule, fails in self.pending:
            span = None
            for cut in range(len(json_path), -1, -1):
                span = spans.get(json_path[:cut])
                if span is not None:
                    break
            failed = at if fails else None
            found.append(LoadProblem(rule, message, at, span, fix, failed=failed, read=not fails))
        return found


def read_model(value: Any) -> KerasReading:
    """The KerasModel of a parsed config.json."""
    reading = KerasReading()
    saved_at = weights_paths(value)
    for json_path, place, layer in layers_in(value):
        index = len(reading.model.layers)
        # The layer's place names the models around it, whose names are not read otherwise.
        target = reading.model.layers.add(
            path=repaired(place), weights_path=repaired(saved_at.get(json_path, ""))
        )
        config = _without_lone_surrogates(reading, layer["config"], (*json_path, "config"))
        if _layer(reading, ("layers", index), json_path, config, target):
            # The features were read as from_config reads them: held to the saved inputs.
            _inputs(reading, ("layers", index), json_path, {**layer, "config": config})
    _compiled_optimizer(reading, value)
    return reading


def _compiled_optimizer(reading: KerasReading, value: Any) -> None:
    """The model's optimizer, where config.json's ``compile_config`` saves one (Keras 3,
    ``Model.get_compile_config``): a checkpoint keys its variables by its name. Anything else
    there is Keras's to judge when it compiles the model, not a problem of the layers."""
    compiled = value.get("compile_config") if isinstance(value, dict) else None
    optimizer = compiled.get("optimizer") if isinstance(compiled, dict) else None
    if isinstance(optimizer, str) or (
        isinstance(optimizer, dict) and isinstance(optimizer.get("class_name"), str)
    ):
        optimizer = _without_lone_surrogates(reading, optimizer, ("compile_config", "optimizer"))
        where = ("compile_config", "optimizer")
        _optimizer(reading, ("optimizer",), where, optimizer, reading.model.optimizer)


def _inputs(
    reading: KerasReading, at: FieldPath, json_path: JsonPath, layer: dict[str, Any]
) -> None:
    """A problem where the layer's ``feature_configs`` differ from the inputs the model saved
    it with (``keras_inputs``)."""
    from tpuemb_cli.frontends.keras.load.inputs import inputs_mismatch

    found = inputs_mismatch(layer)
    if found is None:
        return
    inside, held_to, what = found
    where = ".".join(str(part) for part in held_to)
    reading.problem(
        f"the layer's `feature_configs` do not match the inputs the model saved it with "
        f"(`{where}`): {what}; Keras's `load_model` raises ValueError when it builds or calls "
        "the layer",
        (*at, "features"),
        (*json_path, "config", "feature_configs", *inside),
        "give `feature_configs` the structure of the layer's inputs (the same keys, lists of "
        "the same length), or the model's inputs that of the features",
        # Each feature was read: what the rules say of it holds whichever structure wins.
        fails=False,
    )


def _without_lone_surrogates(reading: KerasReading, value: Any, json_path: JsonPath) -> Any:
    """``value`` with each string that holds a lone surrogate (JSON's ``"\\ud800"``) repaired
    to U+FFFD, each reported where it is written: no protobuf string can hold one (setting it
    raised), and no library's name can be one."""
    if isinstance(value, str):
        found = lone_surrogate(value)
        if found is None:
            return value
        reading.problem(
            f"the string holds a lone surrogate ({found}), which is no character: no name or "
            "option can hold it",
            (),
            json_path,
            "write the character the surrogate was meant to pair into, or remove it",
        )
        return repaired(value)
    if isinstance(value, list):
        return [_without_lone_surrogates(reading, v, (*json_path, i)) for i, v in enumerate(value)]
    if isinstance(value, dict):
        cleaned = {}
        for key, item in value.items():
            name = key
            if isinstance(key, str) and lone_surrogate(key) is not None:
                name = repaired(key)
                reading.problem(
                    f"a key holds a lone surrogate ({lone_surrogate(key)}), which is no character",
                    (),
                    json_path,
                    "write the character the surrogate was meant to pair into, or remove it",
                )
            cleaned[name] = _without_lone_surrogates(reading, item, (*json_path, key))
        return cleaned
    return value


def _layer(
    reading: KerasReading,
    at: FieldPath,
    json_path: JsonPath,
    config: dict[str, Any],
    target: DistributedEmbeddingLayer,
) -> bool:
    """Reads one layer's config; whether its ``feature_configs`` are what ``from_config``
    takes (no stray value among them)."""
    config_path = (*json_path, "config")
    reading.note(at, json_path)
    name = config.get("name")
    if isinstance(name, str):
        target.name = name
        reading.note((*at, "name"), (*config_path, "name"))
    tables = config.get("tables")
    known = isinstance(tables, list)  # else reported here once, not again for each feature
    if not isinstance(tables, list):
        reading.problem(
            "a DistributedEmbedding's `tables` must be a list of table configs",
            (*at, "tables"),
            config_path + (("tables",) if "tables" in config else ()),
        )
        tables = []
    for i, table in enumerate(tables):
        _table(reading, (*at, "tables", i), (*config_path, "tables", i), table, target.tables.add())
    schedule_partners(target, tables)
    top_level_types(reading, at, config_path, config)
    features = config.get("feature_configs")
    strays: list[tuple[JsonPath, Any]] = []
    walk = _feature_leaves(features, (*config_path, "feature_configs"), strays)
    for key, feature_path, feature in walk:
        j = len(target.features)
        count = len(tables) if known else None
        _feature(reading, (*at, "features", j), feature_path, key, feature, count, target)
    for stray_path, stray in strays if isinstance(features, (dict, list)) else ():
        if isinstance(stray, dict):
            reading.problem(
                "a FeatureConfig in a DistributedEmbedding's `feature_configs` without a "
                "string `name`: keras-rs tells a FeatureConfig by its name, walks into this "
                "object as a nesting of features and raises on its first value",
                (*at, "features"),
                stray_path,
                "give the feature its `name` (a string, e.g. the key it is under)",
            )
            continue
        reading.problem(
            f"{json_type(stray)} in a DistributedEmbedding's `feature_configs`, where a "
            "FeatureConfig (an object with a string `name`), a list or an object of them must "
            "be: its `from_config` raises",
            (*at, "features"),
            stray_path,
        )
    if "table_stacking" in config:
        _stacking(
            reading,
            (*at, "table_stacking"),
            (*config_path, "table_stacking"),
            config["table_stacking"],
            target,
        )
    return isinstance(features, (dict, list)) and not strays


# What `FeatureConfig.get_config` writes (keras-rs 0.4.0, embedding/embedding_config.py).
_FEATURE_KEYS = frozenset({"name", "table", "input_shape", "output_shape"})


def _feature_leaves(
    value: Any, json_path: JsonPath, strays: list[tuple[JsonPath, Any]] | None = None
) -> Iterator[tuple[str, JsonPath, dict[str, Any]]]:
    """The FeatureConfigs of a nested ``feature_configs``, as Keras flattens them (dict keys
    sorted, lists in order): an object whose ``name`` is a string is one (keras-rs's own test
    in ``from_config``). Yields the Keras-RS path (keys joined by ``.``), the JSON path and the
    object; adds to ``strays`` each value that is none of these nor a list or object (keras-rs
    0.4.0's ``from_config`` raises on it: ``TypeError: argument of type 'NoneType' is not
    iterable``). Walked with a stack: JSON nests as deep as ``json`` reads."""
    waiting: list[tuple[tuple[str, ...], JsonPath, Any]] = [((), json_path, value)]
    while waiting:
        key, path, current = waiting.pop()
        if isinstance(current, dict):
            if isinstance(current.get("name"), str):
                yield ".".join(key), path, current
                continue
            if _FEATURE_KEYS.intersection(current):
                # A FeatureConfig without its name: keras-rs walks into it as a nesting and
                # raises on its first value; one problem for the object, not one a value.
                if strays is not None:
                    strays.append((path, current))
                continue
            children = [
                ((*key, str(name)), (*path, name), current[name])
                for name in sorted(current, key=str)
            ]
        elif isinstance(current, list):
            children = [
                ((*key, str(index)), (*path, index), item) for index, item in enumerate(current)
            ]
        else:
            if strays is not None:
                strays.append((path, current))
            continue
        waiting.extend(reversed(children))


# A table's integers and the bits the SparseCore libraries hold them in (TensorFlow's
# TableDescriptor and jax-tpu-embedding's EmbeddingSpecProto: a vocabulary in 64, the rest in 32).
_TABLE_INTEGERS = {
    "vocabulary_size": 64,
    "embedding_dim": 32,
    "max_ids_per_partition": 32,
    "max_unique_ids_per_partition": 32,
}


def _dimension(value: Any) -> bool:
    """A dimension of a shape: an integer from 0 that a 32-bit field holds."""
    number = _int(value)
    return number is not None and 0 <= number < 2**31


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _table(
    reading: KerasReading, at: FieldPath, json_path: JsonPath, value: Any, target: Table
) -> None:
    reading.note(at, json_path)
    if not isinstance(value, dict):
        reading.problem("a table config must be an object", at, json_path)
        return
    for field in ("name", "combiner", "placement"):
        if field in value:
            text = value[field]
            if isinstance(text, str):
                setattr(target, field, text)
                reading.note((*at, field), (*json_path, field))
            else:
                reading.problem(
                    f"a table's `{field}` must be a string", (*at, field), (*json_path, field)
                )
    for field, bits in _TABLE_INTEGERS.items():
        if field in value:
            number = _int(value[field])
            if number is None:
                reading.problem(
                    f"a table's `{field}` must be an integer", (*at, field), (*json_path, field)
                )
            elif not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
                reading.problem(
                    f"a table's `{field}` of {number} is more than the libraries' {bits}-bit "
                    "fields hold",
                    (*at, field),
                    (*json_path, field),
                    rule="value-out-of-range",
                )
            else:
                setattr(target, field, number)
                reading.note((*at, field), (*json_path, field))
    initializer = value.get("initializer")
    if isinstance(initializer, str):
        target.initializer = initializer
    elif isinstance(initializer, dict) and isinstance(initializer.get("class_name"), str):
        target.initializer = initializer["class_name"]
    if "initializer" in value:
        reading.note((*at, "initializer"), (*json_path, "initializer"))
    if "optimizer" in value:
        _optimizer(
            reading,
            (*at, "optimizer"),
            (*json_path, "optimizer"),
            value["optimizer"],
            target.optimizer,
        )


def _optimizer(
    reading: KerasReading, at: FieldPath, json_path: JsonPath, value: Any, target: Optimizer
) -> None:
    reading.note(at, json_path)
    if isinstance(value, str):
        target.class_name, target.by_name = value, True
        return
    if not isinstance(value, dict) or not isinstance(value.get("class_name"), str):
        reading.problem(
            "a table's `optimizer` must be an optimizer's name or a serialized optimizer",
            at,
            json_path,
        )
        return
    target.class_name = value["class_name"]
    config = value.get("config")
    if not isinstance(config, dict):
        return
    if isinstance(config.get("name"), str):
        target.name = config["name"]
        reading.note((*at, "name"), (*json_path, "config", "name"))
    for key, item in config.items():
        where = (*json_path, "config", key)
        if isinstance(item, (bool, int, float)):
            target.config[str(key)] = float(item)
            if isinstance(item, bool):
                target.booleans.append(str(key))
            elif isinstance(item, int):
                target.integers.append(str(key))
            reading.note((*at, "config", str(key)), where)
        elif key == "learning_rate" and isinstance(item, dict):
            schedule = item.get("class_name")
            target.learning_rate_schedule = schedule if isinstance(schedule, str) else "?"
            reading.note((*at, "learning_rate_schedule"), where)
            # Keras's saving marks an object seen before with `shared_object_id`; a shared
            # optimizer is marked itself (and loads as one object), a schedule shared by two
            # optimizers only in the second (and loads as two).
            if "shared_object_id" in item and "shared_object_id" not in value:
                target.schedule_shared_with = "?"
                reading.note((*at, "schedule_shared_with"), (*where, "shared_object_id"))


def _feature(
    reading: KerasReading,
    at: FieldPath,
    json_path: JsonPath,
    key: str,
    value: dict[str, Any],
    table_count: int | None,
    layer: DistributedEmbeddingLayer,
) -> None:
    """One FeatureConfig; ``table_count`` None when the layer's ``tables`` could not be read
    (reported there: every index would be wrong beside it)."""
    target = layer.features.add(key=key, name=value["name"])
    reading.note(at, json_path)
    reading.note((*at, "name"), (*json_path, "name"))
    table = _int(value.get("table"))
    if table_count is None:
        target.table = -1
        return
    if table is None or not 0 <= table < table_count:
        reading.problem(
            f"feature {value['name']!r}'s `table` must be the index of one of the layer's "
            f"{table_count} tables",
            (*at, "table"),
            (*json_path, "table") if "table" in value else json_path,
        )
        target.table = -1  # no table: the feature is kept for its own place, and not converted
        return
    target.table = table
    reading.note((*at, "table"), (*json_path, "table"))
    for field in ("input_shape", "output_shape"):
        shape = value.get(field)
        if shape is None and field not in value:
            continue
        dims = shape if isinstance(shape, list) else None
        if dims is None or not all(d is None or _dimension(d) for d in dims):
            reading.problem(
                f"feature {value['name']!r}'s `{field}` must be a list of dimensions (integers "
                "from 0 below 2**31, or null)",
                (*at, field),
                (*json_path, field),
            )
            continue
        getattr(target, field).extend(-1 if d is None else d for d in dims)
        reading.note((*at, field), (*json_path, field))
        for i in range(len(dims)):
            reading.note((*at, field, i), (*json_path, field, i))


def _stacking(
    reading: KerasReading,
    at: FieldPath,
    json_path: JsonPath,
    value: Any,
    layer: DistributedEmbeddingLayer,
) -> None:
    reading.note(at, json_path)
    ignored = _ignored_stacking(value)
    if ignored:
        layer.table_stacking.ignored = ignored
    elif value is None:
        layer.table_stacking.none = True
    elif isinstance(value, str):
        layer.table_stacking.mode = value
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        layer.table_stacking.stacks.stacks.add(tables=value)
    elif isinstance(value, list) and all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in value
    ):
        for names in value:
            layer.table_stacking.stacks.stacks.add(tables=names)
    else:
        reading.problem(
            '`table_stacking` must be null, "auto", a list of table names or a list of such lists',
            at,
            json_path,
        )


def _ignored_stacking(value: Any) -> str:
    """What a ``table_stacking`` is when keras-rs 0.4.0's JAX layer stacks nothing for it
    (``sparsecore_build``: not None, not a string, not a list with a first item), else ""."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list) and not value:
        return "an empty list"
    return ""


def load_text(text: str, name: str, fmt: str, keras_version: str = "") -> Document:
    """The Document of a config.json's ``text`` (``fmt``: the encoding it came in: ``json`` for
    a model folder's config.json, ``keras`` for an archive's)."""
    import json
    from functools import partial

    from tpuemb_cli.load.document import Document
    from tpuemb_cli.load.json_parser import Duplicates
    from tpuemb_cli.load.source import SourceMap

    duplicates = Duplicates()
    try:
        value = json.loads(text, object_pairs_hook=duplicates)
    except json.JSONDecodeError as error:
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        problem = LoadProblem(
            "invalid-syntax",
            f"config.json is not valid JSON: {error.msg}",
            span=(error.pos, error.pos + 1),
            fatal=True,
        )
        return Document(name, fmt, MESSAGE_TYPE, None, SourceMap(text), [problem], text=text)
    except RecursionError:
        return Document(
            name, fmt, MESSAGE_TYPE, None, SourceMap(text), [_too_deep(text)], text=text
        )
    except ValueError as error:  # a number too long to read
        from tpuemb_cli.load.problems import LoadProblem

        problem = LoadProblem("invalid-syntax", f"config.json cannot be read: {error}", fatal=True)
        return Document(name, fmt, MESSAGE_TYPE, None, SourceMap(text), [problem], text=text)
    if nests_deeper(value, max_nesting(MAX_DEPTH)):
        # As deep as every other document may nest (docs/development.md, Limits): reading the
        # layers' configurations recurses, and protobuf would refuse a message this deep.
        return Document(
            name, fmt, MESSAGE_TYPE, None, SourceMap(text), [_too_deep(text)], text=text
        )
    reading = read_model(value)
    reading.model.keras_version = keras_version
    problems: list[LoadProblem] = []
    if reading.pending:
        from tpuemb_cli.load.json_parser import value_spans

        problems = reading.problems(value_spans(text))
    if duplicates.found:
        problems += _duplicate_keys(text)
    source = SourceMap.lazy(text, partial(_spans, text, reading.places))
    return Document(name, fmt, MESSAGE_TYPE, reading.model, source, problems, text=text)


MESSAGE_TYPE = "KerasModel"


def _too_deep(text: str) -> LoadProblem:
    """The syntax problem of a config.json nested deeper than any document may be, at the bracket
    that opens the first level too many (as for a spec in JSON)."""
    from tpuemb_cli.load.json_parser import too_deep

    return too_deep(text, max_nesting(MAX_DEPTH))


def _duplicate_keys(text: str) -> list[LoadProblem]:
    """A problem at each key written again in its object: Keras reads config.json with
    Python's ``json``, which keeps the last value without a word (as the JSON loader of specs
    says, TE006)."""
    from tpuemb_cli.load.json_parser import duplicate_keys
    from tpuemb_cli.load.problems import LoadProblem

    return [
        LoadProblem(
            "duplicate-field",
            f"the key `{key}` appears more than once in one object; Keras reads config.json "
            "with Python's json, which keeps only the last",
            span=span,
            fix=f"keep one `{key}`",
        )
        for _, key, span in duplicate_keys(text)
    ]


def _spans(
    text: str, places: dict[FieldPath, JsonPath], _: frozenset[FieldPath] | None
) -> dict[FieldPath, tuple[int, int]]:
    """The span of each field of the KerasModel: its value's in config.json."""
    from tpuemb_cli.load.json_parser import value_spans

    raw = value_spans(text)
    spans = {}
    for path, json_path in places.items():
        span = raw.get(json_path)
        if span is not None:
            spans[path] = span
    return spans


def judge(value: Any) -> Verdict:
    """Whether a parsed config.json is a document: a Keras model with a DistributedEmbedding."""
    from tpuemb_cli.load.signatures import Verdict

    if not is_keras_model(value):
        return Verdict(False, reason="its config.json is not a Keras model's configuration")
    if next(layers_in(value), None) is None:
        return Verdict(False, reason="a Keras model with no Keras-RS DistributedEmbedding layer")
    return Verdict(True, message_type=MESSAGE_TYPE)


def judge_archive(data: bytes) -> Verdict:
    """Whether a ``.keras`` file is a document, by its content: a zip archive whose config.json
    holds a Keras model with a DistributedEmbedding layer. An archive whose config.json cannot
    be read or parsed is one (the loader reports why, at the place)."""
    import json

    from tpuemb_cli.frontends.keras.load.archive import read_archive
    from tpuemb_cli.load.signatures import Verdict

    archive = read_archive(data)
    if archive.config is None:
        if archive.no_model:
            return Verdict(False, reason=archive.error)
        return Verdict(True, message_type=MESSAGE_TYPE)
    try:
        value = json.loads(archive.config)
    except (ValueError, RecursionError):
        return Verdict(True, message_type=MESSAGE_TYPE)
    return judge(value)
