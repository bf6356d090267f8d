"""A send-gradients op feeds a different number of learning rates than its config has tags.

## What it does
For `XlaSendTPUEmbeddingGradients` (`NumLearningRateTags`) and `SendTPUEmbeddingGradients`
(`NN`), compares the number of learning-rate inputs with the number of distinct dynamic tags in
the node's config.

## Why is this bad?
Tag `i` reads the `i`-th learning-rate input. With fewer inputs some tables read no rate (or
another's); with more, the extra rates are ignored -- usually a schedule was dropped from the
config but not from the training loop. Training goes on with wrong learning rates.

## What TensorFlow does
Nothing checks it: 0 or 5 learning rates for a 2-tag config are accepted at construction, and no C++
message compares them (the same holds for `SendTPUEmbeddingGradients`: 7 rates for a 2-tag config
build).

## Example
```pbtxt
node { name: "send" op: "XlaSendTPUEmbeddingGradients"
       attr { key: "NumLearningRateTags" value { i: 5 } } }  # the config has 2 tags
```

## Use instead
```pbtxt
node { name: "send" op: "XlaSendTPUEmbeddingGradients"
       attr { key: "NumLearningRateTags" value { i: 2 } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.apply_gradients` (passes one learning rate per distinct callable, in tag order)
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `SendTPUEmbeddingGradients` (the shape function checks each learning rate's rank, not their
  number)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaSendTPUEmbeddingGradients` (likewise)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import (
    SEND_OPS,
    config_of,
    distinct_tags,
    int_attr,
)
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import plural


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(SEND_OPS)):
        config = config_of(node)
        attribute = SEND_OPS[node.node.op][1]
        count = int_attr(node, attribute) or 0
        if config is None:
            continue
        tags = distinct_tags(config)
        if count != tags:
            yield Violation(
                node.path + ("attr", attribute),
                f"{node.label} feeds {plural(count, 'learning rate')} (`{attribute}`), but its "
                f"config has {plural(tags, 'distinct dynamic tag')}; tag i reads the i-th "
                "learning rate",
                f"feed one learning rate per tag: `{attribute}: {tags}`",
            )
