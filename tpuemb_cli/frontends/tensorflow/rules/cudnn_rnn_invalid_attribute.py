"""A cuDNN RNN op with an rnn_mode, input_mode, direction or dropout cuDNN does not accept.

## What it does
Reports `CudnnRNN`, `CudnnRNNV2`, `CudnnRNNV3` and their `Backprop` ops whose `rnn_mode` is not
one of rnn_relu, rnn_tanh, lstm, gru; whose `input_mode` is not linear_input, skip_input or
auto_select; whose `direction` is not unidirectional or bidirectional; or whose `dropout` is not
in [0, 1).

## Why is this bad?
cuDNN cannot build such an RNN; with dropout >= 1 every activation is dropped.

## What TensorFlow does
Construction checks the three enumerations (`Attr 'rnn_mode' of 'CudnnRNNV3' Op passed string
'lstm2' not in: "rnn_relu", "rnn_tanh", "lstm", "gru".`) but not the dropout range; a graph edited
afterwards is not re-checked.

## Example
```pbtxt
attr { key: "rnn_mode" value { s: "lstm2" } }
```

## Use instead
```pbtxt
attr { key: "rnn_mode" value { s: "lstm" } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/cudnn_rnn_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/cudnn_rnn_ops.cc),
  `CudnnRNNV3` (the `rnn_mode`, `input_mode` and `direction` attribute values: graph
  construction with `rnn_mode` `lstm2` fails with `Attr 'rnn_mode' of 'CudnnRNNV3' Op passed
  string 'lstm2' not in: ...`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import (
    BACKPROP,
    DIRECTIONS,
    FORWARD,
    INPUT_MODES,
    RNN_MODES,
)
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(FORWARD | BACKPROP)):
        for name, allowed in (
            ("rnn_mode", RNN_MODES),
            ("input_mode", INPUT_MODES),
            ("direction", DIRECTIONS),
        ):
            value = node.attr(name)
            if value is not None and value.WhichOneof("value") == "s":
                text = value.s.decode("utf-8", errors="replace")
                if text not in allowed:
                    yield Violation(
                        node.path + ("attr", name),
                        f"{node.label} has {name} {text!r}; cuDNN accepts {', '.join(allowed)}",
                        f"use one of: {', '.join(allowed)}",
                    )
        dropout = node.attr("dropout")
        if dropout is not None and dropout.WhichOneof("value") == "f" and not (0 <= dropout.f < 1):
            yield Violation(
                node.path + ("attr", "dropout"),
                f"{node.label} has dropout {dropout.f:g}; it must be in [0, 1)",
                "use a dropout probability below 1 (0 disables it)",
            )
