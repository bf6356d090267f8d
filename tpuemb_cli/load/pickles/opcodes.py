"""The opcodes of pickle protocols 0 to 5 (``pickletools.opcodes``), one function each in a table,
and the loop that runs them: plain data built as ``pickle.loads`` builds it, references and
calls recorded, never resolved or made."""

from __future__ import annotations

import codecs
import struct
import warnings
from collections.abc import Callable

from tpuemb_cli.load.pickles import limits
from tpuemb_cli.load.pickles.records import Object, PersistentId, kind
from tpuemb_cli.load.pickles.walker import Walker
from tpuemb_cli.model.words import printable

_Op = Callable[[Walker], None]
_OPS: dict[int, _Op] = {}


def _op(code: bytes) -> Callable[[_Op], _Op]:
    def register(function: _Op) -> _Op:
        _OPS[code[0]] = function
        return function

    return register


def run(data: bytes, name: str) -> object:
    """The value ``data``'s opcodes leave at its first ``STOP``."""
    w = Walker(data, name)
    end, most, table = len(data), limits.MAX_OPCODES, _OPS
    count = 0
    while not w.done:
        if w.pos >= end:
            raise w.fail("the pickle ends before its STOP (truncated)")
        w.at = w.pos
        code = data[w.pos]
        w.pos += 1
        count += 1
        if count > most:
            raise w.fail(f"more than {most:,} opcodes; refused")
        operation = table.get(code)
        if operation is None:
            raise w.fail(f"opcode {bytes([code])!r} is not one tpuemb reads")
        operation(w)
    return w.result


# ---- protocol and framing
@_op(b"\x80")
def _proto(w: Walker) -> None:
    protocol = w.unsigned(1)
    if protocol > 5:
        raise w.fail(f"pickle protocol {protocol}; tpuemb reads protocols 0 to 5")
    w.protocol = protocol


@_op(b"\x95")
def _frame(w: Walker) -> None:
    size = w.unsigned(8)
    if size > len(w.data) - w.pos:
        raise w.fail(f"a frame of {size:,} bytes, past the end of the pickle (truncated)")


@_op(b".")
def _stop(w: Walker) -> None:
    w.result = w.pop()
    if w.stack or w.marks:
        raise w.fail("STOP with values or MARKs left on the stack")
    w.done = True


# ---- scalars
@_op(b"N")
def _none(w: Walker) -> None:
    w.push(None)


@_op(b"\x88")
def _true(w: Walker) -> None:
    w.push(True)


@_op(b"\x89")
def _false(w: Walker) -> None:
    w.push(False)


@_op(b"J")
def _binint(w: Walker) -> None:
    w.push(int.from_bytes(w.take(4), "little", signed=True))


@_op(b"K")
def _binint1(w: Walker) -> None:
    w.push(w.unsigned(1))


@_op(b"M")
def _binint2(w: Walker) -> None:
    w.push(w.unsigned(2))


def _long(w: Walker, size: int) -> None:
    if size > limits.MAX_LONG_BYTES:
        raise w.fail(f"an integer of {size:,} bytes, more than the {limits.MAX_LONG_BYTES:,} read")
    w.push(int.from_bytes(w.take(size), "little", signed=True))


@_op(b"\x8a")
def _long1(w: Walker) -> None:
    _long(w, w.unsigned(1))


@_op(b"\x8b")
def _long4(w: Walker) -> None:
    size = int.from_bytes(w.take(4), "little", signed=True)
    if size < 0:
        raise w.fail("LONG4 with a negative length")
    _long(w, size)


@_op(b"I")
def _int(w: Walker) -> None:
    raw = w.line()
    if raw == b"00":
        w.push(False)
    elif raw == b"01":
        w.push(True)
    else:
        w.push(w.decimal(raw))


@_op(b"L")
def _long_text(w: Walker) -> None:
    raw = w.line()
    w.push(w.decimal(raw[:-1] if raw.endswith(b"L") else raw))


@_op(b"G")
def _binfloat(w: Walker) -> None:
    w.push(struct.unpack(">d", w.take(8))[0])


@_op(b"F")
def _float(w: Walker) -> None:
    raw = w.line()
    try:
        if len(raw) > 64:
            raise ValueError(raw)
        w.push(float(raw))
    except ValueError:
        raise w.fail(f"{printable(repr(raw)[:40])} is not a float") from None


# ---- strings and bytes
@_op(b"\x8c")
def _short_binunicode(w: Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(1))))


@_op(b"X")
def _binunicode(w: Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(4))))


@_op(b"\x8d")
def _binunicode8(w: Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(8))))


@_op(b"V")
def _unicode(w: Walker) -> None:
    w.push(w.text(w.line(), "raw-unicode-escape"))


@_op(b"C")
def _short_binbytes(w: Walker) -> None:
    w.push(w.sized(w.unsigned(1)))


@_op(b"B")
def _binbytes(w: Walker) -> None:
    w.push(w.sized(w.unsigned(4)))


@_op(b"\x8e")
def _binbytes8(w: Walker) -> None:
    w.push(w.sized(w.unsigned(8)))


@_op(b"\x96")
def _bytearray8(w: Walker) -> None:
    w.push(bytearray(w.sized(w.unsigned(8))))


@_op(b"U")
def _short_binstring(w: Walker) -> None:
    w.push(w.text(w.sized(w.unsigned(1)), "ascii"))


@_op(b"T")
def _binstring(w: Walker) -> None:
    size = int.from_bytes(w.take(4), "little", signed=True)
    if size < 0:
        raise w.fail("BINSTRING with a negative length")
    w.push(w.text(w.sized(size), "ascii"))


