"""What a ``DistributedEmbedding``'s saved config holds that keras-rs's ``from_config`` refuses,
beyond the tables and features ``keras_config`` reads, and what Keras's saving marks as shared.
Measured with keras-rs 0.4.0 and keras 3.15.1 on CPU (tests/test_keras_oracle_verdicts.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.frontends.keras.load.config import JsonPath, KerasReading
    from tpuemb_cli.model.paths import FieldPath
    from tpuemb_cli.pb.keras.keras_model_pb2 import DistributedEmbeddingLayer


def schedule_partners(layer: DistributedEmbeddingLayer, tables: list[Any]) -> None:
    """Names the earlier table whose schedule a marked one was saved the same as (Keras writes
    the object again in full, with the same config)."""

    def schedule(table: Any) -> Any:
        optimizer = table.get("optimizer") if isinstance(table, dict) else None
        config = optimizer.get("config") if isinstance(optimizer, dict) else None
        rate = config.get("learning_rate") if isinstance(config, dict) else None
        if not isinstance(rate, dict):
            return None
        return {k: v for k, v in rate.items() if k != "shared_object_id"}

    for i, table in enumerate(layer.tables):
        if table.optimizer.schedule_shared_with != "?":
            continue
        mine = schedule(tables[i])
        for j in range(i):
            if schedule(tables[j]) == mine:
                table.optimizer.schedule_shared_with = layer.tables[j].name
                break


# The keys `DistributedEmbedding.from_config` takes (keras-rs 0.4.0: `tables`, and the
# layer's keyword arguments) and Keras's `Layer.__init__` (keras 3.15.1, layers/layer.py).
_LAYER_KEYS = frozenset(
    {
        "feature_configs",
        "tables",
        "table_stacking",
        "update_stats",
        "name",
        "trainable",
        "dtype",
        "autocast",
        "activity_regularizer",
        "input_dim",
        "input_shape",
    }
)


def top_level_types(
    reading: KerasReading, at: FieldPath, config_path: JsonPath, config: dict[str, Any]
) -> None:
    """A problem at each value of the layer's config of a JSON type its ``from_config`` refuses
    (keras-rs 0.4.0, measured on CPU; ``tables`` is checked where it is read):
    ``feature_configs`` absent (``KeyError``) or no list or object (``TypeError: argument of
    type 'NoneType' is not iterable``, or for a string, the layer's own ``ValueError``); a
    ``name`` that is neither a string nor null, a ``trainable`` that is no boolean, a ``dtype``
    that is neither null, a string nor a serialized policy, a key no ``__init__`` takes (Keras's
    ``Layer.__init__`` raises ``ValueError`` for each)."""
    if "feature_configs" not in config:
        reading.problem(
            "a DistributedEmbedding's config has no `feature_configs`: its `from_config` raises "
            "KeyError",
            (*at, "features"),
            config_path,
        )
    elif not isinstance(config["feature_configs"], (dict, list)):
        reading.problem(
            "a DistributedEmbedding's `feature_configs` must be a FeatureConfig or a list or "
            f"object of them, not {json_type(config['feature_configs'])}: its `from_config` "
            "raises",
            (*at, "features"),
            (*config_path, "feature_configs"),
        )
    for key in config:
        if key not in _LAYER_KEYS:
            reading.problem(
                f"a DistributedEmbedding's config has a key `{key}` that neither keras-rs "
                "0.4.0's layer nor Keras's Layer takes: its `from_config` raises ValueError "
                "(Unrecognized keyword arguments)",
                at,
                (*config_path, key),
            )
    expected = {
        "name": ((str, type(None)), "a string or null"),
        "trainable": ((bool,), "true or false"),
        "dtype": ((str, dict, type(None)), "null, a dtype's name or a serialized DTypePolicy"),
    }
    for key, (kinds, wanted) in expected.items():
        if key in config and not isinstance(config[key], kinds):
            reading.problem(
                f"a DistributedEmbedding's `{key}` must be {wanted}, not "
                f"{json_type(config[key])}: Keras's Layer raises ValueError when the model "
                "is loaded",
                at,
                (*config_path, key),
            )


def json_type(value: Any) -> str:
    """How JSON names the type of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"
