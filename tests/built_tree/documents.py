"""The TPU embedding documents of the built repository, all under configs/: a text config, a JSON
config, a binary config, a standalone OptimizationParameters and a spec with mistakes, a clean
one of each, and a sweep of clean configs that configs/gen.py writes (beside it, its sweep.yaml
and a NOTES.md: what a narrowed pre-commit hook passes too)."""

from __future__ import annotations

# The ranker's training config. Mistakes: Adam's beta2 of 1.0; the `country` feature's table_id
# is 3 where there are three tables (it meant 2), so the `country` table is unused too.
RANKER_PBTXT = """\
# proto-message: tensorflow.tpu.TPUEmbeddingConfiguration
#
# The ranker's embeddings on a v4-32 slice (4 hosts, 16 TensorCores), as trainer/embedding.py
# builds them with tf.tpu.experimental.embedding.
table_descriptor {
  name: "item"
  vocabulary_size: 2000000
  dimension: 64
  optimization_parameters {
    adagrad {
    }
    learning_rate {
      constant: 0.05
    }
    gradient_accumulation_status: ENABLED
  }
}
table_descriptor {
  name: "user"
  vocabulary_size: 5000000
  dimension: 64
  optimization_parameters {
    adam {
      beta1: 0.9
      beta2: 1.0
      epsilon: 1e-07
    }
    learning_rate {
      constant: 0.001
    }
    gradient_accumulation_status: ENABLED
  }
}
table_descriptor {
  name: "country"
  vocabulary_size: 256
  dimension: 4
  optimization_parameters {
    stochastic_gradient_descent {
    }
    learning_rate {
      constant: 0.02
    }
    gradient_accumulation_status: ENABLED
  }
}
mode: TRAINING
num_hosts: 4
num_tensor_cores: 16
feature_descriptor {
  name: "watched_items"
  table_id: 0
  input_shape: 128
  input_shape: 20
}
feature_descriptor {
  name: "user_id"
  table_id: 1
  input_shape: 128
}
feature_descriptor {
  name: "country"
  table_id: 3
  input_shape: 128
}
"""

# The same tables for serving: clean.
RANKER_SERVING_PBTXT = """\
# proto-message: tensorflow.tpu.TPUEmbeddingConfiguration
# The ranker's embeddings for TPU serving (no optimizer state is updated).
table_descriptor {
  name: "item"
  vocabulary_size: 2000000
  dimension: 64
}
table_descriptor {
  name: "user"
  vocabulary_size: 5000000
  dimension: 64
}
table_descriptor {
  name: "country"
  vocabulary_size: 256
  dimension: 4
}
mode: INFERENCE
num_hosts: 1
num_tensor_cores: 4
feature_descriptor {
  name: "watched_items"
  table_id: 0
  input_shape: 32
  input_shape: 20
}
feature_descriptor {
  name: "user_id"
  table_id: 1
  input_shape: 32
}
feature_descriptor {
  name: "country"
  table_id: 2
  input_shape: 32
}
"""

# The retrieval model's two towers, as json_format.MessageToJson writes a config. Mistakes: the
# second table repeats the first one's name (it meant "title_tokens"); FTRL's lrPower is positive.
TWO_TOWER_JSON = """\
{
  "tableDescriptor": [
    {
      "name": "query_tokens",
      "vocabularySize": "1000000",
      "dimension": 128,
      "optimizationParameters": {
        "learningRate": {
          "constant": 0.05
        },
        "gradientAccumulationStatus": "ENABLED",
        "ftrl": {
          "l2": 0.001,
          "lrPower": 0.5,
          "beta": 1.0
        }
      }
    },
    {
      "name": "query_tokens",
      "vocabularySize": "1000000",
      "dimension": 128,
      "optimizationParameters": {
        "learningRate": {
          "constant": 0.05
        },
        "gradientAccumulationStatus": "ENABLED",
        "adagrad": {}
      }
    }
  ],
  "mode": "TRAINING",
  "numHosts": 2,
  "numTensorCores": 8,
  "featureDescriptor": [
    {
      "name": "query",
      "tableId": 0,
      "inputShape": [256, 16]
    },
    {
      "name": "title",
      "tableId": 1,
      "inputShape": [256, 32]
    }
  ]
}
"""

