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

Bounds (each refusal a ``PickleError`` naming the file and the byte offset):

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

import _compat_pickle
import codecs
import struct
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tpuemb_cli.load.limits import INT_DIGITS
from tpuemb_cli.load.regular_file import read_regular
from tpuemb_cli.model.words import printable

MAX_INPUT_BYTES = 256 * 1024 * 1024
# A DCP .metadata takes about 60 opcodes a tensor and 40 a chunk: this is ~100,000 sharded
# tensors, a few seconds of walking.
MAX_OPCODES = 16_000_000
MAX_ITEMS = MAX_OPCODES
MAX_MARKS = 1000
MAX_MEMO = MAX_OPCODES
MAX_STRING_BYTES = 64 * 1024 * 1024
MAX_LONG_BYTES = 1024
# 4,096 keys that all collide take about 0.3 s to insert; a DCP .metadata has none (its keys are
# strings and objects).
MAX_HASH_CHOSEN_KEYS = 4096
MAX_NODES = 2 * MAX_OPCODES
MAX_DEPTH = 200


class PickleError(ValueError):
    """A pickle tpuemb refuses to read: malformed, hostile or past a bound; the message names the
    file, the byte offset and why."""


@dataclass(frozen=True)
class Global:
    """A class or function reference (``GLOBAL``, ``STACK_GLOBAL``, ``INST``): never imported."""

    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(eq=False)
class Object:
    """What calling ``callable`` with ``args`` (``REDUCE``, ``INST``, ``OBJ``) or
    ``callable.__new__(callable, *args, **kwargs)`` (``NEWOBJ``, ``NEWOBJ_EX``) would make: never
    made. ``state`` is what ``BUILD`` gave it (``built`` says whether it did), ``appended`` and
    ``set_items`` what ``APPENDS`` / ``SETITEMS`` added. Hashed by identity, as the object
    would be by default."""

    callable: object
    args: tuple[object, ...]
    kwargs: dict[object, object] | None = None
    new: bool = False
    state: object = None
    built: bool = False
    appended: list[object] = field(default_factory=list)
    set_items: list[tuple[object, object]] = field(default_factory=list)

    @property
    def cls(self) -> Global | None:
        """The class reference called, when it is one."""
        return self.callable if isinstance(self.callable, Global) else None


@dataclass(frozen=True)
class PersistentId:
    """A persistent id (``PERSID``, ``BINPERSID``): what the pickler's ``persistent_id`` kept out
    of the pickle."""

    pid: object


def read_pickle_file(file: Path) -> object:
    """The value of the pickle in ``file``: a regular file of at most ``MAX_INPUT_BYTES``."""
    data = read_regular(file, MAX_INPUT_BYTES, PickleError, "a checkpoint")
    return walk(data, printable(str(file)))


def walk(data: bytes, name: str = "<pickle>") -> object:
    """The value of the pickle ``data`` (``name`` is the file's, for messages), ending at its
    first ``STOP`` (bytes after it are not read, as ``pickle.loads`` ignores them)."""
    if len(data) > MAX_INPUT_BYTES:
        raise PickleError(
            f"{name}: {len(data):,} bytes, larger than the {MAX_INPUT_BYTES:,} bytes tpuemb "
            "reads of a pickle"
        )
    value = _Walker(data, name).run()
    _measure(value, name)
    return value


_Op = Callable[["_Walker"], None]
_OPS: dict[int, _Op] = {}


def _op(code: bytes) -> Callable[[_Op], _Op]:
    def register(function: _Op) -> _Op:
        _OPS[code[0]] = function
        return function

    return register


