"""jax-tpu-embedding's CSV statistics files (``CSVFileFDOClient``, ``lib/fdo/
csv_file_fdo_client.py`` v0.1.0), read and written.

The client writes a header ``key,values`` and a row ``<key>,"v1 v2 ..."`` for a 1-D array, one such
row per row of a 2-D array; its reader skips the header (whatever it says), skips empty rows, parses
each value list with ``np.fromstring(..., sep=' ', dtype=int)`` and stacks a key's rows (one row: a
1-D array). Read the same way, with the header required to be ``key,values`` (another library's CSV
is read by its front-end: ``FrontEnd.statistics``). Refused: a row of other than two fields, a value
that is not a decimal integer or does not fit in 64 bits (numpy refuses the first and saturates the
second), whitespace alone where a value list should be (numpy reads a 0), rows of one key of
different lengths, a field longer than Python's ``csv`` reads (131,072 characters, as in the
library), a file that is not UTF-8, and more than ``MAX_VALUES`` values in a file (a row of none
counts as one). The client cannot write a 0-d array (``publish`` iterates over it: ``TypeError``),
which is what ``record`` keeps of a single batch's ``id_drop_counters`` (an ``int`` a stack); tpuemb
writes counters as a 1-D array.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

from tpuemb_cli.load.fdo.combine import Array
from tpuemb_cli.load.fdo.npy import INT64_MAX, INT64_MIN, MAX_VALUES
from tpuemb_cli.load.fdo.stats import FdoError, Rows, shown

HEADER = ["key", "values"]
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
# What numpy's fromstring with sep=' ' skips between values.
_WHITESPACE = " \t\n\r\v\f"


def csv_rows(text: str, file: Path) -> Iterator[tuple[int, list[str]]]:
    """The CSV rows of ``text`` with the line each ends on; a ``csv.Error`` is an ``FdoError``
    naming the file and line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            yield reader.line_num, row
    except csv.Error as error:
        raise FdoError(f"{shown(file)}:{reader.line_num}: not valid CSV ({error})") from None


def read_jax_csv(file: Path, text: str) -> dict[str, Array]:
    """The arrays of a jax-tpu-embedding CSV file, by key, in the order of their first row."""
    found: dict[str, list[tuple[int, ...]]] = {}
    count = 0
    rows = csv_rows(text, file)
    header = next(rows, (1, []))[1]
    if header != HEADER:
        raise FdoError(f"{shown(file)}:1: the header is not `key,values`")
    for number, row in rows:
        if not row:
            continue
        line = f"{shown(file)}:{number}"
        if len(row) != 2:
            raise FdoError(f'{line}: {len(row)} fields; a row is `key,"v1 v2 ..."`')
        key, listed = row
        values = _values(listed, line)
        count += max(1, len(values))  # a row of no values counts as one
        if count > MAX_VALUES:
            raise FdoError(f"{line}: more than {MAX_VALUES:,} values in one file")
        previous = found.setdefault(key, [])
        if previous and len(previous[0]) != len(values):
            raise FdoError(
                f"{line}: {key!r:.80} has {len(values)} values here and {len(previous[0])} in "
                "its first row; jax-tpu-embedding's load() cannot stack them"
            )
        previous.append(values)
    return {key: Array(tuple(rows), len(rows[0]), file) for key, rows in found.items()}


def _values(listed: str, line: str) -> tuple[int, ...]:
    words = listed.split()
    if (listed and not words) or any(char not in _WHITESPACE for char in listed if char.isspace()):
        raise FdoError(f"{line}: {listed!r:.80} is not a list of integers separated by spaces")
    values = []
    for word in words:
        if not _INTEGER.match(word) or len(word) > 25:
            raise FdoError(f"{line}: {word!r:.80} is not a decimal integer")
        value = int(word)
        if not INT64_MIN <= value <= INT64_MAX:
            raise FdoError(f"{line}: {word!r:.80} does not fit in 64 bits")
        values.append(value)
    return tuple(values)


def write_jax_csv(stats: dict[str, Rows], target: io.StringIO) -> None:
    """``stats`` (key -> rows) as ``CSVFileFDOClient.publish`` writes them."""
    writer = csv.writer(target)
    writer.writerow(HEADER)
    for key, rows in stats.items():
        for row in rows:
            writer.writerow([key, " ".join(map(str, row))])