@_op(b"S")
def _string(w: Walker) -> None:
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
def _empty_dict(w: Walker) -> None:
    w.push({})


@_op(b"]")
def _empty_list(w: Walker) -> None:
    w.push([])


@_op(b")")
def _empty_tuple(w: Walker) -> None:
    w.immutable(())


@_op(b"\x8f")
def _empty_set(w: Walker) -> None:
    w.push(set())


@_op(b"(")
def _mark(w: Walker) -> None:
    w.mark()


@_op(b"t")
def _tuple(w: Walker) -> None:
    w.immutable(tuple(w.pop_mark()))


@_op(b"\x85")
def _tuple1(w: Walker) -> None:
    w.immutable((w.pop(),))


@_op(b"\x86")
def _tuple2(w: Walker) -> None:
    second = w.pop()
    w.immutable((w.pop(), second))


@_op(b"\x87")
def _tuple3(w: Walker) -> None:
    third = w.pop()
    second = w.pop()
    w.immutable((w.pop(), second, third))


@_op(b"l")
def _list(w: Walker) -> None:
    w.push(w.pop_mark())


@_op(b"d")
def _dict(w: Walker) -> None:
    items = w.pop_mark()
    target: dict[object, object] = {}
    w.set_items(target, items)
    w.push(target)


@_op(b"\x91")
def _frozenset(w: Walker) -> None:
    w.immutable(frozenset(w.key(item) for item in w.pop_mark()))


@_op(b"\x90")
def _additems(w: Walker) -> None:
    items = w.pop_mark()
    target = w.top()
    if not isinstance(target, set):
        raise w.fail(f"ADDITEMS on a {kind(target)}")
    target.update(w.key(item) for item in items)
    w.check_size(len(target))


@_op(b"a")
def _append(w: Walker) -> None:
    item = w.pop()
    w.append(w.top(), [item])


@_op(b"e")
def _appends(w: Walker) -> None:
    items = w.pop_mark()
    w.append(w.top(), items)


@_op(b"s")
def _setitem(w: Walker) -> None:
    value = w.pop()
    key = w.pop()
    w.set_items(w.top(), [key, value])


@_op(b"u")
def _setitems(w: Walker) -> None:
    items = w.pop_mark()
    w.set_items(w.top(), items)


# ---- stack manipulation and the memo
@_op(b"0")
def _pop(w: Walker) -> None:
    if w.stack:
        w.stack.pop()
    else:
        w.pop_mark()


@_op(b"1")
def _pop_mark(w: Walker) -> None:
    w.pop_mark()


@_op(b"2")
def _dup(w: Walker) -> None:
    w.push(w.top())


@_op(b"g")
def _get(w: Walker) -> None:
    w.get(w.index(w.line()))


@_op(b"h")
def _binget(w: Walker) -> None:
    w.get(w.unsigned(1))


@_op(b"j")
def _long_binget(w: Walker) -> None:
    w.get(w.unsigned(4))


@_op(b"p")
def _put(w: Walker) -> None:
    w.put(w.index(w.line()))


@_op(b"q")
def _binput(w: Walker) -> None:
    w.put(w.unsigned(1))


@_op(b"r")
def _long_binput(w: Walker) -> None:
    w.put(w.unsigned(4))


@_op(b"\x94")
def _memoize(w: Walker) -> None:
    w.put(len(w.memo))


# ---- references and objects: recorded, never imported or called
@_op(b"c")
def _global(w: Walker) -> None:
    module = w.text(w.line())
    w.push(w.global_(module, w.text(w.line())))


@_op(b"\x93")
def _stack_global(w: Walker) -> None:
    name = w.pop()
    w.push(w.global_(w.pop(), name))


@_op(b"R")
def _reduce(w: Walker) -> None:
    args = w.args(w.pop(), "REDUCE")
    w.push(Object(w.pop(), args))


@_op(b"\x81")
def _newobj(w: Walker) -> None:
    args = w.args(w.pop(), "NEWOBJ")
    w.push(Object(w.pop(), args, new=True))


@_op(b"\x92")
def _newobj_ex(w: Walker) -> None:
    kwargs = w.pop()
    if not isinstance(kwargs, dict):
        raise w.fail(f"NEWOBJ_EX keyword arguments that are a {kind(kwargs)}, not a dict")
    args = w.args(w.pop(), "NEWOBJ_EX")
    w.push(Object(w.pop(), args, kwargs, new=True))


@_op(b"i")
def _inst(w: Walker) -> None:
    module = w.text(w.line())
    cls = w.global_(module, w.text(w.line()))
    w.push(Object(cls, tuple(w.pop_mark())))


@_op(b"o")
def _obj(w: Walker) -> None:
    items = w.pop_mark()
    if not items:
        raise w.fail("OBJ with no class")
    w.push(Object(items[0], tuple(items[1:])))


@_op(b"b")
def _build(w: Walker) -> None:
    state = w.pop()
    target = w.top()
    if not isinstance(target, Object):
        raise w.fail(f"BUILD on a {kind(target)}")
    if target.built:
        raise w.fail("BUILD on an object already built")
    target.state, target.built = state, True


@_op(b"P")
def _persid(w: Walker) -> None:
    w.push(PersistentId(w.text(w.line(), "ascii")))


@_op(b"Q")
def _binpersid(w: Walker) -> None:
    w.push(PersistentId(w.pop()))


def _refuse(what: str) -> _Op:
    def refuse(w: Walker) -> None:
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
