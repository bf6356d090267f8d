"""A cuDNN RNN backprop op whose attributes differ from its forward op's.

## What it does
Finds the forward op of each `CudnnRNNBackprop*` op (through its reserve-space input) and reports
each of `rnn_mode`, `input_mode`, `direction`, `dropout`, `seed`, `seed2`, `num_proj`,
`time_major` and `T` that differs.

## Why is this bad?
The backprop reads the forward pass's reserve space, laid out for the forward op's RNN; with
another mode or direction it computes gradients of a different network -- garbage, or a crash in
cuDNN.

## What TensorFlow does
Not checked: a backprop with `rnn_mode` gru on an lstm forward op constructs.

## Example
```pbtxt
node { name: "bwd" op: "CudnnRNNBackpropV3" input: "fwd:3"
       attr { key: "rnn_mode" value { s: "gru" } } }
```

## Use instead
The backprop op's attributes copied from its forward op.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/cudnn_rnn_ops.cc),
  `CudnnRNNBackpropV3` (its shape function does not compare its attributes or inputs with the
  forward op's)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import BACKPROP, SHARED, forward_of
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(BACKPROP)):
        forward = forward_of(view, node)
        if forward is None:
            continue
        for name in SHARED:
            mine, theirs = node.attr(name), forward.attr(name)
            if mine is not None and theirs is not None and mine != theirs:
                yield Violation(
                    node.path + ("attr", name),
                    f"{node.label} has a different `{name}` from its forward op "
                    f"{forward.label}; the backprop must describe the same RNN",
                    f"copy `{name}` from the forward op",
                )
