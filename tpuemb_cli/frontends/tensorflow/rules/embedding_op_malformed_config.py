"""A TPU embedding op whose `config` attribute is not a TPUEmbeddingConfiguration.

## What it does
Reports `SendTPUEmbeddingGradients`, `XlaSendTPUEmbeddingGradients`, `RecvTPUEmbeddingActivations`,
`XlaRecvTPUEmbeddingActivations`, `XlaRecvTPUEmbeddingDeduplicationData` and
`ConfigureTPUEmbedding` nodes whose `config` is missing, not a string, or not a serialized
`TPUEmbeddingConfiguration`. A config that parses is checked with every config rule; those
findings are reported at the node's `config` attribute.

## Why is this bad?
The op cannot be configured; the job fails on the TPU, or -- for the ops that do not parse it at
graph construction -- much later than it could have.

## What TensorFlow does
`RecvTPUEmbeddingActivations` fails at construction (`Malformed tpu_embedding_config.`), as does
`XlaRecvTPUEmbeddingActivations`; `SendTPUEmbeddingGradients`, `XlaSendTPUEmbeddingGradients`,
`XlaRecvTPUEmbeddingDeduplicationData` and `ConfigureTPUEmbedding` accept a malformed or empty
config at construction.

## Example
```pbtxt
node { name: "send" op: "XlaSendTPUEmbeddingGradients" attr { key: "config" value { s: "\377" } } }
```

## Use instead
```pbtxt
node { name: "send" op: "XlaSendTPUEmbeddingGradients"
       attr { key: "config" value { s: "<the serialized config>" } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `RecvTPUEmbeddingActivations` (its shape function parses `config`) and
  `SendTPUEmbeddingGradients` (its shape function does not: a malformed config builds)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaRecvTPUEmbeddingActivations` (parses `config`), `XlaSendTPUEmbeddingGradients` and
  `XlaRecvTPUEmbeddingDeduplicationData` (a malformed or empty config builds)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import CONFIG_OPS, config_of
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(CONFIG_OPS)):
        value = node.attr("config")
        if value is None:
            yield Violation(
                node.path,
                f"{node.label} has no `config` attribute",
                "set `config` to the serialized TPUEmbeddingConfiguration",
            )
        elif config_of(node) is None:
            yield Violation(
                node.path + ("attr", "config"),
                f"{node.label} has a `config` that is not a serialized TPUEmbeddingConfiguration",
                "set it to the bytes of the config the embedding was configured with",
            )
        elif not value.s:
            yield Violation(
                node.path + ("attr", "config"),
                f"{node.label} has an empty `config`: no tables, no features",
                "set it to the serialized config the embedding was configured with",
            )
