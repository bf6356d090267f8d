"""Whether a ``DistributedEmbedding``'s ``feature_configs`` have the shape of the inputs its
model saved it with. Keras builds each layer of a loaded model from its ``build_config``
(``input_shape``: one shape per feature) and then calls it on the tensors of each
``inbound_nodes`` entry; keras-rs 0.4.0's ``DistributedEmbedding.build`` and ``preprocess``
hold both to the structure of ``feature_configs`` (``keras.tree.map_structure_up_to`` and
``assert_same_structure``), and ``load_model`` raises ``ValueError`` when they differ: a feature
dropped, renamed or nested one level deeper, a dict written as a list ("dictionary key
mismatch", "Expected an instance of list"). Measured with keras 3.15.1 on CPU
(tests/test_keras_oracle_verdicts.py)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.keras.load.layer_config import json_type
from tpuemb_cli.model.words import listed, plural

JsonPath = tuple[str | int, ...]


def _is_feature(value: Any) -> bool:
    """A FeatureConfig's object, as ``from_config`` tells one: a string ``name``."""
    return isinstance(value, dict) and isinstance(value.get("name"), str)


def _is_shape(value: Any) -> bool:
    return isinstance(value, list) and all(
        d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in value
    )


def _is_tensor(value: Any) -> bool:
    return isinstance(value, dict) and value.get("class_name") == "__keras_tensor__"


def _keys(names: Any) -> str:
    """Keys quoted, the first few of a set that may be a hostile file's thousands."""
    return listed(sorted(str(name) for name in names)) or "none"


def _difference(
    features: Any, inputs: Any, is_leaf: Any, path: JsonPath = ()
) -> tuple[JsonPath, str] | None:
    """Where ``inputs`` first differs from the structure of ``features`` (its path inside the
    feature configs) and how, or None. Walked with a stack: the config nests as deep as the
    loader let it."""
    waiting: list[tuple[JsonPath, Any, Any]] = [(path, features, inputs)]
    while waiting:
        at, feature, given = waiting.pop()
        if _is_feature(feature):
            if not is_leaf(given):
                return at, f"{json_type(given)} where one feature's input must be"
            continue
        if isinstance(feature, dict):
            if not isinstance(given, dict) or is_leaf(given):
                return at, f"an object of features where the inputs are {json_type(given)}"
            missing, extra = set(feature) - set(given), set(given) - set(feature)
            if missing or extra:
                told = [f"no input for {_keys(missing)}"] if missing else []
                told += [f"no feature for {_keys(extra)}"] if extra else []
                return at, (
                    f"features {_keys(feature)} where the inputs are {_keys(given)} "
                    f"({'; '.join(told)})"
                )
            waiting.extend((at + (key,), feature[key], given[key]) for key in feature)
        elif isinstance(feature, list):
            if not isinstance(given, list) or is_leaf(given):
                return at, f"a list of features where the inputs are {json_type(given)}"
            if len(feature) != len(given):
                return at, f"{plural(len(feature), 'feature')} where the inputs are {len(given)}"
            waiting.extend(
                (at + (i,), f, g) for i, (f, g) in enumerate(zip(feature, given, strict=True))
            )
    return None


def _called_with(node: Any) -> tuple[bool, Any]:
    """The inputs an ``inbound_nodes`` entry calls the layer with: its first argument, or its
    ``inputs`` keyword."""
    if not isinstance(node, dict):
        return False, None
    args, kwargs = node.get("args"), node.get("kwargs")
    if isinstance(args, list) and args:
        return True, args[0]
    if isinstance(kwargs, dict) and "inputs" in kwargs:
        return True, kwargs["inputs"]
    return False, None


def inputs_mismatch(layer: dict[str, Any]) -> tuple[JsonPath, JsonPath, str] | None:
    """The first place where the inputs a saved layer is built and called with differ from its
    ``feature_configs``, in the order Keras's loading meets them: the JSON path of the
    differing value inside ``feature_configs``, the JSON path of the inputs it was held to
    (inside the layer's object), and what differs. None when nothing says (a hand-written
    config without ``build_config`` or ``inbound_nodes``) or all agree."""
    config = layer.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("feature_configs"), (dict, list)):
        return None  # the loader reports a feature_configs of no structure
    features = config["feature_configs"]
    build = layer.get("build_config")
    if isinstance(build, dict) and "input_shape" in build:
        found = _difference(features, build["input_shape"], _is_shape)
        if found is not None:
            return found[0], ("build_config", "input_shape"), found[1]
    nodes = layer.get("inbound_nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else ()):
        called, inputs = _called_with(node)
        if called:
            found = _difference(features, inputs, _is_tensor)
            if found is not None:
                return found[0], (f"inbound_nodes[{index}]",), found[1]
    return None
