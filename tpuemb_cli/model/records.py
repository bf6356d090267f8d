"""``Record``: ``typing.NamedTuple`` for the type checker, a plain ``collections.namedtuple`` at
run time.

Every `tpuemb check` pays for the records its start-up path defines (findings, settings, inputs,
the catalog's rows: two dozen classes). ``typing.NamedTuple`` turns each annotation (a string,
under ``from __future__ import annotations``) into a ``ForwardRef``, compiling it: about 0.3 ms a
class, 5 ms of a 100 ms start-up. The records here are the same named tuples -- same fields,
defaults, methods, docstrings, ``_replace``, pickling -- built without that work. mypy sees
``typing.NamedTuple`` and checks them as such.

Nor do most of them pay for ``collections.namedtuple``'s ``eval``, which compiles each class's
``__new__`` from source (a lambda taking the fields): a record of up to nine fields gets that
lambda's code, compiled with this module, with its fields' names put in; the rest of the class is
built as ``collections.namedtuple`` builds it (tests/test_records.py compares the two on the
running Python), and a record of more fields is left to namedtuple. A `tpuemb check` defines 29
records, 23 of nine fields or fewer.

    class Finding(Record):
        file: str
        fix: str = ""
"""

from __future__ import annotations

import keyword
import sys
import types
from typing import TYPE_CHECKING, Any

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    import collections
    from collections import _tuplegetter

    # namedtuple's own error for a field `_replace` does not have: ValueError before 3.13.
    _REPLACE_ERROR = TypeError if sys.version_info >= (3, 13) else ValueError

    _tuple_new = tuple.__new__
    # namedtuple's ``__new__`` for records of up to nine fields, compiled with this module: it
    # evals ``lambda _cls, <fields>: _tuple_new(_cls, (<fields>))``, the same code with the
    # fields' names. Records of more fields are left to namedtuple.
    _NEW = (
        lambda _cls: _tuple_new(_cls, ()),
        lambda _cls, a: _tuple_new(_cls, (a,)),
        lambda _cls, a, b: _tuple_new(_cls, (a, b)),
        lambda _cls, a, b, c: _tuple_new(_cls, (a, b, c)),
        lambda _cls, a, b, c, d: _tuple_new(_cls, (a, b, c, d)),
        lambda _cls, a, b, c, d, e: _tuple_new(_cls, (a, b, c, d, e)),
        lambda _cls, a, b, c, d, e, f: _tuple_new(_cls, (a, b, c, d, e, f)),
        lambda _cls, a, b, c, d, e, f, g: _tuple_new(_cls, (a, b, c, d, e, f, g)),
        lambda _cls, a, b, c, d, e, f, g, h: _tuple_new(_cls, (a, b, c, d, e, f, g, h)),
        lambda _cls, a, b, c, d, e, f, g, h, i: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i)),
    )
    _BUILTINS: dict[str, Any] = {}

    # What the class body defines that is not a field, a method or a docstring of the record.
    _CLASS_KEYS = frozenset({"__module__", "__qualname__", "__annotations__", "__orig_bases__"})

    class _RecordMeta(type):
        def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
            if not bases:  # Record itself
                return super().__new__(mcs, name, bases, namespace)
            annotations = namespace.get("__annotations__", {})
            fields = list(annotations)
            defaults = []
            for field in fields:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(
                        f"{name}: field {field} without a default follows fields with one"
                    )
            record = _namedtuple(
                name, fields, defaults=defaults or None, module=namespace.get("__module__")
            )
            record.__annotations__ = annotations
            record.__qualname__ = namespace.get("__qualname__", name)
            for key, value in namespace.items():
                if key not in _CLASS_KEYS and key not in annotations:
                    setattr(record, key, value)
            return record

    def _namedtuple(
        typename: str, field_names: list[str], *, defaults: list[Any] | None, module: str | None
    ) -> Any:
        """``collections.namedtuple(typename, field_names, defaults=defaults, module=module)``,
        with its ``__new__`` made from a template instead of compiled from source; the rest as
        namedtuple builds it (Python 3.10 to 3.13). Checks only what a record can get wrong (its
        fields are annotations: identifiers, unique)."""
        fields = tuple(map(sys.intern, field_names))
        for field in fields:
            if field.startswith("_") or keyword.iskeyword(field):
                raise ValueError(f"{typename}: {field!r} cannot be a record's field")
        num_fields = len(fields)
        if num_fields >= len(_NEW):
            return collections.namedtuple(typename, fields, defaults=defaults, module=module)
        arg_list = ", ".join(fields) + ("," if num_fields == 1 else "")
        field_defaults: dict[str, Any] = {}
        if defaults is not None:
            defaults = tuple(defaults)
            field_defaults = dict(zip(fields[num_fields - len(defaults) :], defaults, strict=True))
        repr_fmt = "(" + ", ".join(f"{name}=%r" for name in fields) + ")"
        tuple_new = tuple.__new__

        # The fields' names are only the code object's names of its locals: its bytecode refers
        # to them by position, so the template's code with the names replaced is namedtuple's.
        code = _NEW[num_fields].__code__.replace(co_varnames=("_cls", *fields))
        namespace = {
            "_tuple_new": tuple_new,
            "__builtins__": _BUILTINS,
            "__name__": f"namedtuple_{typename}",
        }
        __new__ = types.FunctionType(code, namespace, "__new__")
        __new__.__doc__ = f"Create new instance of {typename}({arg_list})"
        if defaults is not None:
            __new__.__defaults__ = defaults

        @classmethod
        def _make(cls: type, iterable: Any) -> Any:
            result = tuple_new(cls, iterable)
            if len(result) != num_fields:
                raise TypeError(f"Expected {num_fields} arguments, got {len(result)}")
            return result

        _make.__func__.__doc__ = f"Make a new {typename} object from a sequence or iterable"

        def _replace(self: Any, /, **kwds: Any) -> Any:
            result = self._make(map(kwds.pop, fields, self))
            if kwds:
                raise _REPLACE_ERROR(f"Got unexpected field names: {list(kwds)!r}")
            return result

        _replace.__doc__ = (
            f"Return a new {typename} object replacing specified fields with new values"
        )

        def __repr__(self: Any) -> str:
            "Return a nicely formatted representation string"
            return self.__class__.__name__ + repr_fmt % self

        def _asdict(self: Any) -> dict[str, Any]:
            "Return a new dict which maps field names to their values."
            return dict(zip(self._fields, self, strict=False))

        def __getnewargs__(self: Any) -> tuple[Any, ...]:
            "Return self as a plain tuple.  Used by copy and pickle."
            return tuple(self)

        for method in (__new__, _make.__func__, _replace, __repr__, _asdict, __getnewargs__):
            method.__qualname__ = f"{typename}.{method.__name__}"

        class_namespace: dict[str, Any] = {
            "__doc__": f"{typename}({arg_list})",
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": field_defaults,
            "__new__": __new__,
            "_make": _make,
            "_replace": _replace,
            "__repr__": __repr__,
            "_asdict": _asdict,
            "__getnewargs__": __getnewargs__,
            "__match_args__": fields,
        }
        if sys.version_info >= (3, 13):
            class_namespace["__replace__"] = _replace
        for index, name in enumerate(fields):
            doc = sys.intern(f"Alias for field number {index}")
            class_namespace[name] = _tuplegetter(index, doc)
        result = type(typename, (tuple,), class_namespace)
        if module is not None:
            result.__module__ = module
        return result

    class Record(metaclass=_RecordMeta):
        """Subclassed, a named tuple (see the module)."""
