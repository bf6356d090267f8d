"""What a walked pickle is made of besides plain data: the error, class references, objects
never made, persistent ids."""

from __future__ import annotations

from dataclasses import dataclass, field


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


def kind(value: object) -> str:
    if isinstance(value, Global):
        return f"class reference {value}"
    if isinstance(value, Object):
        return "object"
    return type(value).__name__
