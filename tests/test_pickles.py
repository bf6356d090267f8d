"""load.pickles: a pickle's value without importing or calling anything -- plain data as
``pickle.loads`` gives it, class references and objects as records, and every malformed or
hostile input refused with a ``PickleError`` naming the file, within bounded time."""

from __future__ import annotations

import dataclasses
import gc
import os
import pickle
import random
import struct
import sys
import time
from collections import OrderedDict
from pathlib import Path

import pytest

from tpuemb_cli.load import pickles
from tpuemb_cli.load.pickles import Global, Object, PersistentId, PickleError, limits, walk

DCP = Path(__file__).parent / "data" / "dcp"
FIXTURES = sorted(DCP.glob("*.metadata"))


def _plain(protocol: int) -> object:
    """Data every protocol writes with its own opcodes (no REDUCE of a builtin)."""
    shared = ["shared", 1]
    value: dict[object, object] = {
        "ints": [0, 1, -1, 255, 256, 65535, 65536, -(2**31), 2**31 - 1, 2**31, 2**64, -(2**200)],
        "floats": [0.0, -1.5, 1e308, float("inf")],
        "strings": ["", "a", "é" * 300, "x" * 70_000, "line\nbreak", "\\", "\ud800"],
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), ((),)],
        "flags": [True, False, None],
        "nested": {"a": {"b": {"c": [{}]}}},
        "shared": [shared, shared],
        7: "int key",
        ("k", 1): "tuple key",
        None: "none key",
    }
    if protocol >= 3:
        value["bytes"] = [b"", b"\x00\xff", b"z" * 300]
    if protocol >= 4:
        value["sets"] = [set(), {1, "a"}, frozenset(), frozenset({2, (3, 4)})]
        value["big"] = "y" * 300
    if protocol >= 5:
        value["bytearray"] = bytearray(b"ab")
    return value


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_plain_data_reads_as_pickle_loads_gives_it(protocol: int) -> None:
    data = pickle.dumps(_plain(protocol), protocol=protocol)
    read = walk(data)
    assert read == pickle.loads(data)
    assert type(read) is dict
    shared = read["shared"]
    assert shared[0] is shared[1]  # the memo's sharing is kept


@pytest.mark.parametrize(
    ("opcodes", "expected"),
    [
        (b"X\x03\x00\x00\x00abc.", "abc"),  # BINUNICODE
        (b"\x8d\x02" + bytes(7) + b"hi.", "hi"),  # BINUNICODE8
        (b"\x8e\x01" + bytes(7) + b"z.", b"z"),  # BINBYTES8
        (b"B\x01\x00\x00\x00z.", b"z"),  # BINBYTES
        (b"\x8b\x02\x00\x00\x00\xff\x7f.", 32767),  # LONG4
        (b"\x8b\x00\x00\x00\x00.", 0),  # LONG4 of no bytes
        (b"G" + struct.pack(">d", 2.5) + b".", 2.5),  # BINFLOAT
        (b"U\x02ab.", "ab"),  # SHORT_BINSTRING (Python 2's str, read as ASCII)
        (b"T\x01\x00\x00\x00a.", "a"),
        (b"S'a\\x41'\n.", "aA"),  # STRING, escapes decoded
        (b"I01\n.", True),
        (b"I-12\n.", -12),
        (b"L12L\n.", 12),
        (b"F1.5\n.", 1.5),
        (b"(K\x01K\x02l.", [1, 2]),  # LIST
        (b"(K\x01K\x02d.", {1: 2}),  # DICT
        (b"]K\x01a.", [1]),  # APPEND
        (b"}K\x01K\x02s.", {1: 2}),  # SETITEM
        (b"K\x01K\x020.", 1),  # POP
        (b"K\x01(K\x021.", 1),  # POP_MARK
        (b"K\x012\x86.", (1, 1)),  # DUP
        (b"K\x01p0\n0g0\n.", 1),  # PUT, GET
        (b"K\x01r\x05\x00\x00\x000j\x05\x00\x00\x00.", 1),  # LONG_BINPUT, LONG_BINGET
        (b"\x80\x04\x95\x02" + bytes(7) + b"N.", None),  # FRAME
    ],
)
def test_opcodes_pickle_loads_reads(opcodes: bytes, expected: object) -> None:
    assert walk(opcodes) == pickle.loads(opcodes) == expected


