"""Fused-collection optimizer options TorchRec ignores, overrides or defaults differently.

## What it does
Reports, in a fused collection's `optimizer_kwargs`:
- an option the collection never reads for its optimizer: it reads `lr` (all three), `eps`
  (Adagrad, Adam), `initial_accumulator_value` (Adagrad) and `beta1` / `beta2` (Adam), after
  renaming `learning_rate` to `lr`, `epsilon` to `eps` and `betas` to `beta1` and `beta2` --
  `weight_decay`, `momentum`, `nesterov`, `dampening`, `lr_decay`, `amsgrad`, `maximize`,
  `foreach`... are ignored;
- an option given twice under its two names (`lr` and `learning_rate`, `eps` and `epsilon`,
  `beta1` or `beta2` and `betas`): the second name's value replaces the first's;
- an option left out whose collection default differs from the default of the `torch.optim`
  class named: `lr` for SGD and Adam (the collection's 0.01, torch's 0.001), `eps` for Adam (the
  collection's 1e-10, torch's 1e-08).

## Why is this bad?
The collection takes the class only to choose its SparseCore update; it reads a few options by
name and no others, and says nothing of the rest: the table trains without the weight decay or
momentum the user asked for, or with a learning rate or epsilon ten or a hundred times the one
they expect of `torch.optim.Adam`.

## What TorchRec does
`_SparseCoreFusedEmbeddingBase.__init__` renames `learning_rate`, `epsilon` and `betas`
(`optimizer_kwargs["lr"] = optimizer_kwargs.pop("learning_rate")`: over an `lr` given too),
then reads `lr` (default 0.01) for each stack's learning rate and `initial_accumulator_value`
(default 0.0) for Adagrad's accumulators; the lookups (`_run_table_lookup`, `sc_backward`) read
`eps` (default 1e-10), `beta1` (0.9) and `beta2` (0.999). On CPU, `{"lr": 0.1, "learning_rate":
0.2}` trained at 0.2, `{"eps": 1e-3, "epsilon": 1e-4}` kept `eps` 1e-4, `{"betas": (0.8, 0.9),
"beta1": 0.5}` kept `beta1` 0.8, and `{}` trained at 0.01. These warnings share one rule because
they have one cause and one fix: write in `optimizer_kwargs`, under the collection's names, the
values meant.

## Example
```pbtxt
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "Adam" kwargs { key: "lr" value: 0.001 }
                         kwargs { key: "weight_decay" value: 0.01 } } }
```

## Use instead
```pbtxt
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "Adam" kwargs { key: "lr" value: 0.001 }
                         kwargs { key: "eps" value: 1e-08 } } }
```

## Fix safety
No automatic fix: an option the SparseCore update lacks has no equivalent to write.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`, `_run_table_lookup`, `sc_backward`
- [`torch/optim/adam.py`](https://github.com/pytorch/pytorch/blob/v2.14.1/torch/optim/adam.py),
  `Adam.__init__` (and `sgd.py`, `adagrad.py`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.spec.memory import SLOTS
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.nearest import did_you_mean, nearest
from tpuemb_cli.model.paths import FieldPath

# What the collection reads, by optimizer (after its renaming).
_READ = {
    "SGD": ("lr",),
    "Adagrad": ("lr", "eps", "initial_accumulator_value"),
    "Adam": ("lr", "eps", "beta1", "beta2"),
}
# The collection's renaming: the name given -> the names it becomes.
_RENAMED = {"learning_rate": ("lr",), "epsilon": ("eps",), "betas": ("beta1", "beta2")}
_NAMES = ("lr", "eps", "beta1", "beta2", "initial_accumulator_value", *_RENAMED)
# Defaults that differ: the collection's, torch.optim's (torch 2.14.1's signatures).
_DEFAULTS = {
    "SGD": {"lr": (0.01, 0.001)},
    "Adam": {"lr": (0.01, 0.001), "eps": (1e-10, 1e-08)},
}


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if not spec.HasField("collection") or not spec.collection.HasField("optimizer"):
        return
    optimizer = spec.collection.optimizer
    if optimizer.type not in SLOTS:
        return  # torchrec-unsupported-optimizer: the collection refuses it
    base: FieldPath = ("collection", "optimizer")
    given: dict[str, FieldPath] = {key: (*base, "kwargs", key) for key in optimizer.kwargs}
    for index, key in enumerate(optimizer.other_kwargs):
        given.setdefault(key, (*base, "other_kwargs", index))
    read = _READ[optimizer.type]
    becomes: dict[str, str] = {}  # a name the collection reads -> the option that sets it
    for key in given:
        if key not in _RENAMED:
            becomes.setdefault(key, key)
    for key in given:
        for name in _RENAMED.get(key, ()):
            becomes[name] = key  # the renaming runs last: it replaces what was there
    for key, path in given.items():
        names = _RENAMED.get(key, (key,))
        if not any(name in read for name in names):
            yield _ignored(optimizer, key, path, names)
            continue
        lost = [name for name in names if becomes.get(name) != key]
        if lost:
            winner = becomes[lost[0]]
            yield Violation(
                path,
                f"optimizer_kwargs `{key}` is given together with `{winner}`: the collection "
                f"renames `{winner}` to `{lost[0]}` over it, so {_value(optimizer, key)} is "
                f"ignored and {_value(optimizer, winner)} is used",
                f"give `{lost[0]}` once",
            )
    for name, (ours, torch) in _DEFAULTS.get(optimizer.type, {}).items():
        if name in becomes:
            continue
        yield Violation(
            base,
            f"no `{name}` in optimizer_kwargs: the fused collection uses {ours:g}, not "
            f"torch.optim.{optimizer.type}'s default {torch:g}",
            f"write `{name}` in optimizer_kwargs ({torch:g} for torch.optim.{optimizer.type}'s)",
        )


def _ignored(optimizer: Any, key: str, path: FieldPath, names: tuple[str, ...]) -> Violation:
    kind = optimizer.type
    read = _READ[kind]
    close = None
    if not any(name in _NAMES for name in names):
        known = [*read, *(alias for alias, to in _RENAMED.items() if set(to) <= set(read))]
        close = nearest(key, known)
    return Violation(
        path,
        f"optimizer_kwargs `{key}` is ignored: the fused collection reads only "
        f"{_listed(read)} for {kind}, so its tables train without it" + did_you_mean(close),
        f"use `{close}`" if close else f"remove `{key}`",
    )


def _listed(names: tuple[str, ...]) -> str:
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _value(optimizer: Any, key: str) -> str:
    if key in optimizer.kwargs:
        return f"`{key}` {optimizer.kwargs[key]:g}"
    return f"`{key}`'s value"
