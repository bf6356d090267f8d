"""What the memory rules share: one dispatch over the memory models (``budget``), and how each
says how much the tables take and what would help."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from tpuemb_cli.model.advice import Demand, smallest_slice
from tpuemb_cli.model.memory import Memory, size
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import count, plural
from tpuemb_cli.rules.base import Config, Fit

if TYPE_CHECKING:  # the SparseCore models are imported only where such a spec is linted
    from tpuemb_cli.frontends.jax.spec.memory import JaxMemory
    from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory


def taken(fit: Fit, shown: str) -> str:
    """``the tables' parameters and optimizer state take 120.0 GiB on the fullest of 4 cores``
    (``shown``: the size as the message writes it), with the refused tables not counted."""
    memory = fit.memory
    assert isinstance(memory, Memory)  # a SparseCore spec's words are sparsecore_taken's
    refused = (
        f" ({plural(len(memory.refused), 'table')} TensorFlow would refuse not counted)"
        if memory.refused
        else ""
    )
    return (
        f"the embedding tables' parameters and optimizer state take {shown} on "
        f"the fullest of {plural(memory.shards, 'core')}{refused}"
    )


def remedy(config: Config, fit: Fit, budget: int) -> str:
    """What would bring the fullest core to at most ``budget`` bytes: a real slice of the chip."""
    memory = fit.memory
    assert isinstance(memory, Memory)  # a SparseCore spec's advice is sparsecore_remedy's
    advice = smallest_slice(Demand(memory, config), fit.chip, budget)
    found = advice.fits
    if found is not None and (found.devices or 0) > memory.shards:
        more = (
            f"run on a {found.describe()} or larger (`num_tensor_cores` "
            f"{count(found.devices or 0)})"
        )
    elif advice.largest is None:
        more = f"tpuemb knows no {fit.chip.name} slice sizes to suggest"
    else:
        more = (
            f"more cores cannot help: not even a {advice.largest.describe()}, the largest "
            f"{fit.chip.name} slice, holds it"
        )
    return (
        f"{more}, or use cheaper optimizer state (`tpuemb explain --memory` shows each table's "
        "share and what disabling gradient accumulation or SGD would save)"
    )


# Where a SparseCore spec's memory finding is placed: the hosts, which bring more chips (each chip
# holds 1/replicas of every stack).
SPARSECORE_PATH: FieldPath = ("topology", "num_hosts")


def sparsecore_taken(memory: SparseCoreMemory, shown: str) -> str:
    """``the stacked tables' parameters and slot variables take 1.5 GiB on each chip
    (TPUEmbeddingV2 on SparseCores: 128 chips of 4 SparseCores)``."""
    return (
        f"the stacked tables' parameters and slot variables take {shown} on each chip "
        f"(TPUEmbeddingV2 on SparseCores: {plural(memory.num_partitions, 'chip')} of "
        f"{memory.sparse_cores_per_chip} SparseCores)"
    )


def sparsecore_remedy(memory: SparseCoreMemory, budget: int) -> str:
    """What would bring each chip to at most ``budget`` bytes."""
    more = "run on more chips (`topology.num_hosts`: each chip holds 1/replicas of every stack)"
    sgd = memory.parameters_per_chip
    if sgd == memory.per_chip:  # no stack has a slot variable to drop
        return f"{more}, or use smaller or fewer tables"
    return (
        f"{more}, or use cheaper optimizer state (SGD on every table, without slot variables, "
        f"takes {size(sgd)} a chip: {'enough' if sgd <= budget else 'not enough'}; `tpuemb "
        "explain --memory` shows each stack's share)"
    )


# Where a JAX EmbeddingSpecProto's memory finding is placed: the SparseCores its first stack is
# split over (more devices split the variables further).
JAX_PATH: FieldPath = ("stacked_table_specs", 0, "num_sparsecores")


def jax_taken(memory: JaxMemory, shown: str) -> str:
    """``the stacked tables' variables and input buffers take 1.5 GiB on each device
    (jax-tpu-embedding: 8 devices of 4 SparseCores)``."""
    assert memory.per_device is not None  # the engine builds a Fit only with it known
    slots = "slot variables" if memory.optimizers_known else "parameters (no optimizer recorded)"
    refused = len(memory.too_large())
    unsaid = (
        f"; the COO buffers the library refuses ({plural(refused, 'stack')}) not counted"
        if refused
        else ""
    )
    return (
        f"the stacked tables' {slots} and input buffers take {shown} on each device "
        f"(jax-tpu-embedding: {plural(memory.devices or 0, 'device')} of {memory.per_device} "
        f"SparseCores{unsaid})"
    )


def jax_remedy(memory: JaxMemory, budget: int) -> str:
    """What would bring each device to at most ``budget`` bytes."""
    advice = (
        "run on more devices, or size the input buffers from the library's preprocessing stats "
        "(`suggested_coo_buffer_size_per_device`) or a lower max_ids_per_partition"
    )
    if memory.measured:
        # The buffers the statistics measured: what the library allocates once its
        # update_preprocessing_parameters set the limits and buffer sizes from them.
        measured = memory.measured_per_device_bytes
        advice += (
            f" (with the buffers the statistics measured, a device takes {size(measured)}: "
            f"{'enough' if measured <= budget else 'not enough'}; `tpuemb check --stats ... "
            "--unsafe-fixes --fix` lowers the limits)"
        )
    sgd = memory.parameters_per_device
    if sgd == memory.per_device_bytes:
        return f"{advice}; `tpuemb explain --memory` shows each stack's share"
    return (
        f"{advice}, or use cheaper optimizer state (SGD on every table takes {size(sgd)} a "
        f"device: {'enough' if sgd <= budget else 'not enough'}; `tpuemb explain --memory` "
        "shows each stack's share)"
    )


class Budget(Record):
    """A memory model's fill of the HBM it must fit in, in the words of its engine: what TE601
    (more than the HBM) and TE602 (near it) judge, whichever model the engine worked out."""

    path: FieldPath  # where the finding is placed
    used: int  # bytes on the fullest core, chip or device
    capacity: int  # the HBM of one
    unit: str  # "core", "chip" or "device"
    others: str  # what else needs that HBM (the near-HBM warning names it)
    taken: Callable[[str], str]  # what takes the bytes, given the size as the message shows it
    remedy: Callable[[int], str]  # what would bring the fill to at most a budget of bytes


_BESIDES_TABLES = "activations, buffers and XLA's working set"


def budget(config: Config, fit: Fit) -> Budget:
    """``fit``'s memory model against its chip: TensorCore configs per core, SparseCore specs per
    chip (TPUEmbeddingV2's variables), JAX EmbeddingSpecProtos per device (jax-tpu-embedding's)."""
    memory = fit.memory
    own = getattr(memory, "budget", None)
    if own is not None:  # a front-end's model, which says its own fill (rules/base.Budgeted)
        said: Budget = own(fit.chip)
        return said
    if isinstance(memory, Memory):
        hbm = fit.chip.hbm_per_core
        assert hbm is not None  # the engine runs memory rules only on chips whose HBM is known
        return Budget(
            ("num_tensor_cores",),
            memory.per_core,
            hbm,
            "core",
            _BESIDES_TABLES,
            lambda shown: taken(fit, shown),
            lambda most: remedy(config, fit, most),
        )
    # Imported only here: a config (the common case) never loads the spec models.
    from tpuemb_cli.frontends.jax.spec.memory import JaxMemory

    if isinstance(memory, JaxMemory):
        hbm = fit.chip.hbm_per_core  # a JAX device is a TensorFlow core's share of the chip
        assert hbm is not None
        jax = memory
        return Budget(
            JAX_PATH,
            jax.per_device_bytes,
            hbm,
            "device",
            "activations and XLA's working set",  # the input buffers are counted in
            lambda shown: jax_taken(jax, shown),
            lambda most: jax_remedy(jax, most),
        )
    chip_hbm = fit.chip.hbm_bytes.value
    assert chip_hbm is not None
    sparsecore = cast("SparseCoreMemory", memory)
    return Budget(
        SPARSECORE_PATH,
        sparsecore.per_chip,
        chip_hbm,
        "chip",
        _BESIDES_TABLES,
        lambda shown: sparsecore_taken(sparsecore, shown),
        lambda most: sparsecore_remedy(sparsecore, most),
    )