class _Walker:
    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.name = name
        self.pos = 0
        self.at = 0
        self.stack: list[object] = []
        self.marks: list[list[object]] = []
        self.memo: dict[int, object] = {}
        self.chosen_keys = 0
        self.protocol = 0
        # id -> (the tuple or frozenset, how deep tuples and frozensets nest in it), holding
        # each so that its id is not reused.
        self.nesting: dict[int, tuple[object, int]] = {}
        self.done = False
        self.result: object = None

    def fail(self, why: str) -> PickleError:
        return PickleError(f"{self.name}: byte {self.at:,}: {why}")

    def run(self) -> object:
        count = 0
        while not self.done:
            if self.pos >= len(self.data):
                raise self.fail("the pickle ends before its STOP (truncated)")
            self.at = self.pos
            code = self.data[self.pos]
            self.pos += 1
            count += 1
            if count > MAX_OPCODES:
                raise self.fail(f"more than {MAX_OPCODES:,} opcodes; refused")
            operation = _OPS.get(code)
            if operation is None:
                raise self.fail(f"opcode {bytes([code])!r} is not one tpuemb reads")
            operation(self)
        return self.result

    # -- reading the input
    def take(self, size: int) -> bytes:
        if size > len(self.data) - self.pos:
            raise self.fail(f"the pickle ends inside an opcode's {size:,}-byte argument")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def unsigned(self, size: int) -> int:
        return int.from_bytes(self.take(size), "little")

    def line(self) -> bytes:
        end = self.data.find(b"\n", self.pos, self.pos + MAX_STRING_BYTES + 1)
        if end < 0:
            raise self.fail("the pickle ends inside a line argument (no newline)")
        chunk = self.data[self.pos : end]
        self.pos = end + 1
        return chunk

    def sized(self, size: int) -> bytes:
        if size > MAX_STRING_BYTES:
            raise self.fail(
                f"a string of {size:,} bytes, more than the {MAX_STRING_BYTES:,} tpuemb reads"
            )
        return self.take(size)

    def text(self, raw: bytes, encoding: str = "utf-8") -> str:
        try:
            return raw.decode(encoding, "surrogatepass" if encoding == "utf-8" else "strict")
        except UnicodeDecodeError as error:
            raise self.fail(f"a string that is not {encoding}: {error.reason}") from None

    # -- the stacks
    def push(self, value: object) -> None:
        self.stack.append(value)

    def pop(self) -> object:
        if not self.stack:
            raise self.fail("the stack is empty (stack underflow)")
        return self.stack.pop()

    def top(self) -> object:
        if not self.stack:
            raise self.fail("the stack is empty (stack underflow)")
        return self.stack[-1]

    def mark(self) -> None:
        if len(self.marks) >= MAX_MARKS:
            raise self.fail(f"more than {MAX_MARKS:,} MARKs open at once; refused")
        self.marks.append(self.stack)
        self.stack = []

    def pop_mark(self) -> list[object]:
        if not self.marks:
            raise self.fail("no MARK to pop to")
        items = self.stack
        self.stack = self.marks.pop()
        if len(items) > MAX_ITEMS:
            raise self.fail(f"more than {MAX_ITEMS:,} items in one container; refused")
        return items

    def index(self, raw: bytes) -> int:
        index = _decimal(self, raw)
        if index < 0:
            raise self.fail(f"a negative memo index, {index}")
        return index

    def get(self, index: int) -> None:
        if index not in self.memo:
            raise self.fail(f"memo entry {index:,} was never stored")
        self.push(self.memo[index])

    def put(self, index: int) -> None:
        if index not in self.memo and len(self.memo) >= MAX_MEMO:
            raise self.fail(f"more than {MAX_MEMO:,} memo entries; refused")
        self.memo[index] = self.top()

    # -- containers
    def key(self, value: object) -> object:
        """``value`` checked as a dict key or set item."""
        try:
            hash(value)
        except TypeError:
            raise self.fail(f"a {type(value).__name__} as a dict key or set item") from None
        if _hash_chosen(value):
            self.chosen_keys += 1
            if self.chosen_keys > MAX_HASH_CHOSEN_KEYS:
                raise self.fail(
                    f"more than {MAX_HASH_CHOSEN_KEYS:,} numeric dict keys or set items; refused"
                )
        return value

    def set_items(self, target: object, items: list[object]) -> None:
        if len(items) % 2:
            raise self.fail("SETITEMS with an odd number of items")
        pairs = [(self.key(items[i]), items[i + 1]) for i in range(0, len(items), 2)]
        if isinstance(target, dict):
            target.update(pairs)
            size = len(target)
        elif isinstance(target, Object):
            target.set_items.extend(pairs)
            size = len(target.set_items)
        else:
            raise self.fail(f"SETITEMS on a {_kind(target)}")
        self.check_size(size)

    def append(self, target: object, items: list[object]) -> None:
        if isinstance(target, list):
            target.extend(items)
            size = len(target)
        elif isinstance(target, Object):
            target.appended.extend(items)
            size = len(target.appended)
        else:
            raise self.fail(f"APPENDS on a {_kind(target)}")
        self.check_size(size)

    def check_size(self, size: int) -> None:
        if size > MAX_ITEMS:
            raise self.fail(f"more than {MAX_ITEMS:,} items in one container; refused")

    def immutable(self, value: tuple[object, ...] | frozenset[object]) -> None:
        """Push a new tuple or frozenset, refused past ``MAX_DEPTH`` of them nested."""
        depth = 1
        for item in value:
            if isinstance(item, (tuple, frozenset)):
                known = self.nesting.get(id(item))
                depth = max(depth, 1 + (known[1] if known else 1))
        if depth > MAX_DEPTH:
            raise self.fail(f"tuples nested more than {MAX_DEPTH} deep; refused")
        self.nesting[id(value)] = (value, depth)
        self.push(value)

    def global_(self, module: object, name: object) -> Global:
        if not isinstance(module, str) or not isinstance(name, str):
            raise self.fail("a class reference whose module or name is not a string")
        if self.protocol < 3:
            # Python 2's names, as pickle.loads maps them (fix_imports): a table, not an import.
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        return Global(module, name)

    def args(self, value: object, what: str) -> tuple[object, ...]:
        if not isinstance(value, tuple):
            raise self.fail(f"{what} arguments that are a {_kind(value)}, not a tuple")
        return value


