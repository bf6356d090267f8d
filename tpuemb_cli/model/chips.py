"""The TPU chips tpuemb knows: HBM, TensorCores and SparseCores per chip, each with its source.

Every figure is what a public page says, and the page is named beside it; a figure no public page
gave us is ``None`` and is shown as "not known" -- never a guess. ``docs/memory.md`` shows the same
table (a test keeps the two equal).

The memory rules compare an embedding shard with the HBM of one *core as TensorFlow counts cores*:
``TPUEmbeddingConfiguration.num_tensor_cores`` counts TPU devices, and on chips that run in
megacore mode (v4, v5p) one device is the whole chip, both TensorCores and their HBM. So the HBM of
a core is the chip's HBM divided by ``devices_per_chip``.
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
    note: str = ""

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
    ),
    Chip(
        "v6e",
        Figure(32 * GIB, TPU7X_PAGE, "32 GiB (the v6e page says 32 GB)"),
        Figure(1, V6E_PAGE, "each v6e chip contains one TensorCore"),
        _SC_UNKNOWN,
        Figure(0, JAX_CHIPS),
    ),
    Chip(
        "tpu7x",
        Figure(192 * GIB, TPU7X_PAGE, "HBM capacity per chip: 192 GiB"),
        Figure(2, TPU7X_PAGE, "two TensorCores and four SparseCores per chip"),
        Figure(4, TPU7X_PAGE, "two TensorCores and four SparseCores per chip"),
        Figure(0, JAX_CHIPS),
        note="the TPU7x page says TensorFlow is not supported on it",
    ),
)
BY_NAME: dict[str, Chip] = {chip.name: chip for chip in CHIPS}
# Other names people write for the same chip, in ``_key`` spelling.
ALIASES = {"ironwood": "tpu7x", "trillium": "v6e", "7x": "tpu7x"}


def _key(name: str) -> str:
    """``name`` without case, spaces, dashes or underscores, and without a ``tpu`` prefix before
    a version: ``TPU v5p``, ``tpu-v5p`` and ``V5P`` are all ``v5p``."""
    key = "".join(name.lower().split()).replace("-", "").replace("_", "")
    if key.startswith("tpu") and key[3:] in BY_NAME:
        key = key[3:]
    return ALIASES.get(key, key)


def find(name: str) -> Chip | None:
    """The chip called ``name`` (``TPU v5p``, ``tpu-v5p``, ``V5P``, ``trillium``), or None."""
    return BY_NAME.get(_key(name))


def unknown(name: str) -> str:
    """What to say of a chip name tpuemb does not know: the closest known one, or the list."""
    from tpuemb_cli.model.nearest import did_you_mean, nearest

    close = nearest(_key(name), [chip.name for chip in CHIPS])
    listed = ", ".join(chip.name for chip in CHIPS)
    return f"unknown TPU {name!r}" + (did_you_mean(close) if close else f" (known: {listed})")
