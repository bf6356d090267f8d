"""One ``.npy`` array of integers, read and written without numpy (numpy's format:
``numpy/lib/format.py``).

Read: the magic ``\\x93NUMPY``, version 1.0 (a 2-byte header length), 2.0 or 3.0 (4 bytes; 3.0's
header is UTF-8), and the header, a Python dict literal of exactly ``descr``, ``fortran_order``
and ``shape``, at most ``MAX_HEADER_BYTES`` long (numpy's own ``max_header_size``). The data must
be exactly ``shape``'s product of values. Accepted dtypes: the integers numpy writes
(``|i1``, ``|u1``, ``<i2`` ... ``<u8``, either byte order); refused: floats, booleans, strings,
structured and object arrays (which numpy stores as a pickle, and which jax-tpu-embedding's
``np.load`` refuses too), arrays of more than 2 dimensions (the clients write 0-, 1- and 2-D ones),
and arrays of more than ``MAX_VALUES`` values or with a dimension longer than that.

Written: version 1.0, ``<i8``, C order, the header padded to 64 bytes as numpy pads it.
"""

from __future__ import annotations

import ast
import re
import struct

from tpuemb_cli.load.fdo.stats import FdoError, Rows

MAGIC = b"\x93NUMPY"
MAX_HEADER_BYTES = 10_000
MAX_RANK = 2
# 32 Mi values (256 MiB of <i8): far more than a stack has partitions times recorded batches.
MAX_VALUES = 1 << 25
_DESCR = re.compile(r"^(?P<order>[<>|])(?P<kind>[iu])(?P<size>[1248])$")
_STRUCT = {("i", 1): "b", ("u", 1): "B", ("i", 2): "h", ("u", 2): "H"}
_STRUCT |= {("i", 4): "i", ("u", 4): "I", ("i", 8): "q", ("u", 8): "Q"}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class NpyArray:
    """An array read from a ``.npy``: its shape and its values as rows (``numpy.atleast_2d``)."""

    def __init__(self, shape: tuple[int, ...], rows: Rows, width: int) -> None:
        self.shape = shape
        self.rows = rows
        self.width = width


def header_end(head: bytes, where: str) -> tuple[int, int]:
    """Where the header of a ``.npy`` starting with ``head`` (at least 12 bytes) starts and
    ends."""
    if head[:6] != MAGIC:
        raise FdoError(f"{where}: not a .npy array (no \\x93NUMPY magic)")
    if len(head) < 10:
        raise FdoError(f"{where}: a truncated .npy header")
    version = (head[6], head[7])
    if version == (1, 0):
        start, length = 10, struct.unpack("<H", head[8:10])[0]
    elif version in ((2, 0), (3, 0)):
        if len(head) < 12:
            raise FdoError(f"{where}: a truncated .npy header")
        start, length = 12, struct.unpack("<I", head[8:12])[0]
    else:
        raise FdoError(f"{where}: .npy format version {version[0]}.{version[1]}; 1.0-3.0 are read")
    if length > MAX_HEADER_BYTES:
        raise FdoError(
            f"{where}: a .npy header of {length:,} bytes, more than numpy's {MAX_HEADER_BYTES:,}"
        )
    return start, start + length


def parse_header(header: bytes, version: int, where: str) -> tuple[str, bool, tuple[int, ...]]:
    """``descr``, ``fortran_order`` and ``shape`` of a ``.npy`` header."""
    try:
        text = header.decode("utf-8" if version == 3 else "latin-1")
        fields = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError, UnicodeDecodeError):
        raise FdoError(f"{where}: the .npy header is not a Python dict literal") from None
    if not isinstance(fields, dict) or set(fields) != {"descr", "fortran_order", "shape"}:
        raise FdoError(
            f"{where}: the .npy header must hold exactly 'descr', 'fortran_order' and 'shape'"
        )
    descr, fortran, shape = fields["descr"], fields["fortran_order"], fields["shape"]
    if not isinstance(descr, str):
        raise FdoError(f"{where}: a structured .npy array ({descr!r:.80}); integers are read")
    if not isinstance(fortran, bool):
        raise FdoError(f"{where}: the .npy header's fortran_order is not True or False")
    if not isinstance(shape, tuple) or not all(type(size) is int and size >= 0 for size in shape):
        raise FdoError(f"{where}: the .npy header's shape is not a tuple of sizes: {shape!r:.80}")
    return descr, fortran, shape


def read_npy(data: bytes, where: str) -> NpyArray:
    """The integer array a whole ``.npy`` holds."""
    start, end = header_end(data[:12], where)
    if len(data) < end:
        raise FdoError(f"{where}: a truncated .npy header")
    descr, fortran, shape = parse_header(data[start:end], data[6], where)
    kind = _DESCR.match(descr)
    if kind is None or (kind["order"] == "|" and kind["size"] != "1"):
        what = "an object array (a pickle)" if descr.endswith("O") else f"dtype {descr!r:.40}"
        raise FdoError(
            f"{where}: {what}; statistics are integers ('<i8' as the clients write them)"
        )
    if len(shape) > MAX_RANK:
        raise FdoError(f"{where}: a {len(shape)}-D array; the FDO clients write 0-, 1- and 2-D")
    count = 1
    for size in shape:
        count *= size
    if count > MAX_VALUES or any(size > MAX_VALUES for size in shape):
        raise FdoError(
            f"{where}: an array of shape {shape!s:.80}, more than the {MAX_VALUES:,} values "
            "tpuemb reads of one array"
        )
    size = int(kind["size"])
    body = data[end:]
    if len(body) != count * size:
        raise FdoError(
            f"{where}: shape {shape} of {descr} needs {count * size:,} bytes of data, "
            f"the array has {len(body):,}"
        )
    order = ">" if kind["order"] == ">" else "<"
    values = struct.unpack(f"{order}{count}{_STRUCT[kind['kind'], size]}", body)
    return _as_rows(shape, values, fortran)


def _as_rows(shape: tuple[int, ...], values: tuple[int, ...], fortran: bool) -> NpyArray:
    if len(shape) < 2:
        width = shape[0] if shape else 1
        return NpyArray(shape, (tuple(values),), width)
    height, width = shape
    if fortran:
        rows = tuple(tuple(values[c * height + r] for c in range(width)) for r in range(height))
    else:
        rows = tuple(tuple(values[r * width : (r + 1) * width]) for r in range(height))
    return NpyArray(shape, rows, width)


def write_npy(rows: Rows, where: str) -> bytes:
    """A ``.npy`` (1.0, ``<i8``) of ``rows``: one row as a 1-D array, several as a 2-D one."""
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise FdoError(f"{where}: rows of different lengths cannot be one array")
    values = [value for row in rows for value in row]
    for value in values:
        if type(value) is not int or not INT64_MIN <= value <= INT64_MAX:
            raise FdoError(f"{where}: {value!r:.40} is not a 64-bit integer")
    shape = f"({width},)" if len(rows) == 1 else f"({len(rows)}, {width})"
    header = f"{{'descr': '<i8', 'fortran_order': False, 'shape': {shape}, }}"
    # numpy pads the header with spaces so that the data starts at a multiple of 64.
    padding = -(len(MAGIC) + 4 + len(header) + 1) % 64
    text = (header + " " * padding + "\n").encode("latin-1")
    return (
        MAGIC
        + b"\x01\x00"
        + struct.pack("<H", len(text))
        + text
        + struct.pack(f"<{len(values)}q", *values)
    )
