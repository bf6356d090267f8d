"""CPython's ``hash()`` of the values in a TensorFlow optimizer's ``__dict__``, for a given
``PYTHONHASHSEED``, computed without being that process.

TensorFlow orders SparseCore stacks by a digest of ``hash(optimizer)``
(``_WithSlotVariables.__hash__`` is ``hash(tuple(self.__dict__.items()))``), so the order of the
layouts it writes depends on how the TensorFlow process hashes:

- ``str``: SipHash-1-3 (CPython 3.11 and later; ``Python/pyhash.c``) keyed by the first 16 bytes of
  the hash secret. ``PYTHONHASHSEED=0`` zeroes the secret; ``PYTHONHASHSEED=N`` fills it with the
  LCG of ``lcg_urandom`` in ``Python/bootstrap_hash.c``; unset, it is random per process.
- ``tuple``: the xxHash-based combination of ``Objects/tupleobject.c`` (CPython 3.8 and later).
- ``int``, ``float``, ``bool``: deterministic and the same in every CPython (ours: ``hash()``).
- ``None``: a constant from CPython 3.12 on; in 3.11 and before it is the address of the ``None``
  object, which address-space randomisation changes in every process. ``NoneHash`` carries it.

64-bit builds only (``Py_hash_t`` of 64 bits), as every TensorFlow wheel is.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

_MASK = (1 << 64) - 1

# hash(None) from CPython 3.12 on (Objects/object.c: none_hash).
NONE_HASH_312 = 0xFCA86420

_XXPRIME_1 = 11400714785074694791
_XXPRIME_2 = 14029467366897019727
_XXPRIME_5 = 2870177450012600261


class HashContext(NamedTuple):
    """How one Python process hashes: its ``PYTHONHASHSEED`` and its ``hash(None)``."""

    seed: int = 0
    none_hash: int = NONE_HASH_312


@lru_cache(maxsize=64)
def secret_key(seed: int) -> tuple[int, int]:
    """SipHash's (k0, k1) for ``PYTHONHASHSEED=seed`` (0 to 4294967295)."""
    if seed == 0:
        return 0, 0
    x = seed & 0xFFFFFFFF
    buffer = bytearray(16)
    for index in range(16):
        x = (x * 214013 + 2531011) & 0xFFFFFFFF
        buffer[index] = (x >> 16) & 0xFF
    return int.from_bytes(buffer[:8], "little"), int.from_bytes(buffer[8:], "little")


def _rotate(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def siphash13(k0: int, k1: int, data: bytes) -> int:
    """SipHash-1-3 of ``data`` as CPython computes it (an unsigned 64-bit value)."""
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
        v0 = (v0 + v1) & _MASK
        v2 = (v2 + v3) & _MASK
        v1 = _rotate(v1, 13) ^ v0
        v3 = _rotate(v3, 16) ^ v2
        v0 = _rotate(v0, 32)
        v2 = (v2 + v1) & _MASK
        v0 = (v0 + v3) & _MASK
        v1 = _rotate(v1, 17) ^ v2
        v3 = _rotate(v3, 21) ^ v0
        v2 = _rotate(v2, 32)
        return v0, v1, v2, v3

    whole = len(data) - len(data) % 8
    for start in range(0, whole, 8):
        word = int.from_bytes(data[start : start + 8], "little")
        v3 ^= word
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3)
        v0 ^= word
    last = ((len(data) & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3)
    v0 ^= last
    v2 ^= 0xFF
    for _ in range(3):
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3)
    return (v0 ^ v1) ^ (v2 ^ v3)


def _signed(value: int) -> int:
    value &= _MASK
    return value - (1 << 64) if value >= 1 << 63 else value


# The strings hashed are an optimizer's attribute names and a few values (schedule names): the
# same ones for every table, and SipHash in Python costs tens of microseconds a string.
@lru_cache(maxsize=4096)
def str_hash(text: str, seed: int) -> int:
    """``hash(text)`` in a CPython 3.11+ process run with ``PYTHONHASHSEED=seed``."""
    if not text:
        return 0
    widest = max(map(ord, text))
    # CPython hashes the string's compact storage: 1, 2 or 4 bytes a character.
    codec = "latin-1" if widest < 0x100 else "utf-16-le" if widest < 0x10000 else "utf-32-le"
    data = text.encode(codec, "surrogatepass")
    result = _signed(siphash13(*secret_key(seed), data))
    return -2 if result == -1 else result


def tuple_hash(item_hashes: Iterable[int]) -> int:
    """``hash(tuple)`` from its items' hashes (``Objects/tupleobject.c``)."""
    acc = _XXPRIME_5
    length = 0
    for item in item_hashes:
        acc = (acc + (item & _MASK) * _XXPRIME_2) & _MASK
        acc = _rotate(acc, 31)
        acc = (acc * _XXPRIME_1) & _MASK
        length += 1
    acc = (acc + (length ^ (_XXPRIME_5 ^ 3527539))) & _MASK
    if acc == _MASK:
        return 1546275796
    return _signed(acc)


HashableValue = str | int | float | bool | None | tuple["HashableValue", ...]


def value_hash(value: HashableValue, context: HashContext) -> int:
    """``hash(value)`` in the process ``context`` describes."""
    if value is None:
        return context.none_hash
    if isinstance(value, str):
        return str_hash(value, context.seed)
    if isinstance(value, tuple):
        return tuple_hash(value_hash(item, context) for item in value)
    # int, float and bool hash the same in every CPython process (NaN aside, which no optimizer
    # setting the spec can hold takes).
    return hash(value)