# The query tower alone: clean.
QUERY_TOWER_JSON = """\
{
  "tableDescriptor": [
    {
      "name": "query_tokens",
      "vocabularySize": "1000000",
      "dimension": 128,
      "optimizationParameters": {
        "learningRate": {
          "constant": 0.05
        },
        "gradientAccumulationStatus": "ENABLED",
        "ftrl": {
          "l2": 0.001,
          "lrPower": -0.5,
          "beta": 1.0
        }
      }
    }
  ],
  "mode": "TRAINING",
  "numHosts": 2,
  "numTensorCores": 8,
  "featureDescriptor": [
    {
      "name": "query",
      "tableId": 0,
      "inputShape": [256, 16]
    }
  ]
}
"""

# Binary configs are written from these (the export job serialises what it trained with).
# Mistakes in the first: no mode, and a negative learning rate.
EXPORT_TEXT = """\
table_descriptor {
  name: "item"
  vocabulary_size: 2000000
  dimension: 64
  optimization_parameters {
    adagrad {}
    learning_rate { constant: -0.05 }
    gradient_accumulation_status: ENABLED
  }
}
num_hosts: 4
num_tensor_cores: 16
feature_descriptor { name: "watched_items" table_id: 0 input_shape: 128 input_shape: 20 }
"""
EXPORT_CLEAN_TEXT = EXPORT_TEXT.replace("constant: -0.05", "constant: 0.05").replace(
    "num_hosts: 4", "mode: TRAINING\nnum_hosts: 4"
)

# The item tower's optimizer, read by trainer/embedding.py into an OptimizationParameters and
# copied into each of its tables (no header: its fields say what it is). Mistakes: epsilon 0;
# gradient clipping with gradient accumulation disabled.
ITEM_OPTIMIZER_PBTXT = """\
# Optimizer of the item tower's tables (trainer/embedding.py copies it into each).
learning_rate {
  constant: 0.001
}
gradient_clipping_limits {
  lower {
    value: -5.0
  }
  upper {
    value: 5.0
  }
}
gradient_accumulation_status: DISABLED
adam {
  beta1: 0.9
  beta2: 0.999
  epsilon: 0.0
}
"""

USER_OPTIMIZER_PBTXT = """\
# proto-message: tensorflow.tpu.OptimizationParameters
# Optimizer of the user tower's tables.
adagrad {
}
learning_rate {
  constant: 0.05
}
gradient_accumulation_status: ENABLED
"""

# The ranker as a tpuemb spec. Mistakes: the user table's schedule name is misspelt; the `user`
# feature names a table that does not exist (the table is `user_id`), which leaves `user_id`
# unused (a warning).
RANKER_SPEC = """\
# The ranker's embeddings as a tpuemb spec: `tpuemb compile` writes the config trainer/ reads.
optimizer:
  adagrad: {initial_accumulator_value: 0.1}
  learning_rate: {schedule: warmup}

schedules:
  - name: warmup
    tag: 0
    description: "linear warm-up over 10k steps, then constant"

tables:
  - name: item_id
    vocabulary_size: 2000000
    dim: 64
  - name: user_id
    vocabulary_size: 5000000
    dim: 64
    optimizer:
      adam: {beta_1: 0.9, beta_2: 0.999, epsilon: 1.0e-07}
      learning_rate: {schedule: warmpu}

features:
  - {name: watched_items, table: item_id, input_shape: [128, 20]}
  - {name: user, table: user}

topology: {num_hosts: 4, cores_per_host: 4, per_replica_batch_size: 32}
"""

RETRIEVAL_SPEC = """\
# The retrieval model's query tower.
optimizer:
  sgd: {}
  learning_rate: {constant: 0.1}

tables:
  - name: query_tokens
    vocabulary_size: 1000000
    dim: 128
    combiner: sqrtn

features:
  - {name: query, table: query_tokens, input_shape: [256, 16]}

topology: {num_hosts: 2, cores_per_host: 4, per_replica_batch_size: 32}
"""

