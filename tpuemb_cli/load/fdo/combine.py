"""How jax-tpu-embedding's ``load()`` combines the files of several processes, key by key
(``_read_from_file`` in ``lib/fdo/file_fdo_client.py`` and ``csv_file_fdo_client.py``, v0.1.0):
the first file's array as it is, then for each further file ``np.max(np.vstack((combined,
array)), axis=0)`` -- the rows of both stacked (a 0-d or 1-D array is one row), their widths equal,
and the column-wise largest value kept, one row. Where numpy raises (widths that differ, no rows
at all) this raises ``FdoError`` naming the key and the file.

Then the keys are split into stack and statistic by their suffix (the library raises
``ValueError`` for a key that ends in none of them; so does this, as ``FdoError``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tpuemb_cli.load.fdo.stats import SUFFIXES, FdoError, Rows, StackStats, shown


@dataclass(frozen=True)
class Array:
    """An array as ``numpy.atleast_2d`` sees it: its rows, and their width (which a 2-D array of
    no rows has too)."""

    rows: Rows
    width: int
    file: Path  # the first file that holds the key, for messages


def merge(combined: dict[str, Array], key: str, array: Array, file: Path) -> None:
    """Combines ``array``, ``key``'s array in ``file``, into ``combined`` as the library does."""
    before = combined.get(key)
    if before is None:
        combined[key] = array
        return
    if before.width != array.width:
        raise FdoError(
            f"{shown(file)}: {key!r:.80} has {array.width} values a row, the files read before "
            f"it {before.width}; jax-tpu-embedding's load() cannot stack them (numpy.vstack)"
        )
    rows = before.rows + array.rows
    if not rows:
        raise FdoError(
            f"{shown(file)}: {key!r:.80} has no rows here nor in the files read before it; "
            "jax-tpu-embedding's load() cannot take their maximum"
        )
    combined[key] = Array(
        (tuple(map(max, zip(*rows, strict=True))) if array.width else (),), array.width, before.file
    )


def by_stack(combined: dict[str, Array]) -> dict[str, StackStats]:
    """The combined arrays by stack, each key split by the first suffix that ends it."""
    fields: dict[str, dict[str, Rows]] = {}
    for key, array in combined.items():
        for field, suffix in SUFFIXES.items():
            if key.endswith(suffix):
                fields.setdefault(key[: -len(suffix)], {})[field] = array.rows
                break
        else:
            raise FdoError(
                f"{shown(array.file)}: unexpected key {key!r:.80}, expected to end with one of "
                f"{', '.join(SUFFIXES.values())} (jax-tpu-embedding's load() refuses it too)"
            )
    return {
        stack: StackStats(
            max_ids=found.get("max_ids", ()),
            max_unique_ids=found.get("max_unique_ids", ()),
            required_buffer_size=found.get("required_buffer_size", ()),
            id_drop_counters=tuple(
                value for row in found.get("id_drop_counters", ()) for value in row
            ),
        )
        for stack, found in fields.items()
    }