@dataclasses.dataclass
class _Point:
    x: int
    label: str = "p"


@dataclasses.dataclass(slots=True)
class _Slotted:
    x: int


class _NewArgs:
    def __init__(self, a: int, *, b: int) -> None:
        self.a, self.b = a, b

    def __getnewargs_ex__(self) -> tuple[tuple[object, ...], dict[str, object]]:
        return (self.a,), {"b": self.b}


class _Listy(list[int]):
    pass


def test_class_references_and_objects_are_records() -> None:
    here = __name__
    assert walk(pickle.dumps(OrderedDict, protocol=4)) == Global("collections", "OrderedDict")
    assert walk(pickle.dumps(os.path.join, protocol=2)) == Global("posixpath", "join")

    point = walk(pickle.dumps(_Point(3), protocol=4))
    assert isinstance(point, Object)
    assert (point.cls, point.args, point.new, point.built) == (
        Global(here, "_Point"),
        (),
        True,
        True,
    )
    assert point.state == {"x": 3, "label": "p"}

    slotted = walk(pickle.dumps(_Slotted(4), protocol=4))
    assert isinstance(slotted, Object)
    assert slotted.state == (None, {"x": 4})

    ex = walk(pickle.dumps(_NewArgs(1, b=2), protocol=4))
    assert isinstance(ex, Object)
    assert (ex.args, ex.kwargs, ex.state) == ((1,), {"b": 2}, {"a": 1, "b": 2})

    listy = _Listy([5, 6])
    walked = walk(pickle.dumps(listy, protocol=4))
    assert isinstance(walked, Object)
    assert walked.appended == [5, 6]

    od = walk(pickle.dumps(OrderedDict(a=1), protocol=4))
    assert isinstance(od, Object)
    assert (od.cls, od.set_items) == (Global("collections", "OrderedDict"), [("a", 1)])

    old = walk(pickle.dumps(_Point(1), protocol=0))  # REDUCE copyreg._reconstructor
    assert isinstance(old, Object)
    assert old.cls == Global("copyreg", "_reconstructor")
    assert old.args == (Global(here, "_Point"), Global("builtins", "object"), None)


def test_inst_obj_and_persistent_ids() -> None:
    inst = walk(b"(K\x01iamodule\nAClass\n.")
    assert isinstance(inst, Object)
    assert (inst.cls, inst.args) == (Global("amodule", "AClass"), (1,))
    obj = walk(b"(camodule\nAClass\nK\x02o.")
    assert isinstance(obj, Object)
    assert (obj.callable, obj.args) == (Global("amodule", "AClass"), (2,))
    assert walk(b"Pid-1\n.") == PersistentId("id-1")
    assert walk(b"K\x07Q.") == PersistentId(7)


