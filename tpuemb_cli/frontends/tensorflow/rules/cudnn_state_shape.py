"""cuDNN RNN states whose batch or layer count disagree with the input, or a missing LSTM cell.

## What it does
From the shapes known in the graph, checks a cuDNN RNN op's (and its backprop's) `input`
([time, batch, features], or [batch, time, features] with `time_major: false`), `input_h` and
`input_c` ([layers x directions, batch, units]): all three rank 3 (input_c for an LSTM), the
same batch, `input_h` and `input_c` the same layers x directions, and that a multiple of the
directions; for a backprop op, also that `output_backprop` has the forward output's shape.

## Why is this bad?
The states hold one vector per layer, direction and batch row; with another batch size or layer
count cuDNN reads past them or fails at run time.

## What TensorFlow does
Construction checks the forward op's ranks only; batch mismatches between input and input_h, layer
mismatches between input_h and input_c, a rank-2 backprop input and a wrong `output_backprop`
shape are accepted: graph construction succeeds for each.

## Example
```pbtxt
# input [5, 3, 4], input_h [1, 7, 6]: batch 3 against 7
```

## Use instead
```pbtxt
# input [5, 3, 4], input_h [1, 3, 6]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/cudnn_rnn_ops.cc),
  `CudnnRNNV3` (the forward shape function checks ranks only) and `CudnnRNNBackpropV3` (its shape
  function checks no ranks)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import (
    BACKPROP,
    FORWARD,
    known,
    shape_of,
    shapes,
    string_attr,
)
from tpuemb_cli.model.findings import Violation

# Where each backprop op takes `output_backprop` (the gradient of the forward op's output).
OUTPUT_BACKPROP = {"CudnnRNNBackprop": 7, "CudnnRNNBackpropV2": 7, "CudnnRNNBackpropV3": 8}


def check_graph(view: Any) -> Iterator[Violation]:
    yield from _output_backprop(view)
    for node in view.nodes(*sorted(FORWARD | BACKPROP)):
        found = shapes(node)
        lstm = string_attr(node, "rnn_mode", "lstm") == "lstm"
        directions = 2 if string_attr(node, "direction", "unidirectional") == "bidirectional" else 1
        time_major = node.attr("time_major") is None or node.attr("time_major").b
        named = (("input", 0, found.input), ("input_h", 1, found.input_h)) + (
            (("input_c", 2, found.input_c),) if lstm else ()
        )
        for name, position, shape in named:
            if shape is not None and len(shape) != 3:
                yield Violation(
                    node.path + ("input", position),
                    f"{node.label}: `{name}` has rank {len(shape)}; it must be rank 3",
                    f"give `{name}` the shape [layers x directions, batch, units]"
                    if name != "input"
                    else "give the input [time, batch, features]",
                )
        if not all(s is not None and len(s) == 3 for _, _, s in named):
            continue
        batch = found.input[1 if time_major else 0]  # type: ignore[index]
        for name, position, shape in named[1:]:
            assert shape is not None
            if known(batch) and known(shape[1]) and shape[1] != batch:
                yield Violation(
                    node.path + ("input", position),
                    f"{node.label}: `{name}` has batch {shape[1]}, the input {batch}",
                    "give the states the input's batch size",
                )
        h, c = found.input_h, found.input_c
        assert h is not None
        if lstm and c is not None and known(h[0]) and known(c[0]) and h[0] != c[0]:
            yield Violation(
                node.path + ("input", 2),
                f"{node.label}: `input_c` has {c[0]} layers x directions, `input_h` {h[0]}",
                "give both states the same number of layers x directions",
            )
        if known(h[0]) and h[0] % directions and node.node.op in FORWARD:
            yield Violation(
                node.path + ("input", 1),
                f"{node.label}: `input_h` has {h[0]} layers x directions, not a multiple of its "
                f"{directions} directions",
                "use layers x 2 for a bidirectional RNN",
            )


def _output_backprop(view: Any) -> Iterator[Violation]:
    """A backprop's `output_backprop` must have the forward output's shape:
    [time, batch, directions x (num_proj or num_units)] (batch first when not time-major)."""
    for node in view.nodes(*sorted(OUTPUT_BACKPROP)):
        position = OUTPUT_BACKPROP[node.node.op]
        if len(node.node.input) <= position:
            continue
        found = shapes(node)
        gradient = shape_of(node.scope.producer(node, position))
        if not found.input or not found.input_h or gradient is None:
            continue
        if len(found.input) != 3 or len(found.input_h) != 3:
            continue
        directions = 2 if string_attr(node, "direction", "unidirectional") == "bidirectional" else 1
        expected = found.input[:2] + [directions * found.input_h[2]]
        if all(known(d) for d in expected + gradient) and gradient != expected:
            yield Violation(
                node.path + ("input", position),
                f"{node.label}: `output_backprop` has shape {gradient}, but the forward output's "
                f"is {expected}",
                f"feed the gradient of the forward output, shape {expected}",
            )
