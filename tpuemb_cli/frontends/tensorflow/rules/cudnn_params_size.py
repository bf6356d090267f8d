"""A cuDNN RNN params buffer whose size is not what cuDNN's canonical layout needs.

## What it does
Where the graph gives every size -- the input's features, the units, layers and directions from
the states, `num_proj`, and the params' length -- compares the params length with the size of
cuDNN's canonical layout (what `CudnnRNNParamsSize` returns): per layer and direction, `gates`
(1 for rnn_relu and rnn_tanh, 4 for lstm, 3 for gru) weight matrices of num_units x layer input
(none on the first layer with skip_input), `gates` recurrent matrices of num_units x num_units
(x num_proj with a projection), two bias vectors of num_units per gate, and the num_proj x
num_units projection of an LSTM that has one.

## Why is this bad?
The params buffer is opaque to TensorFlow and read by cuDNN in that layout: a buffer of another
size means weights were initialized or restored for another RNN. cuDNN fails, or reads past the
buffer.

## What TensorFlow does
The forward shape function only checks that params is rank 1; the size is checked by the GPU
kernel, at run time.

## Example
```pbtxt
# lstm, input [5, 3, 4], input_h [1, 3, 6], params [100]: cuDNN needs 4*6*4 + 4*6*6 + 2*4*6 = 288
```

## Use instead
A params buffer of 288 values, from CudnnRNNParamsSize or CudnnRNNCanonicalToParams.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/cudnn_rnn_ops.cc),
  `CudnnRNNV3` (the shape function checks that `params` is rank 1, not its size)
- [`tensorflow/core/kernels/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/kernels/cudnn_rnn_ops.cc),
  the GPU kernels, which check the size at run time
- TensorFlow's cudnn_rnn layers: canonical weight shapes (num_units, input_size) per gate on the
  first layer, (num_units, num_units) per gate on the hidden state, two biases per gate
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import (
    FORWARD,
    GATES,
    known,
    params_size,
    shapes,
    string_attr,
)
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import plural


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(FORWARD)):
        found = shapes(node)
        mode = string_attr(node, "rnn_mode", "lstm")
        if mode not in GATES or not found.params or len(found.params) != 1:
            continue
        if not (
            found.input and found.input_h and len(found.input) == 3 and len(found.input_h) == 3
        ):
            continue
        direction = string_attr(node, "direction", "unidirectional")
        directions = 2 if direction == "bidirectional" else 1
        proj_attr = node.attr("num_proj")
        num_proj = (
            int(proj_attr.i)
            if proj_attr is not None and proj_attr.WhichOneof("value") == "i"
            else 0
        )
        state = found.input_c if mode == "lstm" and num_proj else found.input_h
        if state is None or len(state) != 3:
            continue
        sizes = (found.params[0], found.input[-1], state[-1], found.input_h[0])
        if not all(known(size) for size in sizes) or found.input_h[0] % directions:
            continue
        length, input_size, num_units, layers_x_dirs = sizes
        expected = params_size(
            mode,
            string_attr(node, "input_mode", "linear_input"),
            direction,
            layers_x_dirs // directions,
            num_units,
            input_size,
            num_proj,
        )
        if length != expected:
            yield Violation(
                node.path + ("input", 3),
                f"{node.label}: params has {length} values, but a {direction} {mode} of "
                f"{plural(layers_x_dirs // directions, 'layer')}, {num_units} units and "
                f"{input_size} input features needs {expected} in cuDNN's canonical layout",
                f"size params with CudnnRNNParamsSize ({expected})",
            )
