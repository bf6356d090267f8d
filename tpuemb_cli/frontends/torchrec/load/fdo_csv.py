"""torchrec's CSV statistics files (``CSVFileFDOClient`` of ``torchrec/experimental/torch_tpu/
datasets/fdo/``, torchrec 1.9.2), read: the front-end's statistics reader (``FrontEnd.statistics``,
which ``load/fdo/read`` asks of a CSV file that is no jax-tpu-embedding's).

The client writes a header ``table_name,max_ids,max_unique_ids,dropped_count`` and one row a table
(sorted by name) of three integers: the largest ``observed_max_ids`` and
``observed_max_unique_ids`` the process recorded, and the sum of its ``dropped_count``. Its
``load()`` reads the newest file of each process (``load/fdo/files.py``) with ``csv.DictReader``
and combines row by row, from 0: the largest ``max_ids`` and ``max_unique_ids``, the *sum* of
``dropped_count``. Read the same way (columns by name, in any order, ``int()`` of each field).
Refused: a header without the four columns, a row without a value for one of them, a value
``int()`` does not read, a file that is not UTF-8, a field longer than Python's ``csv`` reads,
more than ``MAX_VALUES`` lines in a file.

A table becomes a stack of one value each: ``max_ids`` ``((m,),)``, ``max_unique_ids``
``((u,),)``, ``id_drop_counters`` ``(dropped,)``; torchrec writes no buffer sizes.
"""

from __future__ import annotations

from pathlib import Path

from tpuemb_cli.load.fdo.jax_csv import csv_rows
from tpuemb_cli.load.fdo.npy import MAX_VALUES
from tpuemb_cli.load.fdo.stats import FdoError, StackStats, shown

COLUMNS = ("table_name", "max_ids", "max_unique_ids", "dropped_count")
# The reading's source (`--show-settings`, and the statistics rules: one value a table, not a
# partition), and the header as an error names it.
SOURCE = "torchrec-csv"
HEADER = "`table_name,max_ids,max_unique_ids,dropped_count` (torchrec)"


def is_header(header: list[str]) -> bool:
    return set(COLUMNS) <= set(header)


class Totals:
    """The tables' statistics combined over the files read so far, as torchrec's load() does."""

    def __init__(self) -> None:
        self.max_ids: dict[str, int] = {}
        self.max_unique_ids: dict[str, int] = {}
        self.dropped: dict[str, int] = {}

    def add(self, file: Path, text: str) -> None:
        rows = csv_rows(text, file)
        header = next(rows, (1, []))[1]
        if not is_header(header):
            raise FdoError(f"{shown(file)}:1: the header lacks one of {', '.join(COLUMNS)}")
        # csv.DictReader: a name given twice is the later column.
        column = {name: index for index, name in enumerate(header)}
        for number, row in rows:
            if not row:
                continue
            if number > MAX_VALUES:
                raise FdoError(f"{shown(file)}:{number}: more than {MAX_VALUES:,} lines in a file")
            fields = [_field(row, column[name], name, file, number) for name in COLUMNS]
            table = fields[0]
            max_ids, unique, dropped = (_integer(text, file, number) for text in fields[1:])
            if min(max_ids, unique, dropped) < 0:
                raise FdoError(
                    f"{shown(file)}:{number}: a negative count for `{shown(table)}`: the "
                    "statistics count ids"
                )
            self.max_ids[table] = max(self.max_ids.get(table, 0), max_ids)
            self.max_unique_ids[table] = max(self.max_unique_ids.get(table, 0), unique)
            self.dropped[table] = self.dropped.get(table, 0) + dropped

    def stacks(self) -> dict[str, StackStats]:
        return {
            table: StackStats(
                max_ids=((value,),),
                max_unique_ids=((self.max_unique_ids[table],),),
                id_drop_counters=(self.dropped[table],),
            )
            for table, value in self.max_ids.items()
        }


def _field(row: list[str], index: int, name: str, file: Path, number: int) -> str:
    if index >= len(row):
        raise FdoError(f"{shown(file)}:{number}: the row has no {name} (torchrec's load() fails)")
    return row[index]


def _integer(text: str, file: Path, number: int) -> int:
    try:
        if len(text) > 100:
            raise ValueError
        return int(text)
    except ValueError:
        raise FdoError(f"{shown(file)}:{number}: {text!r:.80} is not an integer") from None
