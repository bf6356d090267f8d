"""A clipvalue or weight clipping range that TensorFlow rejects, crashes on, or silently inverts.

## What it does
Checks each optimizer's `clipvalue` and weight clipping: a scalar clipvalue must be > 0 (0 zeroes
every gradient, a negative one inverts the range); a `(min, max)` pair needs min <= max; any
clipvalue -- even `(None, None)` -- needs gradient accumulation; `clip_weight_min` must not exceed
`clip_weight_max`. A list or a 3-element clipvalue cannot be written in a spec: the loader refuses
it (TensorFlow crashes on both).

## Why is this bad?
A reversed range replaces every gradient (or weight) with one constant; a zero range zeroes them.
Training runs on, learning nothing, without an error.

## What TensorFlow does
Only the accumulation case is checked (`ValueError("When `use_gradient_accumulation` is False,
gradient clipping cannot be used ...")`). A negative scalar is written as lower 2.0, upper -2.0; a
reversed tuple as given; a list raises `TypeError: can't multiply sequence by non-int of type
'float'`; a 3-tuple `ValueError: too many values to unpack (expected 2)`.

## Example
```yaml
optimizer: {sgd: {}, clipvalue: {scalar: -2.0}}
```

## Use instead
```yaml
optimizer: {sgd: {}, clipvalue: {scalar: 2.0}}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `_Optimizer.__init__` (rejects `clipvalue` without gradient accumulation) and
  `_Optimizer._set_optimization_parameters` (turns `clipvalue` into `gradient_clipping_limits`
  without checking the order or sign of the limits)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import optimizers
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    for path, optimizer in optimizers(spec):
        accumulate = not optimizer.HasField("use_gradient_accumulation") or (
            optimizer.use_gradient_accumulation
        )
        if optimizer.HasField("clipvalue"):
            clip = optimizer.clipvalue
            kind = clip.WhichOneof("kind")
            if not accumulate:
                yield Violation(
                    path + ("clipvalue",),
                    "clipvalue is set while `use_gradient_accumulation` is false; TensorFlow "
                    "rejects any clipvalue then, even (None, None)",
                    "remove clipvalue, or enable gradient accumulation",
                )
            elif kind == "scalar" and clip.scalar <= 0:
                effect = (
                    "zeroes every gradient"
                    if clip.scalar == 0
                    else (
                        f"gives the reversed range [{number(-clip.scalar)}, {number(clip.scalar)}]"
                    )
                )
                yield Violation(
                    path + ("clipvalue", "scalar"),
                    f"a scalar clipvalue of {number(clip.scalar)} {effect}; it must be positive",
                    f"use {number(abs(clip.scalar)) if clip.scalar else 'a positive bound'}",
                )
            elif (
                kind == "range"
                and clip.range.HasField("min")
                and clip.range.HasField("max")
                and (clip.range.min > clip.range.max)
            ):
                yield Violation(
                    path + ("clipvalue", "range"),
                    f"the clipvalue range is reversed: min {number(clip.range.min)} > max "
                    f"{number(clip.range.max)}, so every gradient becomes "
                    f"{number(clip.range.max)}",
                    "swap min and max",
                )
        if (
            optimizer.HasField("clip_weight_min")
            and optimizer.HasField("clip_weight_max")
            and optimizer.clip_weight_min > optimizer.clip_weight_max
        ):
            yield Violation(
                path + ("clip_weight_min",),
                f"clip_weight_min {number(optimizer.clip_weight_min)} is above "
                f"clip_weight_max {number(optimizer.clip_weight_max)}: every weight becomes "
                f"{number(optimizer.clip_weight_max)}",
                "swap the two",
            )
