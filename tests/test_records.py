"""model/records.Record: the named tuples typing.NamedTuple makes, made for less at start-up."""

from __future__ import annotations

import collections
import inspect
import pickle
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


def _built_by_namedtuple(record: Any) -> Any:
    fields = record._fields
    defaults = record._field_defaults
    return collections.namedtuple(
        record.__name__,
        fields,
        defaults=[defaults[name] for name in fields if name in defaults] or None,
        module=record.__module__,
    )


class Empty(Record):
    pass


class One(Record):
    only: str


class Many(Record):
    a: int
    b: str
    c: tuple[int, ...] = ()
    d: Severity | None = None


class Wide(Record):
    """Ten fields: more than the module has a compiled ``__new__`` for."""

    a: int
    b: int
    c: int
    d: int
    e: int
    f: int
    g: int
    h: int
    i: int
    j: int = 0


@pytest.mark.parametrize("record", [Empty, One, Many, Point, Finding, Position, Wide])
def test_a_record_is_the_class_collections_namedtuple_builds(record: Any) -> None:
    """Records build their ``__new__`` from a template instead of namedtuple's ``eval``; every
    other attribute, and every method's behaviour, is namedtuple's on the running Python."""
    reference = _built_by_namedtuple(record)
    # __slotnames__: copyreg's cache, once an instance was pickled.
    skip = {"__annotations__", "__slotnames__"}
    ours = {key: value for key, value in vars(record).items() if key not in skip}
    theirs = dict(vars(reference))
    # Everything namedtuple defines (the class body adds its docstring and methods).
    assert set(theirs) - set(ours) == set()
    for key in ("_fields", "_field_defaults", "__match_args__", "__slots__", "__module__"):
        assert ours[key] == theirs[key], key
    for key in [k for k in theirs if k in record._fields]:
        assert (ours[key].__doc__, type(ours[key])) == (theirs[key].__doc__, type(theirs[key]))
    ours_new, theirs_new = record.__new__, reference.__new__
    assert inspect.signature(ours_new) == inspect.signature(theirs_new)
    for attribute in ("__name__", "__qualname__", "__doc__", "__defaults__", "__module__"):
        assert getattr(ours_new, attribute) == getattr(theirs_new, attribute), attribute
    assert ours_new.__code__.co_code == theirs_new.__code__.co_code
    assert ours_new.__code__.co_varnames == theirs_new.__code__.co_varnames
    for name in ("_make", "_replace", "__repr__", "_asdict", "__getnewargs__", "__replace__"):
        if name in theirs:
            method, expected = getattr(record, name), getattr(reference, name)
            assert (method.__doc__, method.__qualname__) == (
                expected.__doc__,
                expected.__qualname__,
            )
    # The same instances, methods and errors.
    values = tuple(range(len(record._fields)))
    mine, same = record(*values), reference(*values)
    assert (tuple(mine), repr(mine).split("(", 1)[1]) == (tuple(same), repr(same).split("(", 1)[1])
    assert mine._asdict() == same._asdict() and mine.__getnewargs__() == same.__getnewargs__()
    assert tuple(record._make(values)) == tuple(reference._make(values))
    if values:
        assert tuple(mine._replace(**{record._fields[0]: 9})) == tuple(
            same._replace(**{reference._fields[0]: 9})
        )
    errors: list[object] = []
    for cls in (record, reference):
        try:
            cls(*values)._replace(nope=1)
        except (TypeError, ValueError) as error:  # which one is what is compared
            errors.append((type(error), str(error)))
    assert errors[0] == errors[1]
    for cls in (record, reference):
        with pytest.raises(TypeError) as raised:
            cls._make((*values, 1))
        errors.append(str(raised.value))
    assert errors[2] == errors[3]
    if values:
        assert record(**dict(zip(record._fields, values, strict=True))) == mine
