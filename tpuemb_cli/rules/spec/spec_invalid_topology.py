"""A spec topology with no hosts or cores, bad SPMD replicas, or a wrong accelerator.

## What it does
Reports `num_hosts` or `cores_per_host` below 1, a `num_cores_per_replica` below 1 or not
dividing the slice's cores (`num_hosts` x `cores_per_host`), an `accelerator` that names no chip
or accelerator type of `docs/memory.md` (with the closest name), and an accelerator type whose
slice has another number of TensorFlow cores than `num_hosts` x `cores_per_host` (a `v5p-128` is
64 chips, one TensorFlow core each in megacore mode: 64).

## Why is this bad?
No TPU slice looks like that; the compiled config would describe none. An accelerator tpuemb does
not know cannot be checked for memory: the memory rules would silently not run.

## What TensorFlow does
These numbers come from the TPU strategy, which never produces them; a spec is checked here
instead.

## Example
```yaml
topology: {num_hosts: 2, cores_per_host: 4, num_cores_per_replica: 3}
```

## Use instead
```yaml
topology: {num_hosts: 2, cores_per_host: 4, num_cores_per_replica: 2}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding._create_config_proto` (takes `num_hosts`, `num_tensor_cores` and `spmd_sharding`
  from the TPU strategy and its device assignment)
"""

from collections.abc import Iterator

from tpuemb_cli.model.accelerators import UnknownTpu, parse
from tpuemb_cli.model.chips import CHIPS
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import count
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.spec.facts import SpecFacts

INT32_MAX = (1 << 31) - 1


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    topology = spec.topology
    for field in ("num_hosts", "cores_per_host"):
        if getattr(topology, field) < 1:
            yield Violation(
                ("topology", field),
                f"topology.{field} is {getattr(topology, field)}; it must be at least 1",
                f"set {field} to the TPU slice's",
            )
    cores = topology.num_hosts * topology.cores_per_host
    if cores > INT32_MAX:
        yield Violation(
            ("topology", "num_hosts"),
            f"num_hosts x cores_per_host is {cores:,}: more cores than "
            "TPUEmbeddingConfiguration.num_tensor_cores (an int32) can count",
            "set num_hosts and cores_per_host to the TPU slice's",
        )
    if topology.HasField("num_cores_per_replica"):
        per_replica = topology.num_cores_per_replica
        if per_replica < 1 or (cores >= 1 and cores % per_replica):
            yield Violation(
                ("topology", "num_cores_per_replica"),
                f"num_cores_per_replica {count(per_replica)} does not divide the slice's "
                f"{count(cores)} cores",
                "use a divisor of num_hosts x cores_per_host",
            )
    if not topology.accelerator:
        return
    try:
        accelerator = parse(topology.accelerator)
    except UnknownTpu as error:
        yield Violation(
            ("topology", "accelerator"),
            str(error),
            "name a chip tpuemb knows ("
            + ", ".join(chip.name for chip in CHIPS)
            + ") or one of its accelerator types (docs/memory.md)",
        )
        return
    devices = accelerator.devices
    if devices is not None and cores >= 1 and devices != cores:
        yield Violation(
            ("topology", "accelerator"),
            f"a {accelerator.describe()} is not num_hosts x cores_per_host = "
            f"{count(topology.num_hosts)} x {count(topology.cores_per_host)} = "
            f"{count(cores)} cores",
            "set num_hosts and cores_per_host to the slice's, or name the slice the spec runs on",
        )
