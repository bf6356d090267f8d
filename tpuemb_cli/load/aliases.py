"""The other names people write for fields of the config and the spec: TensorFlow's Python API's
(`tf.tpu.experimental.embedding`), Keras's, and each other's (a spec's `sgd` in a config).

Only names certain to mean the field they point to: the argument TensorFlow's Python classes
copy into it (`tpu_embedding_v2_utils.py`, `_set_optimization_parameters` of each optimizer and
`TableConfig._set_table_descriptor`, at v2.21.0; tpuemb's spec compiler does the same), or
Keras's name for the same quantity. A typo needs no row (``model.nearest`` finds it by
closeness); a name that could mean two fields has none (a spec's `clip_weight_min` and
`clip_weight_max` are both the config's `clipping_limits`, so `clipping_limits` in a spec gets no
suggestion). Keys are message full names, then the written name in ``nearest.words`` spelling;
values are the field and, when the value is written differently too, a note that says how.

The optimizers' names -- a spec's `sgd` for the config's `stochastic_gradient_descent`, an
argument's name for the config field it is written to (`lr_power` for `learning_rate_power`) --
come from ``model.optimizers``, both ways.
"""

from __future__ import annotations

from typing import Any

from tpuemb_cli.model import optimizers
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters

_CONFIG = "tpuemb.tpu."
_SPEC = "tpuemb.spec."
_OPPOSITE = "the opposite of `{written}`"

ALIASES: dict[str, dict[str, tuple[str, str]]] = {
    # -- the config (TensorFlow's protos) -------------------------------------------------------
    _CONFIG + "TPUEmbeddingConfiguration": {
        "tables": ("table_descriptor", ""),
        "features": ("feature_descriptor", ""),
        "feature_config": ("feature_descriptor", ""),  # TPUEmbedding's argument
    },
    _CONFIG + "TPUEmbeddingConfiguration.TableDescriptor": {
        "dim": ("dimension", ""),  # TableConfig's argument
        "embedding_dim": ("dimension", ""),
        "output_dim": ("dimension", ""),  # Keras's Embedding
        "input_dim": ("vocabulary_size", ""),  # Keras's Embedding
        "vocab_size": ("vocabulary_size", ""),
        "optimizer": ("optimization_parameters", ""),  # TableConfig's argument
    },
    _CONFIG + "TPUEmbeddingConfiguration.FeatureDescriptor": {
        "table": ("table_id", "the index of the table in `table_descriptor`"),  # FeatureConfig's
    },
    _CONFIG + "OptimizationParameters": {
        "lr": ("learning_rate", "its `constant`"),  # Keras's old name
        "clip_weight_min": ("clipping_limits", "its `lower`"),
        "clip_weight_max": ("clipping_limits", "its `upper`"),
        "clipvalue": ("gradient_clipping_limits", "its `lower` and `upper`"),
        "use_gradient_accumulation": ("gradient_accumulation_status", "ENABLED or DISABLED"),
    },
    # -- the spec (TensorFlow's Python API's names) ---------------------------------------------
    _SPEC + "EmbeddingSpec": {
        "table_descriptor": ("tables", ""),
        "feature_descriptor": ("features", ""),
        "feature_config": ("features", ""),
    },
    _SPEC + "Table": {
        "dimension": ("dim", ""),
        "embedding_dim": ("dim", ""),
        "output_dim": ("dim", ""),
        "input_dim": ("vocabulary_size", ""),
        "vocab_size": ("vocabulary_size", ""),
        "optimization_parameters": ("optimizer", ""),
    },
    _SPEC + "Feature": {
        "table_id": ("table", "the table's name, or `#<index>` for an unnamed one"),
    },
    _SPEC + "Optimizer": {
        "lr": ("learning_rate", "its `constant`"),
        "gradient_clipping_limits": ("clipvalue", ""),
        "gradient_accumulation_status": ("use_gradient_accumulation", "true or false"),
    },
}


def _optimizer_aliases() -> None:
    """Each optimizer's spec field and config field, and each argument's name and the config
    field it is written to, as each other's aliases (not a spec field's JSON name: `beta1` is
    `beta_1`'s, and YAML takes it as JSON does)."""
    config_fields = OptimizationParameters.DESCRIPTOR.fields_by_name
    spec_fields = Optimizer.DESCRIPTOR.fields_by_name
    for row in optimizers.optimizers():
        if row.spec != row.field:
            ALIASES[_CONFIG + "OptimizationParameters"][row.spec] = (row.field, "")
            ALIASES[_SPEC + "Optimizer"][row.field] = (row.spec, "")
        config: Any = config_fields[row.field].message_type
        spec: Any = spec_fields[row.spec].message_type
        for argument in row.arguments:
            if argument.field is None or argument.field == argument.name:
                continue
            note = _OPPOSITE if argument.inverted else ""
            ALIASES.setdefault(config.full_name, {})[argument.name] = (argument.field, note)
            if spec.fields_by_name[argument.name].json_name != argument.field:
                ALIASES.setdefault(spec.full_name, {})[argument.field] = (argument.name, note)


_optimizer_aliases()


def of(message: str) -> dict[str, str]:
    """The other names of the fields of the message ``message`` (a full name): written -> field."""
    return {written: field for written, (field, _) in ALIASES.get(message, {}).items()}


def note(message: str, written: str, field: str) -> str:
    """How the value differs when ``written`` (``words`` spelling) is given as ``field``, if
    the table says."""
    found = ALIASES.get(message, {}).get(written)
    if found is None or found[0] != field:
        return ""
    return found[1].format(written=written)
