"""``python -m tpuemb_cli``, and the ``tpuemb`` console script: ``cli.console.run``.

Two things are done here, in a process that is tpuemb's alone, before the ``tpuemb_cli.cli``
package is imported:

- the cyclic garbage collector is turned off (cli/console.py says why it can be): that package
  imports click, and importing it with the collector on ran a dozen collections over objects none
  of which is garbage;
- the standard ``calendar`` module is deferred: protobuf's runtime imports it (for
  ``Timestamp.FromDatetime``, which tpuemb never calls) when the first message class is made, and
  with it ``locale``, 5-6M instructions of a one-file check's start-up (bench/startup.py). The
  module in its place imports the real one the first time anything is read from it.
"""

import gc
import sys
from types import ModuleType
from typing import Any


class _Deferred(ModuleType):
    """A standard module that is imported the first time one of its attributes is read."""

    def __getattr__(self, name: str) -> Any:
        # Called for what this namespace lacks: everything, until the real module is imported.
        module = sys.modules.get(self.__name__)
        if module is None or module is self:
            sys.modules.pop(self.__name__, None)
            module = __import__(self.__name__)
            self.__dict__.update(module.__dict__)  # for those that imported this one
        return getattr(module, name)


def _defer(name: str) -> None:
    if name not in sys.modules:
        sys.modules[name] = _Deferred(name)


def run() -> None:
    gc.disable()
    _defer("calendar")
    from tpuemb_cli.cli.console import run as run_console

    run_console()


if __name__ == "__main__":
    run()
