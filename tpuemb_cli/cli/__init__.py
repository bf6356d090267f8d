"""The ``tpuemb`` command line: one module per command, built on the registries below it.

``main.py`` is the click group; ``check.py``, ``convert.py``, ``compile.py``, ``explain.py`` and
``rules.py`` each parse one command's options and carry it out; ``inputs.py`` reads the inputs,
``console.py`` is the short-lived process's entry point.
"""

from tpuemb_cli.cli.main import main

__all__ = ["main"]
