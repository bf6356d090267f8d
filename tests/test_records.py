"""model/records.Record: the named tuples typing.NamedTuple makes, made for less at start-up."""

from __future__ import annotations

import pickle
from typing import NamedTuple

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
