"""A Keras-RS layer's table_stacking that its backend refuses when the layer is built.

## What it does
Reports a `DistributedEmbedding`'s `table_stacking` that the backend's SparseCore set-up raises
for: a string other than `"auto"` (both backends), the string `"none"` too, which is not
`None`; lists of tables, or any other value (an
object, a number, an empty list), with the TensorFlow backend, which takes only `"auto"` and
`None`; and, with the JAX backend, an explicit stack that names a
table no feature on the SparseCores looks up (one placed on `"default_device"`, say, or `"auto"` on
a chip where the layer finds no SparseCores), a table twice (in one stack, or in two), or an
empty stack (`[[]]`: `stack_tables` takes the `max()` of its tables' sizes and raises).

## Why is this bad?
The stacking is applied when the layer is built on the TPU, after the model built, trained and
saved on CPU (where the layer places its tables on the default device and never stacks them).

## What Keras-RS does
keras-rs 0.4.0's JAX layer (`sparsecore_build`) raises `ValueError("Unsupported table stacking
..., must beNone, 'auto', or sequences of table names to stack.")` for another string (`"none"`
too: `Unsupported table stacking none, ...`), and passes each list to jax-tpu-embedding's
`stack_tables`, which raises `KeyError` for a table it does not have and `ValueError` ("Table t
is repeated in group ...", "Table t is already stacked in group ...") for a repeated one.
TensorFlow's `keras_to_tf_tpu_configuration` raises `ValueError("Unsupported table stacking for
Tensorflow ..., must be 'auto' or None.")` for anything else.

## Example
```json
"table_stacking": [["users", "user"]]
```

or, for no stacking:

```json
"table_stacking": "none"
```

## Use instead
```json
"table_stacking": [["users", "items"]]
```

```json
"table_stacking": null
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: the backend whose set-up judges the stacking.

## References
- [`keras_rs/src/layers/embedding/jax/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/distributed_embedding.py),
  `sparsecore_build`
- [`keras_rs/src/layers/embedding/tensorflow/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/config_conversion.py),
  `keras_to_tf_tpu_configuration`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import layer_label, used_tables
from tpuemb_cli.frontends.keras.spec.conversion import PLACEMENTS, on_sparsecore
from tpuemb_cli.model.findings import Violation


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        stacking = layer.table_stacking
        kind = stacking.WhichOneof("kind")
        path = ("layers", li, "table_stacking")
        where = f"{layer_label(layer)}'s table_stacking"
        # The string "none" too: only None (`none`) stacks nothing.
        if kind == "mode" and stacking.mode != "auto":
            yield Violation(
                path,
                f"{where} is {stacking.mode!r}: the layer raises ValueError when it is built on "
                "the TPU (it takes 'auto', None"
                + (")" if topology.backend == "tensorflow" else " or lists of table names)"),
                "write None (JSON null), not a string, for no stacking"
                if stacking.mode.lower() == "none"
                else "use 'auto'",
            )
        elif kind == "ignored" and topology.backend == "tensorflow":
            yield Violation(
                path,
                f"{where} is {stacking.ignored}, which Keras-RS's TensorFlow conversion refuses "
                "with ValueError (it takes 'auto' or None) when the layer is built on the TPU",
                "use 'auto' (TPUEmbeddingV2 then stacks the tables itself) or None",
            )
        elif kind == "stacks" and topology.backend == "tensorflow":
            yield Violation(
                path,
                f"{where} lists tables to stack, which Keras-RS's TensorFlow conversion refuses "
                "with ValueError (it takes 'auto' or None) when the layer is built on the TPU",
                "use 'auto' (TPUEmbeddingV2 then stacks the tables itself) or None",
            )
        elif kind == "stacks":
            yield from _stacks(layer, li, topology, where)


def _stacks(layer: Any, li: int, topology: Any, where: str) -> Iterator[Violation]:
    known = {layer.tables[layer.features[f].table].name for f in on_sparsecore(layer, topology)}
    # The used tables that stay on the TensorCores, by name: their placement.
    off = {
        layer.tables[t].name: layer.tables[t].placement
        for t in used_tables(layer)
        if layer.tables[t].placement in PLACEMENTS
        and not topology.sparsecore_placement(layer.tables[t].placement)
    }
    stacked: dict[str, int] = {}
    for s, stack in enumerate(layer.table_stacking.stacks.stacks):
        if not stack.tables:
            yield Violation(
                ("layers", li, "table_stacking", "stacks", "stacks", s),
                f"{where} has an empty stack (stack {s}): jax-tpu-embedding's stack_tables raises "
                "ValueError (max() of an empty sequence) when the layer is built on the TPU",
                "leave the empty list out",
            )
        for n, table in enumerate(stack.tables):
            path = ("layers", li, "table_stacking", "stacks", "stacks", s, "tables", n)
            if table not in known:
                placed = off.get(table)
                why = (
                    f"which is placed on {placed!r} (the TensorCores): Keras-RS stacks only the "
                    "SparseCore tables, and "
                    if placed
                    else "which no feature on the SparseCores looks up: "
                )
                yield Violation(
                    path,
                    f"{where} stacks {table!r}, {why}jax-tpu-embedding's stack_tables raises "
                    "KeyError when the layer is built on the TPU",
                    "name tables of the layer's SparseCore features ("
                    + ", ".join(repr(name) for name in sorted(known))
                    + ")",
                )
            elif table in stacked:
                again = "in this stack" if stacked[table] == s else f"in stack {stacked[table]}"
                yield Violation(
                    path,
                    f"{where} stacks {table!r} twice (also {again}): jax-tpu-embedding's "
                    "stack_tables raises ValueError when the layer is built on the TPU",
                    f"name {table!r} in one stack, once",
                )
            else:
                stacked[table] = s