def test_reduce_of_os_system_is_not_called(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    payload = f"touch {target}"

    class Evil:
        def __reduce__(self) -> tuple[object, ...]:
            return os.system, (payload,)

    pickles = [pickle.dumps(Evil(), protocol=p) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
    called: list[object] = []
    monkeypatch.setattr(os, "system", lambda command: called.append(command))
    before = set(sys.modules)
    for data in pickles:
        value = walk(data)
        assert isinstance(value, Object)
        assert value.callable == Global("posix" if os.name == "posix" else "nt", "system")
        assert value.args == (payload,)
    hand = b"c__tpuemb_never_imported__\nboom\n(S'x'\ntR."
    boom = walk(hand)
    assert isinstance(boom, Object)
    assert (boom.callable, boom.args) == (Global("__tpuemb_never_imported__", "boom"), ("x",))
    assert called == []
    assert not target.exists()
    assert "__tpuemb_never_imported__" not in sys.modules
    assert set(sys.modules) == before


def _refused(data: bytes, *words: str) -> str:
    with pytest.raises(PickleError) as raised:
        walk(data, "some/file.metadata")
    message = str(raised.value)
    assert message.startswith("some/file.metadata: ")
    for word in words:
        assert word in message
    return message


def _billion_laughs(levels: int, fan: int) -> bytes:
    out = bytearray(b"\x80\x04]\x94")  # level 0: an empty list, memo 0
    for level in range(1, levels + 1):
        out += b"0](" + b"h" + bytes([level - 1]) + (b"h" + bytes([level - 1])) * (fan - 1)
        out += b"e\x94"  # APPENDS, memo level
    return bytes(out + b".")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", ("ends before its STOP",)),
        (b"\x80\x04N", ("ends before its STOP",)),
        (b"\x80\x04X\xff\x00\x00\x00ab.", ("ends inside",)),
        (b"\x80\x04\x8d" + (2**63).to_bytes(8, "little") + b".", ("more than",)),
        (b"\x80\x04\x95\xff\xff\x00\x00\x00\x00\x00\x00N.", ("frame",)),
        (b"\x80\x06N.", ("protocol 6",)),
        (b"\xffN.", ("opcode", "not one tpuemb reads")),
        (b"t.", ("no MARK",)),
        (b"(N.", ("MARKs left",)),
        (b"NN.", ("values or MARKs left",)),
        (b"\x85.", ("stack underflow",)),
        (b"(\x85.", ("stack underflow",)),
        (b"h\x05.", ("memo entry 5",)),
        (b"j\xff\xff\xff\xff.", ("memo entry 4,294,967,295",)),
        (b"(K\x01u.", ("stack underflow",)),
        (b"}(K\x01u.", ("odd number",)),
        (b")(K\x01e.", ("APPENDS on a tuple",)),
        (b"K\x01K\x02a.", ("APPENDS on a int",)),
        (b"}]N\x86(]Nu.", ("a list as a dict key",)),
        (b"\x8f(]\x90.", ("a list as a dict key or set item",)),
        (b"}}b.", ("BUILD on a dict",)),
        (b"camod\nC\n)\x81}b}b.", ("already built",)),
        (b"camod\nC\nN\x81.", ("NEWOBJ arguments that are a NoneType",)),
        (b"K\x01K\x02\x93.", ("not a string",)),
        (b"\x82\x01.", ("EXT1", "copyreg")),
        (b"\x97.", ("NEXT_BUFFER", "out-of-band")),
        (b"\x8b\xff\xff\xff\xff.", ("negative length",)),
        (b"\x8b\x00\x10\x00\x00" + bytes(4096) + b".", ("integer of 4,096 bytes",)),
        (b"I" + b"1" * 5000 + b"\n.", ("digits",)),
        (b"Ix\n.", ("not an integer",)),
        (b"F" + b"1" * 100 + b"\n.", ("not a float",)),
        (b"X\x02\x00\x00\x00\xff\xfe.", ("not utf-8",)),
        (b"Sabc\n.", ("not quoted",)),
        (b"S'\\'\n.", ("bad escape",)),
        (b"Ng-1\n.", ("negative memo index",)),
        (b"\x80\x04]\x94h\x00a.", ("inside itself",)),
        (_billion_laughs(40, 10), ("billion laughs",)),
        (b"]" * 300 + b"a" * 299 + b".", ("nested more than 200",)),
        (b"N" + b"\x85" * 300 + b".", ("tuples nested more than 200",)),
        (b"(" * 1001, ("MARKs open",)),
    ],
)
def test_malformed_and_hostile_input_is_one_error(data: bytes, words: tuple[str, ...]) -> None:
    started = time.monotonic()
    _refused(data, *words)
    assert time.monotonic() - started < 2


def test_a_cycle_pickle_writes_is_refused() -> None:
    loop: list[object] = []
    loop.append(loop)
    _refused(pickle.dumps(loop, protocol=4), "inside itself")
    point = _Point(1)
    point.label = point  # type: ignore[assignment]
    _refused(pickle.dumps(point, protocol=4), "inside itself")


def test_shared_values_are_measured_once() -> None:
    # Ten levels of ten references: 10**10 values written out, refused; six levels (10**6,
    # within MAX_NODES) are read without writing them out.
    value = walk(_billion_laughs(6, 10))
    assert isinstance(value, list)
    assert len(value) == 10
    assert value[0] is value[9]


