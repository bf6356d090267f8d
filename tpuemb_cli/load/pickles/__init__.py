"""A pickle's value, read by walking its opcodes: nothing is imported and nothing is called.

A pickle is a program for a small stack machine, and ``pickle.loads`` runs it: a class reference
is imported, ``REDUCE`` calls whatever it names (``os.system`` included). This walker runs the
same machine on plain records instead. Plain data comes back as ``pickle.loads`` gives it
(``dict``, ``list``, ``tuple``, ``set``, ``frozenset``, ``str``, ``bytes``, ``bytearray``,
``int``, ``float``, ``bool``, ``None``); a class or function reference (``GLOBAL``,
``STACK_GLOBAL``) is a ``Global`` (module, name; before protocol 3, Python 2's names mapped
to Python 3's as ``pickle.loads`` maps them); what ``REDUCE``, ``NEWOBJ``, ``NEWOBJ_EX``,
``INST`` or ``OBJ`` would make is an ``Object`` (what it would call, the arguments), to which
``BUILD`` attaches the state (as written: a dict, or a ``(dict, slots)`` pair, or whatever the
class's ``__getstate__`` returned), and ``APPENDS`` / ``SETITEMS`` on it the items. A persistent
id (``PERSID``, ``BINPERSID``) is a ``PersistentId``.

Read: every opcode of protocols 0 to 5 (``pickletools.opcodes``) but those refused: ``EXT1``,
``EXT2``, ``EXT4`` (the copyreg extension registry, which names classes by number from a table
outside the pickle) and ``NEXT_BUFFER``, ``READONLY_BUFFER`` (protocol 5's out-of-band buffers,
which are not in the file). ``FRAME`` is checked to lie within the input and otherwise ignored.

Bounds (their values, and why those, in ``limits``; each refusal a ``PickleError`` naming the
file and the byte offset):

- ``MAX_INPUT_BYTES``: the pickle's size (a file larger is not read);
- ``MAX_OPCODES``: opcodes run; every item, key and value needs one, so this bounds the work and
  every container's size too, and ``MAX_ITEMS`` bounds one container's;
- ``MAX_MARKS``: ``MARK``\\ s open at once (the nesting of the pickled text);
- ``MAX_MEMO``: entries in the memo;
- ``MAX_STRING_BYTES``: one string or bytes value;
- ``MAX_LONG_BYTES``: one ``LONG1`` / ``LONG4`` integer, and ``INT_DIGITS`` (Python's own limit)
  one decimal ``INT`` / ``LONG``;
- ``MAX_HASH_CHOSEN_KEYS``: dict keys and set items whose hash the file can choose (numbers, and
  tuples of them: ``hash(n * (2**61 - 1))`` is 0 for every ``n``, and a dict of colliding keys
  costs time quadratic in their number); a key holding a ``str`` or ``bytes`` (whose hashes
  Python randomises) or a record is not counted;
- ``MAX_DEPTH``, while the pickle is walked: tuples and frozensets nested inside each other
  (hashing or comparing one recurses in C, and a million nested ``TUPLE1`` would overflow the
  stack);
- ``MAX_NODES`` and ``MAX_DEPTH``: the value as a tree. The memo lets one value stand in many
  places (``BINGET``), so a few hundred bytes can describe a tree of billions of nodes ("billion
  laughs"), and a container can be put inside itself. After ``STOP`` the value is measured, each
  shared value once: more than ``MAX_NODES`` nodes written out, deeper than ``MAX_DEPTH``, or a
  value inside itself, is refused -- so a reader of the result may walk it as a tree.

Malformed input -- truncated, an unknown opcode, a stack underflow, a memo index never stored, a
``MARK`` missing or left open, an item of the wrong kind (a non-string module name, an
unhashable key, ``BUILD`` on plain data) -- is a ``PickleError`` too, never another exception.
"""

from __future__ import annotations

import gc
from pathlib import Path

from tpuemb_cli.load.pickles import limits
from tpuemb_cli.load.pickles.measure import measure
from tpuemb_cli.load.pickles.opcodes import run
from tpuemb_cli.load.pickles.records import Global, Object, PersistentId, PickleError
from tpuemb_cli.load.regular_file import read_regular
from tpuemb_cli.model.words import printable

__all__ = ["Global", "Object", "PersistentId", "PickleError", "read_pickle_file", "walk"]


def read_pickle_file(file: Path) -> object:
    """The value of the pickle in ``file``: a regular file of at most ``limits.MAX_INPUT_BYTES``."""
    data = read_regular(file, limits.MAX_INPUT_BYTES, PickleError, "a checkpoint")
    return walk(data, printable(str(file)))


def walk(data: bytes, name: str = "<pickle>") -> object:
    """The value of the pickle ``data`` (``name`` is the file's, for messages), ending at its
    first ``STOP`` (bytes after it are not read, as ``pickle.loads`` ignores them)."""
    if len(data) > limits.MAX_INPUT_BYTES:
        raise PickleError(
            f"{name}: {len(data):,} bytes, larger than the {limits.MAX_INPUT_BYTES:,} bytes tpuemb "
            "reads of a pickle"
        )
    # The collector would scan the millions of containers a large pickle makes, again and again
    # as they are made (a third of the time); none of them is garbage until the walk ends.
    collecting = gc.isenabled()
    gc.disable()
    try:
        value = run(data, name)
        measure(value, name)
    finally:
        if collecting:
            gc.enable()
    return value
