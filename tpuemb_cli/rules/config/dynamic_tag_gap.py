"""The dynamic learning-rate tags in use are not exactly 0, 1, ..., K-1.

## What it does
Collects the dynamic tags of all tables. With K distinct tags, they must be exactly
{0, ..., K-1}. Reports each missing tag and the tables that hold the tags above it, at the first
such table. Since every tag needs at least one table, K can never exceed the number of tables; a
tag at or above the number of tables is called out as such.

## Why is this bad?
At every step the trainer feeds exactly one learning rate per distinct schedule, K values, and
tag `i` reads the `i`-th. A gap means some table reads a rate past the end of that list, or the
rate of another schedule: the model trains with learning rates you did not schedule, silently.

## What TensorFlow does
TensorFlow's Python API assigns tags densely in table order (`learning_rate_index = {r: i for i,
r in enumerate(self._dynamic_learning_rates)}`) and feeds `len(_dynamic_learning_rates)` rates.
No C++ check compares the tags in a config with the number of rates fed (`NumLearningRateTags` is
not checked against the config), so a hand-edited or generated config with a gap is accepted.

## Example
```pbtxt
table_descriptor { name: "a" optimization_parameters { learning_rate { dynamic { tag: 0 } } } }
table_descriptor { name: "b" optimization_parameters { learning_rate { dynamic { tag: 2 } } } }
```

## Use instead
```pbtxt
table_descriptor { name: "a" optimization_parameters { learning_rate { dynamic { tag: 0 } } } }
table_descriptor { name: "b" optimization_parameters { learning_rate { dynamic { tag: 1 } } } }
```

## Fix safety
Safe: `--fix` renumbers the tags densely in their current order (0, 2, 5 become 0, 1, 2), so
tables that shared a tag still share one. Feed the learning rates in that order.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__` (collects the callable learning rates) and
  `TPUEmbedding._create_config_proto` (numbers them densely in table order)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaSendTPUEmbeddingGradients` (`NumLearningRateTags` is not checked against the config)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import Config, table_label

_TAG = ("optimization_parameters", "learning_rate", "dynamic", "tag")


def check_config(config: Config) -> Iterator[Violation]:
    holders: dict[int, list[int]] = {}
    for index, table in enumerate(config.table_descriptor):
        rate = table.optimization_parameters.learning_rate
        if rate.WhichOneof("learning_rate") == "dynamic" and rate.dynamic.tag >= 0:
            holders.setdefault(rate.dynamic.tag, []).append(index)
    if not holders:
        return
    highest = max(holders)
    if len(holders) == highest + 1:  # 0..highest, dense: the common case pays no import
        return
    from tpuemb_cli.rules.lib.tags import missing

    gap = missing(holders, highest)
    if not gap.total:
        return
    above = sorted(
        (index, tag) for tag, tables in holders.items() if tag > gap.first[0] for index in tables
    )
    first_table = above[0][0]
    held = ", ".join(f"{table_label(config, index)} holds tag {tag}" for index, tag in above[:5])
    if len(above) > 5:
        held += f", and {len(above) - 5} more"
    message = (
        f"dynamic learning-rate tags must be 0..{len(holders) - 1} for {len(holders)} distinct "
        f"schedules, but tag{'s' if gap.total > 1 else ''} {gap.shown()} "
        f"{'are' if gap.total > 1 else 'is'} missing: {held}"
    )
    count = len(config.table_descriptor)
    if highest >= count:
        message += (
            f"; tag {highest} needs at least {highest + 1} tables but there are only {count}, "
            "so these tags can never be dense"
        )
    from tpuemb_cli.model.edits import Fix, SetValue  # with a finding only

    renumbered = {tag: new for new, tag in enumerate(sorted(holders))}
    edits = tuple(
        SetValue(("table_descriptor", index, *_TAG), renumbered[tag])
        for tag, tables in sorted(holders.items())
        if renumbered[tag] != tag
        for index in tables
    )
    yield Violation(
        ("table_descriptor", first_table, *_TAG),
        message,
        "renumber the tags densely from 0, keeping tables that share a schedule on one tag, "
        "and feed the learning rates in that order",
        Fix(edits, safe=True, title="renumber the dynamic tags densely"),
    )
