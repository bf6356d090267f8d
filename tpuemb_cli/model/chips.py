"""The TPU chips tpuemb knows: HBM, TensorCores and SparseCores per chip, each with its source.

Every figure is what a public page says, and the page is named beside it; a figure no public page
gave us is ``None`` and is shown as "not known" -- never a guess. ``docs/memory.md`` shows the same
table (a test keeps the two equal).

The memory rules compare an embedding shard with the HBM of one *core as TensorFlow counts cores*:
``TPUEmbeddingConfiguration.num_tensor_cores`` counts TPU devices, and on chips that run in
megacore mode (v4, v5p) one device is the whole chip, both TensorCores and their HBM. So the HBM of
a core is the chip's HBM divided by ``devices_per_chip``.

SparseCores are counted two ways, and each count says which: ``sparse_cores`` per *chip* (the
Cloud TPU pages), ``sparse_cores_per_device`` per *TPU device* -- what a SparseCore layout uses,
since its partitions are devices (TensorFlow's replicas; JAX's ``NUM_SC_PER_DEVICE_MAP``). The two
agree on chips with one device each (v5p in megacore mode, v6e) and differ on TPU7x, whose two
devices share a chip's four SparseCores. Accelerator types (``v5p-128``) are
``model.accelerators``.
"""

from __future__ import annotations

from typing import NamedTuple

GIB = 1 << 30
GB = 10**9

V3_PAGE = "https://cloud.google.com/tpu/docs/v3"
V4_PAGE = "https://cloud.google.com/tpu/docs/v4"
V5E_PAGE = "https://cloud.google.com/tpu/docs/v5e"
V5P_PAGE = "https://cloud.google.com/tpu/docs/v5p"
V6E_PAGE = "https://cloud.google.com/tpu/docs/v6e"
TPU7X_PAGE = "https://cloud.google.com/tpu/docs/tpu7x"
JAX_CHIPS = (
    "https://docs.jax.dev/en/latest/_autosummary/jax.experimental.pallas.tpu.ChipVersion.html"
)
# NUM_SC_PER_DEVICE_MAP (per device; "TPU7x: 2, megacore is disabled"); the same counts in the
# 0.2.0 release, which adds a "TPU v6e" key to v0.1.0's "TPU v6 lite".
JAX_SC_PER_DEVICE = (
    "https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/"
    "jax_tpu_embedding/sparsecore/utils/utils.py"
)


class Figure(NamedTuple):
    """A number and the page it comes from (``value`` None: no public page gave it)."""

    value: int | None
    source: str
    note: str = ""


class Chip(NamedTuple):
    name: str
    hbm_bytes: Figure  # per chip
    tensor_cores: Figure  # per chip
    sparse_cores: Figure  # per chip
    megacore: Figure  # 1 when TensorFlow sees the chip as one device (both TensorCores)
    sparse_cores_per_device: Figure = Figure(None, "not in NUM_SC_PER_DEVICE_MAP")
    note: str = ""
    # Why TensorFlow's TPU embedding does not run on the chip at all ("" when it does).
    tensorflow_refusal: str = ""

    @property
    def devices_per_chip(self) -> int | None:
        """TPU devices (TensorFlow's "cores") per chip: 1 in megacore mode, else a TensorCore."""
        if self.megacore.value:
            return 1
        return self.tensor_cores.value

    @property
    def hbm_per_core(self) -> int | None:
        """Bytes of HBM one TensorFlow core owns, or None when the chip's HBM is not known."""
        devices = self.devices_per_chip
        if self.hbm_bytes.value is None or not devices:
            return None
        return self.hbm_bytes.value // devices


_NOT_STATED = "not stated by the chip's Cloud TPU page"
_SC_UNKNOWN = Figure(None, _NOT_STATED)

CHIPS: tuple[Chip, ...] = (
    Chip(
        "v2",
        Figure(None, "no public Cloud TPU page for v2 found; not known"),
        Figure(2, JAX_CHIPS),
        _SC_UNKNOWN,
        Figure(0, JAX_CHIPS),
    ),
    Chip(
        "v3",
        Figure(32 * GIB, V3_PAGE, "HBM2 capacity: 32 GiB"),
        Figure(2, V3_PAGE, "each v3 TPU chip contains two TensorCores"),
        _SC_UNKNOWN,
        Figure(0, JAX_CHIPS),
    ),
    Chip(
        "v4",
        Figure(32 * GIB, V4_PAGE, "HBM2 capacity: 32 GiB"),
        Figure(2, V4_PAGE, "each TPU v4 chip contains two TensorCores"),
        _SC_UNKNOWN,
        Figure(1, JAX_CHIPS, "megacore support"),
    ),
    Chip(
        "v5e",
        Figure(16 * GB, V5E_PAGE, "HBM2 capacity: 16 GB"),
        Figure(1, V5E_PAGE, "each v5e chip contains one TensorCore"),
        _SC_UNKNOWN,
        Figure(0, JAX_CHIPS),
    ),
    Chip(
        "v5p",
        # The v5p page says 95 GB, the TPU7x page's comparison 95 GiB: the larger is used, so
        # that "does not fit" is never said of a config that fits.
        Figure(95 * GIB, TPU7X_PAGE, "95 GiB (the v5p page says 95 GB)"),
        Figure(2, JAX_CHIPS, "2 physical TensorCores per chip"),
        Figure(4, V5P_PAGE, "Number of SparseCores per chip: 4"),
        Figure(1, JAX_CHIPS, "megacore support"),
        Figure(4, JAX_SC_PER_DEVICE, "'TPU v5p': 4"),
    ),
    Chip(
        "v6e",
        Figure(32 * GIB, TPU7X_PAGE, "32 GiB (the v6e page says 32 GB)"),
        Figure(1, V6E_PAGE, "each v6e chip contains one TensorCore"),
        Figure(2, TPU7X_PAGE, "Number of SparseCores per chip: 2 (v6e column)"),
        Figure(0, JAX_CHIPS),
        Figure(2, JAX_SC_PER_DEVICE, "'TPU v6 lite': 2 (0.2.0 also 'TPU v6e': 2)"),
    ),
    Chip(
        "tpu7x",
        Figure(192 * GIB, TPU7X_PAGE, "HBM capacity per chip: 192 GiB"),
        Figure(2, TPU7X_PAGE, "two TensorCores and four SparseCores per chip"),
        Figure(4, TPU7X_PAGE, "two TensorCores and four SparseCores per chip"),
        Figure(0, JAX_CHIPS),
        Figure(2, JAX_SC_PER_DEVICE, "'TPU7x': 2, megacore is disabled"),
        note="the TPU7x page says TensorFlow is not supported on it",
        tensorflow_refusal='TensorFlow does not run on TPU7x (its Cloud TPU page: "TensorFlow '
        'is not supported"; JAX is)',
    ),
)
BY_NAME: dict[str, Chip] = {chip.name: chip for chip in CHIPS}
