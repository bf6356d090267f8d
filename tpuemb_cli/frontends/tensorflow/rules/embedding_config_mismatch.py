"""Embedding ops in one graph configured with different configs.

## What it does
Reports a send, receive or deduplication op whose `config` differs from the first such op's in
the same graph (or library function).

## Why is this bad?
Activations are received under one layout and gradients sent under another: tables, features and
tags no longer line up, and gradients go to the wrong rows or tables.

## What TensorFlow does
Each op parses its own `config`; nothing compares them.

## Example
```pbtxt
node { name: "recv" op: "RecvTPUEmbeddingActivations" attr { key: "config" value { s: "<A>" } } }
node { name: "send" op: "SendTPUEmbeddingGradients" attr { key: "config" value { s: "<B>" } } }
```

## Use instead
```pbtxt
node { name: "recv" op: "RecvTPUEmbeddingActivations" attr { key: "config" value { s: "<A>" } } }
node { name: "send" op: "SendTPUEmbeddingGradients" attr { key: "config" value { s: "<A>" } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `RecvTPUEmbeddingActivations`, `SendTPUEmbeddingGradients` (each op parses its own `config`)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaRecvTPUEmbeddingActivations`, `XlaSendTPUEmbeddingGradients`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import CONFIG_OPS, config_of
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for scope in view.scopes:
        first = None
        for node in scope.nodes:
            if node.node.op not in CONFIG_OPS or node.node.op == "ConfigureTPUEmbedding":
                continue
            config = config_of(node)
            if config is None:
                continue
            if first is None:
                first = (node, config)
            elif config != first[1]:
                yield Violation(
                    node.path + ("attr", "config"),
                    f"{node.label} is configured differently from {first[0].label}; send and "
                    "receive ops must share one config",
                    "give every embedding op the same serialized config",
                )
