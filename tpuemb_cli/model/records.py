"""``Record``: ``typing.NamedTuple`` for the type checker, a plain ``collections.namedtuple`` at
run time.

Every `tpuemb check` pays for the records its start-up path defines (findings, settings, inputs,
the catalog's rows: two dozen classes). ``typing.NamedTuple`` turns each annotation (a string,
under ``from __future__ import annotations``) into a ``ForwardRef``, compiling it: about 0.3 ms a
class, 5 ms of a 100 ms start-up. The records here are the same named tuples -- same fields,
defaults, methods, docstrings, ``_replace``, pickling -- built without that work. mypy sees
``typing.NamedTuple`` and checks them as such.

Nor does a record compile anything. ``collections.namedtuple`` compiles each class's
``__new__`` from source (``eval`` of a lambda naming the fields), about as costly as the rest of
the class: three dozen records made 3-4% of the start-up floor `tpuemb check` is measured
against. A record's ``__new__`` is that lambda's code for its number of fields (written out
below for up to 32 fields: compiling it once a size still cost 0.5M instructions a size) with the
parameters renamed to its fields -- ``CodeType.replace`` renames local variables without compiling -- so its signature,
defaults, keyword arguments and error messages are namedtuple's; the methods are namedtuple's,
made here as closures, and the fields' descriptors are namedtuple's (they read a position, not a
name).

    class Finding(Record):
        file: str
        fix: str = ""
"""

from __future__ import annotations