def _kind(value: object) -> str:
    if isinstance(value, Global):
        return f"class reference {value}"
    if isinstance(value, Object):
        return "object"
    return type(value).__name__


def _hash_chosen(value: object) -> bool:
    """Whether a key's hash is the file's to choose: no str, bytes or record in it."""
    if isinstance(value, (str, bytes, Global, Object, PersistentId)):
        return False
    if isinstance(value, (tuple, frozenset)):
        return all(_hash_chosen(item) for item in value)
    return True


# ---- protocol and framing
@_op(b"\x80")
def _proto(w: _Walker) -> None:
    protocol = w.unsigned(1)
    if protocol > 5:
        raise w.fail(f"pickle protocol {protocol}; tpuemb reads protocols 0 to 5")
    w.protocol = protocol


@_op(b"\x95")
def _frame(w: _Walker) -> None:
    size = w.unsigned(8)
    if size > len(w.data) - w.pos:
        raise w.fail(f"a frame of {size:,} bytes, past the end of the pickle (truncated)")


@_op(b".")
def _stop(w: _Walker) -> None:
    w.result = w.pop()
    if w.stack or w.marks:
        raise w.fail("STOP with values or MARKs left on the stack")
    w.done = True


# ---- scalars
@_op(b"N")
def _none(w: _Walker) -> None:
    w.push(None)


@_op(b"\x88")
def _true(w: _Walker) -> None:
    w.push(True)


@_op(b"\x89")
def _false(w: _Walker) -> None:
    w.push(False)


@_op(b"J")
def _binint(w: _Walker) -> None:
    w.push(int.from_bytes(w.take(4), "little", signed=True))


@_op(b"K")
def _binint1(w: _Walker) -> None:
    w.push(w.unsigned(1))


@_op(b"M")
def _binint2(w: _Walker) -> None:
    w.push(w.unsigned(2))


def _long(w: _Walker, size: int) -> None:
    if size > MAX_LONG_BYTES:
        raise w.fail(f"an integer of {size:,} bytes, more than the {MAX_LONG_BYTES:,} read")
    w.push(int.from_bytes(w.take(size), "little", signed=True))


