"""model/records.Record: the named tuples typing.NamedTuple makes, made for less at start-up."""

from __future__ import annotations

import collections
import copy
import inspect
import pickle
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from tpuemb_cli.model.findings import Finding, Position, Severity
from tpuemb_cli.model.records import Record


class Point(Record):
    """A point."""

    x: int
    y: int = 0

    def moved(self, by: int) -> Point:
        return self._replace(x=self.x + by)


class TypedPoint(NamedTuple):
    """A point."""

    x: int
    y: int = 0


def test_a_record_is_what_typing_namedtuple_makes() -> None:
    point, typed = Point(1), TypedPoint(1)
    assert tuple(point) == tuple(typed)
    assert (point._fields, Point._field_defaults) == (typed._fields, TypedPoint._field_defaults)
    assert repr(point) == "Point(x=1, y=0)" and Point.__doc__ == "A point."
    assert point.moved(2) == Point(3, 0) and isinstance(point, tuple)
    # The annotations stay the strings they are written as (typing makes ForwardRefs of them).
    assert Point.__annotations__ == {"x": "int", "y": "int"}
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_records_pickle_as_forked_workers_send_them() -> None:
    finding = Finding("a.pbtxt", "TE101", "negative-dynamic-tag", Severity.ERROR, "m", ("x",))
    finding = finding._replace(position=Position(1, 2, 1, 3))
    assert pickle.loads(pickle.dumps(finding)) == finding


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(Record):
            a: int = 0
            b: int  # type: ignore[misc]


class Three(Record):
    a: int
    b: str = "b"
    c: tuple[int, ...] = ()


class One(Record):
    only: int


def _fail_alike(record: Any, made: Any, calls: list[Callable[[Any], Any]]) -> None:
    """Each wrong call fails on ``record`` as on namedtuple's ``made``, with its message."""
    for call in calls:
        with pytest.raises(TypeError) as ours:
            call(record)
        with pytest.raises(TypeError) as theirs:
            call(made)
        assert str(ours.value) == str(theirs.value)


def test_a_record_is_what_collections_namedtuple_makes() -> None:
    # Record builds the class itself (no compiled __new__): everything namedtuple gives a class,
    # the record has, the same.
    namedtuple: Any = collections.namedtuple  # called with names mypy cannot check
    cases: list[tuple[Any, str, Any]] = [(Three, "a b c", ("b", ())), (One, "only", None)]
    for record, fields, defaults in cases:
        made = namedtuple(record.__name__, fields, defaults=defaults)
        assert record._fields == made._fields and record.__match_args__ == made.__match_args__
        assert record._field_defaults == made._field_defaults
        assert inspect.signature(record) == inspect.signature(made)
        assert record.__new__.__doc__ == made.__new__.__doc__
        assert record.__new__.__qualname__ == made.__new__.__qualname__
        assert record.__new__.__defaults__ == made.__new__.__defaults__
        for name in ("_make", "_replace", "__repr__", "_asdict", "__getnewargs__"):
            ours, theirs = getattr(record, name), getattr(made, name)
            assert (ours.__doc__, ours.__qualname__) == (theirs.__doc__, theirs.__qualname__)
        for index, field in enumerate(made._fields):
            assert getattr(record, field).__doc__ == getattr(made, field).__doc__
            assert getattr(record, field).__get__(tuple(range(3))) == index
        assert record.__slots__ == () and record.__mro__[1:] == (tuple, object)
    three = Three(1, c=(2,))
    assert (three, three.b, repr(three)) == ((1, "b", (2,)), "b", "Three(a=1, b='b', c=(2,))")
    assert Three._make([1, "x", ()]) == three._replace(b="x", c=()) == (1, "x", ())
    assert three._asdict() == {"a": 1, "b": "b", "c": (2,)}
    assert copy.copy(three) == three and pickle.loads(pickle.dumps(One(5))) == One(5)
    assert repr(One(5)) == "One(only=5)"
    # Wrong calls fail as namedtuple's do, with its messages.
    same = namedtuple("Three", "a b c", defaults=("b", ()))
    calls: list[Callable[[Any], Any]] = [
        lambda t: t(),
        lambda t: t(1, d=2),
        lambda t: t(1, 2, 3, 4),
        lambda t: t(1, a=2),
    ]
    _fail_alike(Three, same, calls)
    with pytest.raises(TypeError, match="Expected 3 arguments, got 2"):
        Three._make([1, 2])
    with pytest.raises(ValueError, match=r"Got unexpected field names: \['d'\]"):
        three._replace(d=1)  # type: ignore[call-arg]


def test_records_of_one_size_share_nothing_but_their_positions() -> None:
    class Other(Record):
        x: int
        y: str = "y"
        z: tuple[int, ...] = (1,)

    assert Other(0) == (0, "y", (1,)) and Three(0) == (0, "b", ())
    assert repr(Other(0)) == "Other(x=0, y='y', z=(1,))" and Other(0)._fields == ("x", "y", "z")


@pytest.mark.parametrize("size", [0, 1, 2, 5, 31, 32, 33, 40])
def test_a_record_of_any_size_is_namedtuples_and_compiles_nothing_up_to_32_fields(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Up to 32 fields a record's __new__ is written out in model/records.py (compiling one was
    # 0.5M instructions of start-up a size); beyond, it compiles namedtuple's lambda.
    import builtins

    from tpuemb_cli.model import records

    records._shape.cache_clear()  # type: ignore[attr-defined]
    compiled: list[object] = []
    real = builtins.compile

    def compile_(*args: Any, **kwargs: Any) -> Any:
        compiled.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(builtins, "compile", compile_)
    fields = [f"field_{index}" for index in range(size)]
    record: Any = records._RecordMeta(  # type: ignore[attr-defined]
        "Wide", (Record,), {"__annotations__": dict.fromkeys(fields, "int"), "__module__": __name__}
    )
    monkeypatch.undo()
    made: Any = collections.namedtuple("Wide", fields)  # type: ignore[misc]
    assert len(compiled) == (1 if size > 32 else 0)
    values = list(range(size))
    assert record(*values) == tuple(values) == record(**dict(zip(fields, values, strict=True)))
    assert inspect.signature(record) == inspect.signature(made)
    assert record.__new__.__code__.co_varnames == made.__new__.__code__.co_varnames
    calls: list[Callable[[Any], Any]] = [
        lambda t: t(*values, 0),
        lambda t: t(*values[1:]) if size else t(x=1),
    ]
    _fail_alike(record, made, calls)