import collections
import functools
import sys
from typing import TYPE_CHECKING, Any

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    from types import CodeType, FunctionType

    # What the class body defines that is not a field, a method or a docstring of the record.
    _CLASS_KEYS = frozenset({"__module__", "__qualname__", "__annotations__", "__orig_bases__"})

    # namedtuple's ``__new__`` for 0, 1, 2, ... fields: the lambda it compiles (``collections``'
    # source), written out here so that no record compiles one when it is defined -- compiling is
    # 0.5M instructions a size, and the start-up path's records have 15 sizes (7.6M of the 280M of
    # `tpuemb check` on a one-table config). The parameters' names do not matter: a record's
    # ``__new__`` renames them to its fields. A record of more fields compiles its own.
    _tuple_new = tuple.__new__
    # fmt: off
    _NEW: tuple[FunctionType, ...] = (
        lambda _cls: _tuple_new(_cls, ()),
        lambda _cls, a,: _tuple_new(_cls, (a,)),
        lambda _cls, a, b: _tuple_new(_cls, (a, b)),
        lambda _cls, a, b, c: _tuple_new(_cls, (a, b, c)),
        lambda _cls, a, b, c, d: _tuple_new(_cls, (a, b, c, d)),
        lambda _cls, a, b, c, d, e: _tuple_new(_cls, (a, b, c, d, e)),
        lambda _cls, a, b, c, d, e, f: _tuple_new(_cls, (a, b, c, d, e, f)),
        lambda _cls, a, b, c, d, e, f, g: _tuple_new(_cls, (a, b, c, d, e, f, g)),
        lambda _cls, a, b, c, d, e, f, g, h: _tuple_new(_cls, (a, b, c, d, e, f, g, h)),
        lambda _cls, a, b, c, d, e, f, g, h, i: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad, ae: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad, ae)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad, ae, af: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad, ae, af)),
        lambda _cls, a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad, ae, af, ag: _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, ab, ac, ad, ae, af, ag)),
    )
    # fmt: on

    @functools.cache
    def _shape(size: int) -> tuple[FunctionType, tuple[Any, ...]]:
        """What ``collections.namedtuple`` would make for ``size`` fields ``f0``, ``f1``, ... and
        every record of that size shares: its ``__new__`` (namedtuple's lambda, in the namespace
        namedtuple evaluates it in) and its fields' descriptors (``_tuplegetter``s of the same
        positions and docstrings). Made without namedtuple's class, methods and checks, which the
        records never use: the start-up path's records have 15 sizes, and a whole namedtuple for
        each was 2.7M of the 283M instructions of `tpuemb check` on a one-table config."""
        namespace = {
            "_tuple_new": tuple.__new__,
            "__builtins__": {},
            "__name__": f"namedtuple_Record{size}",
        }
        if size < len(_NEW):
            code = _NEW[size].__code__
        else:
            fields = [f"f{index}" for index in range(size)]
            arguments = ", ".join(fields)
            source = f"lambda _cls, {arguments}: _tuple_new(_cls, ({arguments}))"
            # Compiled as collections compiles it: without this module's `from __future__` flags.
            compiled = compile(source, "<string>", "eval", dont_inherit=True)
            code = next(const for const in compiled.co_consts if isinstance(const, CodeType))
        new = FunctionType(code, namespace)
        # namedtuple's own descriptor for a field (the C one, or its fallback where there is none).
        getter = collections._tuplegetter  # type: ignore[attr-defined]
        return new, tuple(
            getter(index, sys.intern(f"Alias for field number {index}")) for index in range(size)
        )

    def _named_tuple(
        name: str, fields: tuple[str, ...], defaults: tuple[Any, ...], module: str | None
    ) -> Any:
        """``collections.namedtuple(name, fields, defaults=defaults, module=module)``, without
        compiling its ``__new__``."""
        template, getters = _shape(len(fields))
        arguments = ", ".join(fields) + ("," if len(fields) == 1 else "")
        new = FunctionType(
            template.__code__.replace(co_varnames=("_cls", *fields)),
            template.__globals__,
            "__new__",
            defaults or None,
        )
        new.__doc__ = f"Create new instance of {name}({arguments})"
        size = len(fields)
        representation = "(" + ", ".join(f"{field}=%r" for field in fields) + ")"

        @classmethod  # type: ignore[misc]
        def _make(cls: type, iterable: Any) -> Any:
            result = tuple.__new__(cls, iterable)
            if len(result) != size:
                raise TypeError(f"Expected {size} arguments, got {len(result)}")
            return result

        _make.__func__.__doc__ = f"Make a new {name} object from a sequence or iterable"

        def _replace(self: Any, /, **changes: Any) -> Any:
            result = self._make(map(changes.pop, fields, self))
            if changes:
                raise ValueError(f"Got unexpected field names: {list(changes)!r}")
            return result

        _replace.__doc__ = f"Return a new {name} object replacing specified fields with new values"

        def __repr__(self: Any) -> str:
            "Return a nicely formatted representation string"
            return str(self.__class__.__name__ + representation % self)

        def _asdict(self: Any) -> dict[str, Any]:
            "Return a new dict which maps field names to their values."
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self: Any) -> tuple[Any, ...]:
            "Return self as a plain tuple.  Used by copy and pickle."
            return tuple(self)

        for method in (new, _make.__func__, _replace, __repr__, _asdict, __getnewargs__):
            method.__qualname__ = f"{name}.{method.__name__}"
        namespace = {
            "__doc__": f"{name}({arguments})",
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": dict(
                zip(fields[len(fields) - len(defaults) :], defaults, strict=True)
            ),
            "__new__": new,
            "_make": _make,
            "_replace": _replace,
            "__repr__": __repr__,
            "_asdict": _asdict,
            "__getnewargs__": __getnewargs__,
            "__match_args__": fields,
        }
        for field, getter in zip(fields, getters, strict=True):
            namespace[field] = getter
        record = type(name, (tuple,), namespace)
        if module is not None:
            record.__module__ = module
        return record

    class _RecordMeta(type):
        def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
            if not bases:  # Record itself
                return super().__new__(mcs, name, bases, namespace)
            annotations = namespace.get("__annotations__", {})
            fields = tuple(map(sys.intern, annotations))
            defaults = []
            for field in fields:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(
                        f"{name}: field {field} without a default follows fields with one"
                    )
            record = _named_tuple(name, fields, tuple(defaults), namespace.get("__module__"))
            record.__annotations__ = annotations
            record.__qualname__ = namespace.get("__qualname__", name)
            for key, value in namespace.items():
                if key not in _CLASS_KEYS and key not in annotations:
                    setattr(record, key, value)
            return record

    class Record(metaclass=_RecordMeta):
        """Subclassed, a named tuple (see the module)."""