@_op(b"\x8a")
def _long1(w: _Walker) -> None:
    _long(w, w.unsigned(1))


@_op(b"\x8b")
def _long4(w: _Walker) -> None:
    size = int.from_bytes(w.take(4), "little", signed=True)
    if size < 0:
        raise w.fail("LONG4 with a negative length")
    _long(w, size)


def _decimal(w: _Walker, raw: bytes) -> int:
    if len(raw) > INT_DIGITS:
        raise w.fail(f"an integer of {len(raw):,} digits, more than the {INT_DIGITS:,} read")
    try:
        return int(raw, 0)
    except ValueError:
        raise w.fail(f"{printable(repr(raw)[:40])} is not an integer") from None


@_op(b"I")
def _int(w: _Walker) -> None:
    raw = w.line()
    if raw == b"00":
        w.push(False)
    elif raw == b"01":
        w.push(True)
    else:
        w.push(_decimal(w, raw))


@_op(b"L")
def _long_text(w: _Walker) -> None:
    raw = w.line()
    w.push(_decimal(w, raw[:-1] if raw.endswith(b"L") else raw))


@_op(b"G")
def _binfloat(w: _Walker) -> None:
    w.push(struct.unpack(">d", w.take(8))[0])


@_op(b"F")
def _float(w: _Walker) -> None:
    raw = w.line()
    try:
        if len(raw) > 64:
            raise ValueError(raw)
        w.push(float(raw))
    except ValueError:
        raise w.fail(f"{printable(repr(raw)[:40])} is not a float") from None


# ---- strings and bytes
@_op(b"\x8c")
def _short_binunicode(w: _Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(1))))


@_op(b"X")
def _binunicode(w: _Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(4))))


@_op(b"\x8d")
def _binunicode8(w: _Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(8))))


@_op(b"V")
def _unicode(w: _Walker) -> None:
    w.push(w.text(w.line(), "raw-unicode-escape"))


@_op(b"C")
def _short_binbytes(w: _Walker) -> None:
    w.push(w.sized(w.unsigned(1)))


@_op(b"B")
def _binbytes(w: _Walker) -> None:
    w.push(w.sized(w.unsigned(4)))


@_op(b"\x8e")
def _binbytes8(w: _Walker) -> None:
    w.push(w.sized(w.unsigned(8)))


@_op(b"\x96")
def _bytearray8(w: _Walker) -> None:
    w.push(bytearray(w.sized(w.unsigned(8))))


@_op(b"U")
def _short_binstring(w: _Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(1)), "ascii"))


@_op(b"T")
def _binstring(w: _Walker) -> None:
    size = int.from_bytes(w.take(4), "little", signed=True)
    if size < 0:
        raise w.fail("BINSTRING with a negative length")
    w.push(w.text(w.sized(size), "ascii"))


@_op(b"S")
def _string(w: _Walker) -> None:
    raw = w.line()
    if len(raw) < 2 or raw[0] != raw[-1] or raw[:1] not in (b"'", b'"'):
        raise w.fail("STRING whose argument is not quoted")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an unknown escape (b"\\q") is kept, with a warning
            value = codecs.escape_decode(raw[1:-1])[0]
    except ValueError as error:
        raise w.fail(f"STRING with a bad escape: {error}") from None
    w.push(w.text(value, "ascii"))


# ---- containers
@_op(b"}")
def _empty_dict(w: _Walker) -> None:
    w.push({})


@_op(b"]")
def _empty_list(w: _Walker) -> None:
    w.push([])


@_op(b")")
def _empty_tuple(w: _Walker) -> None:
    w.immutable(())


@_op(b"\x8f")
def _empty_set(w: _Walker) -> None:
    w.push(set())


@_op(b"(")
def _mark(w: _Walker) -> None:
    w.mark()


@_op(b"t")
def _tuple(w: _Walker) -> None:
    w.immutable(tuple(w.pop_mark()))


