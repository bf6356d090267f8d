"""``Record``: ``typing.NamedTuple`` for the type checker, a plain ``collections.namedtuple`` at
run time.

Every `tpuemb check` pays for the records its start-up path defines (findings, settings, inputs,
the catalog's rows: two dozen classes). ``typing.NamedTuple`` turns each annotation (a string,
under ``from __future__ import annotations``) into a ``ForwardRef``, compiling it: about 0.3 ms a
class, 5 ms of a 100 ms start-up. The records here are the same named tuples -- same fields,
defaults, methods, docstrings, ``_replace``, pickling -- built without that work. mypy sees
``typing.NamedTuple`` and checks them as such.

    class Finding(Record):
        file: str
        fix: str = ""
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
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
            record = collections.namedtuple(
                name, fields, defaults=defaults or None, module=namespace.get("__module__")
            )
            record.__annotations__ = annotations
            record.__qualname__ = namespace.get("__qualname__", name)
            for key, value in namespace.items():
                if key not in _CLASS_KEYS and key not in annotations:
                    setattr(record, key, value)
            return record

    class Record(metaclass=_RecordMeta):
        """Subclassed, a named tuple (see the module)."""
