"""An embedding op's gradient or activation count differs from what its config defines.

## What it does
Compares `NumTables` (`XlaSendTPUEmbeddingGradients`), `N` (`SendTPUEmbeddingGradients`),
`num_outputs` (`RecvTPUEmbeddingActivations`) and `num_tables` (`XlaRecvTPUEmbeddingActivations`)
with the number of features in the node's config -- or of tables, for a config without feature
descriptors, which is how TensorFlow pairs them.

## Why is this bad?
Each gradient is applied to one feature's table. With one too few, a table never trains; with
gradients shifted, tables receive each other's gradients.

## What TensorFlow does
The receive ops check it at construction (`Number of outputs: 3 of the
XlaRecvTPUEmbeddingActivations node does not match the number of tables or features in the TPU
embedding config: 4.`); the send ops do not (3 gradients for 4 tables, 1 for 4 features accepted).

## Example
```pbtxt
node { name: "send" op: "SendTPUEmbeddingGradients" attr { key: "N" value { i: 3 } } }
```

## Use instead
```pbtxt
node { name: "send" op: "SendTPUEmbeddingGradients" attr { key: "N" value { i: 4 } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `RecvTPUEmbeddingActivations` (`num outputs != size of output shapes`) and
  `SendTPUEmbeddingGradients` (does not count its gradients: 1 for 4 features builds)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaRecvTPUEmbeddingActivations` (`Number of outputs: ... does not match the number of tables
  or features`) and `XlaSendTPUEmbeddingGradients` (3 gradients for 4 tables build)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import (
    RECV_OPS,
    SEND_OPS,
    activations,
    config_of,
    int_attr,
)
from tpuemb_cli.model.findings import Violation

_COUNTS = {op: names[0] for op, names in SEND_OPS.items()} | RECV_OPS


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(_COUNTS)):
        config = config_of(node)
        if config is None:
            continue
        attribute = _COUNTS[node.node.op]
        count = int_attr(node, attribute)
        expected, what = activations(config)
        if count is not None and count != expected:
            kind = "gradients" if node.node.op in SEND_OPS else "activations"
            yield Violation(
                node.path + ("attr", attribute),
                f"{node.label} has {count} {kind} (`{attribute}`), but its config defines "
                f"{expected} {what}",
                f"use one per {what[:-1]}: `{attribute}: {expected}`",
            )
