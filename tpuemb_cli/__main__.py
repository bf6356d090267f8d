"""``python -m tpuemb_cli``, and the ``tpuemb`` console script: ``cli.console.run``.

Two things are done here, in a process that is tpuemb's alone, before the ``tpuemb_cli.cli``
package is imported:

- the cyclic garbage collector is turned off (cli/console.py says why it can be): that package
  imports click, and importing it with the collector on ran a dozen collections over objects none
  of which is garbage;
- modules the protobuf runtime imports and a check never uses are deferred (``DEFERRED``): each
  is imported the first time anything is read from it, so that nothing changes but when -- and
  whether -- the import is paid for. Together they were 5-6M instructions of a one-file check's
  start-up (bench/startup.py).
"""

import gc
import sys
from _thread import RLock
from types import ModuleType
from typing import Any

# What the protobuf runtime imports whichever implementation runs, and what each is for:
DEFERRED = (
    # Timestamp.FromDatetime and its kin (well_known_types), with `locale`, which it imports.
    "calendar",
    # The pure-Python implementation of messages (which descriptor_pool and the gencode's
    # builder import; upb, the default, and cpp never use it), and the pure-Python descriptor
    # pool's database and edition defaults.
    "google.protobuf.internal.python_message",
    "google.protobuf.descriptor_database",
    "google.protobuf.internal.python_edition_defaults",
)


# One import of a deferred module at a time: the language server reads files on threads, and a
# second thread must wait for the import the first started (as an `import` statement would), not
# read the half-made module or make another. Reentrant, for a module whose import reads itself.
_IMPORTING = RLock()


class _Deferred(ModuleType):
    """A module that is imported the first time one of its attributes is read.

    Until then it is only a name: it has no ``__spec__`` (``importlib.util.find_spec`` refuses
    it), and an attribute set on it is not the real module's. Nothing in tpuemb does either with
    the modules it defers."""

    def __getattr__(self, name: str) -> Any:
        # Called for what this namespace lacks: everything, until the real module is imported.
        with _IMPORTING:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            __import__(self.__name__)
            module = sys.modules[self.__name__]
            if self.__spec__ is None:  # once: for those that imported this one
                self.__dict__.update(module.__dict__)
        return getattr(module, name)


def _defer(name: str) -> None:
    """Puts a ``_Deferred`` in place of module ``name``, unless it is imported already; its
    package, imported first, holds it as ``from package import name`` expects."""
    if name in sys.modules:
        return
    package, _, leaf = name.rpartition(".")
    if package:
        __import__(package)
    deferred = sys.modules[name] = _Deferred(name)
    if package:
        setattr(sys.modules[package], leaf, deferred)


def run() -> None:
    gc.disable()
    for name in DEFERRED:
        _defer(name)
    from tpuemb_cli.cli.console import run as run_console

    run_console()


if __name__ == "__main__":
    run()
