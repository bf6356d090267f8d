"""An accumulator whose reduction_type is neither MEAN nor SUM.

## What it does
Reports `ResourceConditionalAccumulator` (and `ConditionalAccumulator`) with a `reduction_type`
other than `MEAN` or `SUM`.

## Why is this bad?
Take-gradient returns the MEAN or the SUM of the gradients applied; anything else has no meaning.

## What TensorFlow does
Construction refuses it: `Attr 'reduction_type' of 'ResourceConditionalAccumulator' Op passed
string 'MAX' not in: "MEAN", "SUM".` A graph edited afterwards is not re-checked.

## Example
```pbtxt
attr { key: "reduction_type" value { s: "MAX" } }
```

## Use instead
```pbtxt
attr { key: "reduction_type" value { s: "MEAN" } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/data_flow_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/data_flow_ops.cc),
  `ResourceConditionalAccumulator` (the `reduction_type` attribute allows MEAN and SUM: graph
  construction with `MAX` fails with `Attr 'reduction_type' of 'ResourceConditionalAccumulator'
  Op passed string 'MAX' not in: "MEAN", "SUM".`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.accumulators import ACCUMULATORS
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(ACCUMULATORS)):
        value = node.attr("reduction_type")
        if value is None or value.WhichOneof("value") != "s":
            continue
        reduction = value.s.decode("utf-8", errors="replace")
        if reduction not in ("MEAN", "SUM"):
            yield Violation(
                node.path + ("attr", "reduction_type"),
                f"{node.label} has reduction_type {reduction!r}; it must be MEAN or SUM",
                "use MEAN (the default) or SUM",
            )
