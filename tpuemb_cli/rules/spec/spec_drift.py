"""A checked-in config that differs from what its spec compiles to.

## What it does
With `tpuemb check --spec SPEC CONFIG`, compiles the spec and compares the config with the result,
field by field. Each difference is a finding at the config's field, naming the value the spec
gives and where in the spec that comes from.

## Why is this bad?
The config that trains is not the one the spec -- the reviewed, version-controlled description --
says it is. Someone edited the generated file, or changed the spec without recompiling.

## What TensorFlow does
TensorFlow uses whichever config it is given.

## Example
```pbtxt
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 32 }  # the spec says dim: 16
```

## Use instead
```pbtxt
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
```
(regenerate it: `tpuemb compile spec.yaml -o config.pbtxt`)

## Fix safety
No automatic fix; `tpuemb compile` regenerates the config.

## Options
`--spec PATH` on `tpuemb check`.

## References
- docs/specs.md, "Embedding specs"
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import Config
from tpuemb_cli.spec.drift import Expected, drift


def check_drift(config: Config, expected: Expected) -> Iterator[Violation]:
    return drift(config, expected)
