"""The TPU slice named for the config has another number of cores than its `num_tensor_cores`.

## What it does
When the TPU is named as an accelerator type with a size (`--tpu v5p-128`, `tpu = "v5p-128"` in
`[tool.tpuemb]`), compares the slice's TensorFlow cores -- its chips times the TensorFlow devices
of a chip (a `v5p-128` has 64 chips in megacore mode: 64 cores; a `v3-32` 32 cores;
`docs/memory.md` has every chip) -- with the config's `num_tensor_cores`, and reports a
difference. A chip named without a size (`--tpu v5p`) says nothing about the slice and is not
compared.

A spec's topology is held against its accelerator by
[TE724](#te724-spec-invalid-topology) instead.

## Why is this bad?
TensorFlow's own API writes `num_tensor_cores` from the strategy it runs under
(`num_replicas_in_sync x num_cores_per_replica`): a config with another count was written for
another slice. Each table is split over `num_tensor_cores` shards, so the memory figures of
[TE601](#te601-embedding-state-exceeds-hbm) and `explain --memory`, which are the config's, are
not what the named slice would hold: a config for 32 cores checked against a 64-core slice says
each core holds twice what it would.

## What TensorFlow does
`TPUEmbedding._create_config_proto` sets `num_tensor_cores` to the strategy's
`num_replicas_in_sync * (num_cores_per_replica or 1)`; a hand-written config is taken as written.

## Example
```pbtxt
# with --tpu v5p-128: 64 chips, one TensorFlow core each
num_hosts: 8
num_tensor_cores: 32
```

## Use instead
```pbtxt
num_hosts: 16
num_tensor_cores: 64
```

## Fix safety
No automatic fix: either the config or the named slice is wrong.

## Options
The TPU: `--tpu`, or `tpu` in the settings, named as an accelerator type (`v5p-128`,
`v5litepod-16`, `v6e-256`).

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding._create_config_proto` (`num_tensor_cores`)
- [Cloud TPU v5p](https://cloud.google.com/tpu/docs/v5p) and
  [TPU types and topologies](https://cloud.google.com/tpu/docs/types-topologies): what an
  accelerator type's count counts
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import count
from tpuemb_cli.rules.base import Config, Fit


def check_memory(config: Config, fit: Fit) -> Iterator[Violation]:
    tpu = fit.tpu
    devices = tpu.devices if tpu is not None else None
    if tpu is None or devices is None or devices == config.num_tensor_cores:
        return
    yield Violation(
        ("num_tensor_cores",),
        f"num_tensor_cores is {count(config.num_tensor_cores)}, but a {tpu.describe()} has "
        f"{count(devices)}: the config was written for another slice, and its memory figures "
        "are for its own cores",
        f"set num_tensor_cores to {count(devices)} (and num_hosts to the slice's hosts), or "
        "name the slice the config is for",
    )