@_op(b"\x85")
def _tuple1(w: _Walker) -> None:
    w.immutable((w.pop(),))


@_op(b"\x86")
def _tuple2(w: _Walker) -> None:
    second = w.pop()
    w.immutable((w.pop(), second))


@_op(b"\x87")
def _tuple3(w: _Walker) -> None:
    third = w.pop()
    second = w.pop()
    w.immutable((w.pop(), second, third))


@_op(b"l")
def _list(w: _Walker) -> None:
    w.push(w.pop_mark())


@_op(b"d")
def _dict(w: _Walker) -> None:
    items = w.pop_mark()
    target: dict[object, object] = {}
    w.set_items(target, items)
    w.push(target)


@_op(b"\x91")
def _frozenset(w: _Walker) -> None:
    w.immutable(frozenset(w.key(item) for item in w.pop_mark()))


@_op(b"\x90")
def _additems(w: _Walker) -> None:
    items = w.pop_mark()
    target = w.top()
    if not isinstance(target, set):
        raise w.fail(f"ADDITEMS on a {_kind(target)}")
    target.update(w.key(item) for item in items)
    w.check_size(len(target))


@_op(b"a")
def _append(w: _Walker) -> None:
    item = w.pop()
    w.append(w.top(), [item])


@_op(b"e")
def _appends(w: _Walker) -> None:
    items = w.pop_mark()
    w.append(w.top(), items)


@_op(b"s")
def _setitem(w: _Walker) -> None:
    value = w.pop()
    key = w.pop()
    w.set_items(w.top(), [key, value])


@_op(b"u")
def _setitems(w: _Walker) -> None:
    items = w.pop_mark()
    w.set_items(w.top(), items)


# ---- stack manipulation and the memo
@_op(b"0")
def _pop(w: _Walker) -> None:
    if w.stack:
        w.stack.pop()
    else:
        w.pop_mark()


@_op(b"1")
def _pop_mark(w: _Walker) -> None:
    w.pop_mark()


@_op(b"2")
def _dup(w: _Walker) -> None:
    w.push(w.top())


@_op(b"g")
def _get(w: _Walker) -> None:
    w.get(w.index(w.line()))


@_op(b"h")
def _binget(w: _Walker) -> None:
    w.get(w.unsigned(1))


@_op(b"j")
def _long_binget(w: _Walker) -> None:
    w.get(w.unsigned(4))


@_op(b"p")
def _put(w: _Walker) -> None:
    w.put(w.index(w.line()))


@_op(b"q")
def _binput(w: _Walker) -> None:
    w.put(w.unsigned(1))


@_op(b"r")
def _long_binput(w: _Walker) -> None:
    w.put(w.unsigned(4))


@_op(b"\x94")
def _memoize(w: _Walker) -> None:
    w.put(len(w.memo))


# ---- references and objects: recorded, never imported or called
@_op(b"c")
def _global(w: _Walker) -> None:
    module = w.text(w.line())
    w.push(w.global_(module, w.text(w.line())))


@_op(b"\x93")
def _stack_global(w: _Walker) -> None:
    name = w.pop()
    w.push(w.global_(w.pop(), name))


@_op(b"R")
def _reduce(w: _Walker) -> None:
    args = w.args(w.pop(), "REDUCE")
    w.push(Object(w.pop(), args))


@_op(b"\x81")
def _newobj(w: _Walker) -> None:
    args = w.args(w.pop(), "NEWOBJ")
    w.push(Object(w.pop(), args, new=True))


@_op(b"\x92")
def _newobj_ex(w: _Walker) -> None:
    kwargs = w.pop()
    if not isinstance(kwargs, dict):
        raise w.fail(f"NEWOBJ_EX keyword arguments that are a {_kind(kwargs)}, not a dict")
    args = w.args(w.pop(), "NEWOBJ_EX")
    w.push(Object(w.pop(), args, kwargs, new=True))


@_op(b"i")
def _inst(w: _Walker) -> None:
    module = w.text(w.line())
    cls = w.global_(module, w.text(w.line()))
    w.push(Object(cls, tuple(w.pop_mark())))


