"""A cuDNN RNN projection that is negative, larger than num_units, or not on an LSTM.

## What it does
Reports `num_proj` < 0, `num_proj` > 0 on an RNN that is not an LSTM, and `num_proj` above
`num_units` (the last dimension of `input_c`).

## Why is this bad?
A projection maps an LSTM's num_units-wide output down to num_proj; only LSTMs have one in cuDNN,
and projecting up is not supported. cuDNN rejects these at run time, on the GPU.

## What TensorFlow does
Not checked at construction: graphs with num_proj 9 for 6 units, and with -1, build.

## Example
```pbtxt
attr { key: "num_proj" value { i: 9 } }   # input_c [1, 3, 6]
```

## Use instead
```pbtxt
attr { key: "num_proj" value { i: 2 } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/cudnn_rnn_ops.cc),
  `CudnnRNNV3` (the forward shape function takes num_units from `input_h` and does not check
  `num_proj`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import (
    BACKPROP,
    FORWARD,
    known,
    shapes,
    string_attr,
)
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(FORWARD | BACKPROP)):
        value = node.attr("num_proj")
        if value is None or value.WhichOneof("value") != "i" or value.i == 0:
            continue
        num_proj = int(value.i)
        at = node.path + ("attr", "num_proj")
        if num_proj < 0:
            yield Violation(
                at,
                f"{node.label} has num_proj {num_proj}; it cannot be negative",
                "use 0 for no projection",
            )
            continue
        mode = string_attr(node, "rnn_mode", "lstm")
        if mode != "lstm":
            yield Violation(
                at,
                f"{node.label} projects (num_proj {num_proj}) a {mode} RNN; "
                "cuDNN projects only LSTMs",
                "use num_proj 0",
            )
            continue
        input_c = shapes(node).input_c
        if input_c and known(input_c[-1]) and num_proj > input_c[-1]:
            yield Violation(
                at,
                f"{node.label} projects {input_c[-1]} units up to {num_proj}; num_proj must not "
                "exceed num_units",
                f"use a num_proj of at most {input_c[-1]}",
            )