def test_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_OPCODES", 10)
    _refused(b"N" * 10 + b".", "more than 10 opcodes")
    assert walk(b"N" + b"0N" * 4 + b".") is None
    monkeypatch.setattr(limits, "MAX_OPCODES", 10**6)
    monkeypatch.setattr(limits, "MAX_MEMO", 3)
    _refused(b"N\x94\x94\x94\x94.", "more than 3 memo entries")
    monkeypatch.setattr(limits, "MAX_STRING_BYTES", 4)
    _refused(b"C\x05abcde.", "string of 5 bytes")
    assert walk(b"C\x04abcd.") == b"abcd"
    monkeypatch.setattr(limits, "MAX_ITEMS", 3)
    _refused(b"](NNNNe.", "more than 3 items")
    monkeypatch.setattr(limits, "MAX_ITEMS", 100)
    monkeypatch.setattr(limits, "MAX_HASH_CHOSEN_KEYS", 2)
    _refused(b"}(K\x01NK\x02NK\x03Nu.", "more than 2 numeric dict keys")
    assert walk(b"}(X\x01\x00\x00\x00aNX\x01\x00\x00\x00bNX\x01\x00\x00\x00cNu.") == dict.fromkeys(
        "abc"
    )
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 3)
    _refused(b"NN0.", "4 bytes, larger than the 3")


def test_colliding_numeric_keys_stay_fast() -> None:
    collide = 2**61 - 1  # hash(k * collide) == 0 for every int k
    out = bytearray(b"\x80\x04}(")
    for k in range(1, limits.MAX_HASH_CHOSEN_KEYS + 2):
        out += b"\x8a\x10" + (k * collide).to_bytes(16, "little", signed=True) + b"N"
    started = time.monotonic()
    _refused(bytes(out + b"u."), "numeric dict keys")
    assert time.monotonic() - started < 2


def test_files_are_read_as_regular_files_only(tmp_path: Path) -> None:
    good = tmp_path / "good.pkl"
    good.write_bytes(pickle.dumps({"a": 1}, protocol=4))
    assert pickles.read_pickle_file(good) == {"a": 1}
    link = tmp_path / "link.pkl"
    link.symlink_to(good)
    with pytest.raises(PickleError, match=r"link\.pkl: a symbolic link"):
        pickles.read_pickle_file(link)
    with pytest.raises(PickleError, match=r": not a regular file"):
        pickles.read_pickle_file(tmp_path)
    fifo = tmp_path / "fifo.pkl"
    os.mkfifo(fifo)
    with pytest.raises(PickleError, match=r"fifo\.pkl: not a regular file"):
        pickles.read_pickle_file(fifo)
    with pytest.raises(PickleError, match=r"missing\.pkl: missing"):
        pickles.read_pickle_file(tmp_path / "missing.pkl")
    bad = tmp_path / "bad.pkl"
    bad.write_bytes(b"\x80\x04N")
    with pytest.raises(PickleError, match=r"bad\.pkl: byte 2: the pickle ends"):
        pickles.read_pickle_file(bad)


def test_every_prefix_of_a_fixture_is_refused() -> None:
    data = (DCP / "sparsecore.metadata").read_bytes()
    for end in range(len(data) - 1):
        _refused(data[:end])


def _mutants(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    found = []
    for _ in range(count):
        mutant = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            where = rng.randrange(len(mutant))
            how = rng.randrange(4)
            if how == 0:
                mutant[where] = rng.randrange(256)
            elif how == 1:
                mutant[where] ^= 1 << rng.randrange(8)
            elif how == 2:
                del mutant[where : where + rng.randint(1, 8)]
            else:
                mutant[where:where] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        found.append(bytes(mutant))
    return found


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.stem)
@pytest.mark.slow
def test_mutated_fixtures_read_or_are_refused(fixture: Path) -> None:
    assert FIXTURES
    rng = random.Random(f"pickle-walk-{fixture.stem}")
    data = fixture.read_bytes()
    started = time.monotonic()
    refused = 0
    for mutant in _mutants(data, rng, 1000):
        try:
            walk(mutant, fixture.name)
        except PickleError as error:
            assert str(error).startswith(f"{fixture.name}: ")
            refused += 1
    assert 0 < refused < 1000
    assert time.monotonic() - started < 20


@pytest.mark.slow
def test_the_collector_is_left_as_it_was() -> None:
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            walk(pickle.dumps({"a": [1]}, protocol=4))
            assert gc.isenabled() is enabled
            _refused(b"\x80\x04]\x94h\x00a.", "inside itself")
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