@_op(b"o")
def _obj(w: _Walker) -> None:
    items = w.pop_mark()
    if not items:
        raise w.fail("OBJ with no class")
    w.push(Object(items[0], tuple(items[1:])))


@_op(b"b")
def _build(w: _Walker) -> None:
    state = w.pop()
    target = w.top()
    if not isinstance(target, Object):
        raise w.fail(f"BUILD on a {_kind(target)}")
    if target.built:
        raise w.fail("BUILD on an object already built")
    target.state, target.built = state, True


@_op(b"P")
def _persid(w: _Walker) -> None:
    w.push(PersistentId(w.text(w.line(), "ascii")))


@_op(b"Q")
def _binpersid(w: _Walker) -> None:
    w.push(PersistentId(w.pop()))


def _refuse(what: str) -> _Op:
    def refuse(w: _Walker) -> None:
        raise w.fail(what)

    return refuse


for _code, _why in (
    (b"\x82", "EXT1: a class from the copyreg extension registry, which is not in the file"),
    (b"\x83", "EXT2: a class from the copyreg extension registry, which is not in the file"),
    (b"\x84", "EXT4: a class from the copyreg extension registry, which is not in the file"),
    (b"\x97", "NEXT_BUFFER: an out-of-band buffer, which is not in the file"),
    (b"\x98", "READONLY_BUFFER: an out-of-band buffer, which is not in the file"),
):
    _OPS[_code[0]] = _refuse(_why)


# ---- the value as a tree
def _children(value: object) -> list[object]:
    if isinstance(value, dict):
        return [item for pair in value.items() for item in pair]
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if isinstance(value, Object):
        found: list[object] = [value.callable, value.args, value.state]
        if value.kwargs is not None:
            found.append(value.kwargs)
        found.extend(value.appended)
        found.extend(item for pair in value.set_items for item in pair)
        return found
    if isinstance(value, PersistentId):
        return [value.pid]
    return []


def _measure(root: object, name: str) -> None:
    """Refuse a value that is inside itself, or written out as a tree would have more than
    ``MAX_NODES`` nodes or nest deeper than ``MAX_DEPTH``; each shared value is measured once."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (nodes, depth) of a finished value
    open_ids: set[int] = set()
    # (value, children not yet finished, running nodes, running depth)
    work: list[tuple[object, list[object], int, int]] = []

    def enter(value: object) -> None:
        kids = _children(value)
        if not kids:
            return
        if id(value) in open_ids:
            raise PickleError(f"{name}: a container or object inside itself; refused")
        if len(work) >= MAX_DEPTH:
            raise PickleError(f"{name}: nested more than {MAX_DEPTH} levels deep; refused")
        open_ids.add(id(value))
        work.append((value, kids, 1, 0))

    enter(root)
    while work:
        value, kids, nodes, depth = work[-1]
        while kids:
            kid = kids.pop()
            done = sizes.get(id(kid))
            if done is not None:
                nodes, depth = nodes + done[0], max(depth, done[1])
                if len(work) + done[1] > MAX_DEPTH:
                    raise PickleError(f"{name}: nested more than {MAX_DEPTH} levels deep; refused")
            elif _children(kid):
                work[-1] = (value, kids, nodes, depth)
                enter(kid)
                break
            else:
                nodes += 1
            if nodes > MAX_NODES:
                raise PickleError(
                    f"{name}: more than {MAX_NODES:,} values when written out (the memo "
                    "repeats values: a 'billion laughs' pickle?); refused"
                )
        else:
            work.pop()
            open_ids.discard(id(value))
            sizes[id(value)] = (nodes, depth + 1)
            if work:
                parent, rest, total, deepest = work[-1]
                total += nodes
                if total > MAX_NODES:
                    raise PickleError(
                        f"{name}: more than {MAX_NODES:,} values when written out (the memo "
                        "repeats values: a 'billion laughs' pickle?); refused"
                    )
                work[-1] = (parent, rest, total, max(deepest, depth + 1))