# The hyperparameter sweep: configs/gen.py writes a clean config per combination into
# configs/sweep/ (72: enough files that `--jobs 2` forks). `features` and `optimizer` at the top,
# as in a spec, holding other things.
SWEEP_YAML = """\
# The sweep configs/gen.py writes to configs/sweep/: one config per combination.
features:
  - watched_items
optimizer:
  - adagrad
  - sgd
  - adam
dimension: [16, 32, 64, 128]
learning_rate: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
"""

GEN_PY = '''\
"""Writes configs/sweep/: the ranker's item table for each combination of configs/sweep.yaml.
Run from anywhere: python configs/gen.py"""

from pathlib import Path

import yaml

HERE = Path(__file__).parent
OPTIMIZERS = {
    "adagrad": "adagrad {\\n    }",
    "sgd": "stochastic_gradient_descent {\\n    }",
    "adam": "adam {\\n      beta1: 0.9\\n      beta2: 0.999\\n      epsilon: 1e-07\\n    }",
}
TEMPLATE = """\\
# Generated by configs/gen.py from configs/sweep.yaml: do not edit.
table_descriptor {{
  name: "item"
  vocabulary_size: 2000000
  dimension: {dimension}
  optimization_parameters {{
    {optimizer}
    learning_rate {{
      constant: {learning_rate}
    }}
    gradient_accumulation_status: ENABLED
  }}
}}
mode: TRAINING
num_hosts: 4
num_tensor_cores: 16
feature_descriptor {{
  name: "{feature}"
  table_id: 0
  input_shape: 128
  input_shape: 20
}}
"""


def main() -> None:
    sweep = yaml.safe_load((HERE / "sweep.yaml").read_text())
    (HERE / "sweep").mkdir(exist_ok=True)
    for name in sweep["optimizer"]:
        for dimension in sweep["dimension"]:
            for learning_rate in sweep["learning_rate"]:
                text = TEMPLATE.format(
                    dimension=dimension,
                    optimizer=OPTIMIZERS[name],
                    learning_rate=learning_rate,
                    feature=sweep["features"][0],
                )
                path = HERE / "sweep" / f"item_{name}_d{dimension}_lr{learning_rate}.pbtxt"
                path.write_text(text)


if __name__ == "__main__":
    main()
'''

NOTES_MD = """\
# configs/

- `ranker/`: the ranker's embeddings; `tpu_embedding.pbtxt` trains, `serving.pbtxt` serves.
- `retrieval/`: the two-tower retrieval model (JSON, as the export job writes it).
- `export/`: binary configs the export job wrote next to the SavedModels.
- `optimizers/`: per-tower optimizers, copied into each table by trainer/embedding.py.
- `specs/`: tpuemb specs; `tpuemb compile specs/ranker.spec.yaml` rebuilds the ranker's config.
- `sweep/`: written by `python configs/gen.py` from `sweep.yaml`; do not edit by hand.

Run `tpuemb check configs/` before pushing (pre-commit does it for you).
"""

TEXT_DOCUMENTS: dict[str, str] = {
    "configs/ranker/tpu_embedding.pbtxt": RANKER_PBTXT,
    "configs/ranker/serving.pbtxt": RANKER_SERVING_PBTXT,
    "configs/retrieval/two_tower.json": TWO_TOWER_JSON,
    "configs/retrieval/query_tower.json": QUERY_TOWER_JSON,
    "configs/optimizers/item_adam.pbtxt": ITEM_OPTIMIZER_PBTXT,
    "configs/optimizers/user_adagrad.pbtxt": USER_OPTIMIZER_PBTXT,
    "configs/specs/ranker.spec.yaml": RANKER_SPEC,
    "configs/specs/retrieval.spec.yaml": RETRIEVAL_SPEC,
}
# Written in binary (a TPUEmbeddingConfiguration) from these text configs.
BINARY_DOCUMENTS: dict[str, str] = {
    "configs/export/tpu_embedding.pb": EXPORT_TEXT,
    "configs/export/tpu_embedding_clean.pb": EXPORT_CLEAN_TEXT,
}
# Not documents, under configs/: what a narrowed pre-commit hook passes too.
CONFIGS_OTHERS: dict[str, str] = {
    "configs/gen.py": GEN_PY,
    "configs/NOTES.md": NOTES_MD,
    "configs/sweep.yaml": SWEEP_YAML,
}
