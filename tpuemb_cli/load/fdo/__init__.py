"""The FDO statistics files that jax-tpu-embedding's FDO clients write (issue 40), and those of the
libraries whose front-ends read theirs (``FrontEnd.statistics``):
each stack's largest ids and unique ids a partition, required buffer sizes and dropped ids, as the
library's ``load()`` combines the newest file of each process, read without numpy; and written
back, for the library's client to load.

Read: ``read_fdo_stats`` (``read.py``) of a directory or one file -- jax-tpu-embedding's NPZ
(``npz.py``, ``npy.py``) and CSV (``jax_csv.py``) files, another library's CSV (its front-end's);
which files and in which order (``files.py``); how they are combined (``combine.py``). Written:
``write_fdo_stats`` (``write.py``). Every malformed, oversized or unreadable input is an
``FdoError`` naming the file and what is wrong; what each module refuses, its docstring says.
"""

from __future__ import annotations

from tpuemb_cli.load.fdo.read import read_fdo_stats
from tpuemb_cli.load.fdo.stats import FdoError, FdoReading, StackStats
from tpuemb_cli.load.fdo.write import write_fdo_stats

__all__ = ["FdoError", "FdoReading", "StackStats", "read_fdo_stats", "write_fdo_stats"]
