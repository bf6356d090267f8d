"""skip_input on a cuDNN RNN whose input size differs from num_units.

## What it does
Reports a cuDNN RNN op with `input_mode: skip_input` whose input's last dimension differs from
`num_units` (the last dimension of `input_c` for an LSTM, else of `input_h`), where both are known.

## Why is this bad?
skip_input feeds the input straight into the first layer, with no input weights; that only works
when the input has exactly num_units features. Otherwise cuDNN fails at run time.

## What TensorFlow does
Not checked at construction (a `skip_input` graph with input size 4 and num_units 6 builds); the
op's documentation says "'skip_input' is only allowed when input_size == num_units".

## Example
```pbtxt
attr { key: "input_mode" value { s: "skip_input" } }   # input [5, 3, 4], input_h [1, 3, 6]
```

## Use instead
```pbtxt
attr { key: "input_mode" value { s: "linear_input" } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/cudnn_rnn_ops.cc),
  `CudnnRNNV3` (the shape function does not compare input size with num_units)
- [`tensorflow/core/kernels/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/kernels/cudnn_rnn_ops.cc),
  the GPU kernels, where the check runs
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import FORWARD, known, shapes, string_attr
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(FORWARD)):
        if string_attr(node, "input_mode", "linear_input") != "skip_input":
            continue
        found = shapes(node)
        state = found.input_c if string_attr(node, "rnn_mode", "lstm") == "lstm" else found.input_h
        if not found.input or not state:
            continue
        input_size, num_units = found.input[-1], state[-1]
        if known(input_size) and known(num_units) and input_size != num_units:
            yield Violation(
                node.path + ("attr", "input_mode"),
                f"{node.label} uses skip_input, but its input has {input_size} features and the "
                f"RNN {num_units} units; skip_input needs them equal",
                "use linear_input (or auto_select)",
            )
