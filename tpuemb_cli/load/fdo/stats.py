"""What the FDO statistics files hold, once read: per stack, the four statistics of
jax-tpu-embedding's ``SparseDenseMatmulInputStats`` (``jax_tpu_embedding/sparsecore/lib/nn/
embedding.py``, v0.1.0), and the error every malformed file becomes.

A file keys each array ``<stack><suffix>``; the suffixes, in the order the library tries them
(``dataclasses.fields`` of ``SparseDenseMatmulInputStats``, the first that ends the key wins), are
``SUFFIXES``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tpuemb_cli.model.words import printable

Rows = tuple[tuple[int, ...], ...]
# jax-tpu-embedding's ("jax-npz", "jax-csv"), or a front-end's statistics reader's `SOURCE`.
Source = str

# StackStats field -> the library's key suffix, in the library's order.
SUFFIXES: dict[str, str] = {
    "max_ids": "_max_ids",
    "max_unique_ids": "_max_unique_ids",
    "required_buffer_size": "_required_buffer_size",
    "id_drop_counters": "_id_drop_counters",
}


class FdoError(ValueError):
    """A statistics file (or directory) that cannot be read, or written: the message names the
    file and what is wrong with it."""


def shown(path: Path | str) -> str:
    """A path for a message, with what a terminal would act on escaped."""
    return printable(str(path))


def _largest(rows: Rows) -> int | None:
    return max((value for row in rows for value in row), default=None)


@dataclass(frozen=True)
class StackStats:
    """One stack's statistics as the library's ``load()`` combines them.

    Each array is given as ``numpy.atleast_2d`` sees it: a 1-D array (one value a partition, or a
    SparseCore) is one row, a 2-D array (one row a recorded batch, in a single file's history)
    its rows, a 0-d value one row of one value. An empty tuple: the files hold no such array.
    ``id_drop_counters`` is flattened (a counter a recorded batch, or the one value combined).
    """

    max_ids: Rows
    max_unique_ids: Rows
    required_buffer_size: Rows = ()
    id_drop_counters: tuple[int, ...] = ()

    @property
    def max_ids_max(self) -> int | None:
        """The largest ``max_ids`` value (what ``update_preprocessing_parameters`` sets as the
        stack's ``max_ids_per_partition``), or None without any."""
        return _largest(self.max_ids)

    @property
    def max_unique_ids_max(self) -> int | None:
        """The largest ``max_unique_ids`` value (the stack's new ``max_unique_ids_per_partition``),
        or None without any."""
        return _largest(self.max_unique_ids)

    @property
    def required_buffer_size_max(self) -> int | None:
        """The largest required buffer size of one SparseCore, or None without any (the library
        then keeps the spec's ``suggested_coo_buffer_size_per_device``)."""
        return _largest(self.required_buffer_size)

    @property
    def dropped(self) -> int | None:
        """The sum of the id drop counters as combined, or None without any."""
        return sum(self.id_drop_counters) if self.id_drop_counters else None


@dataclass(frozen=True)
class FdoReading:
    """What ``read_fdo_stats`` read: the stacks, the files read (newest of each process, in the
    library's order), the files it skipped, and which writer's format they are in."""

    stacks: dict[str, StackStats]
    files: tuple[Path, ...]
    ignored: tuple[Path, ...]
    source: Source
