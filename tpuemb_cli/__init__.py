"""tpuemb: a linter and toolkit for TensorFlow TPU embedding configurations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Finding", "Severity", "__version__", "lint_file", "lint_message", "lint_string"]

if TYPE_CHECKING:
    from tpuemb_cli.api import lint_file, lint_message, lint_string
    from tpuemb_cli.model.findings import Finding, Severity


class _Facades:
    """Finds ``tpuemb_cli.<name>`` for a registered front-end whose package holds its API
    (``FrontEnd.api``: ``tpuemb_cli.<name>`` is ``tpuemb_cli.frontends.<name>.api``), so that a
    front-end stays one package. Asked last (after the files here), and only for names no
    module of the package has."""

    @staticmethod
    def find_spec(fullname: str, path: Any = None, target: Any = None) -> Any:
        head, _, name = fullname.partition(".")
        if head != __name__ or not name or "." in name:
            return None
        from tpuemb_cli.frontends import facade

        module = facade(name)
        if not module:
            return None
        import importlib
        import importlib.util

        return importlib.util.spec_from_loader(fullname, _Alias(importlib.import_module(module)))


class _Alias:
    """Loads a facade's name as the front-end's API module itself (one module, two names)."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: Any) -> Any:
        return self.module

    def exec_module(self, module: Any) -> None:
        # The module ran when it was imported under its own name; the import system has just
        # set its ``__spec__`` to the alias's, which is given back: the module stays what it
        # was (``importlib.reload`` reruns its file, not this loader).
        module.__spec__ = self.spec

    def load_module(self, fullname: str) -> Any:  # the old protocol's: never called here
        return self.module


def _install() -> None:
    import sys

    # By its class's name, not isinstance: a reloaded package's class is another object.
    if not any(type(finder).__qualname__ == "_Facades" for finder in sys.meta_path):
        sys.meta_path.append(_Facades())


_install()


def __getattr__(name: str) -> Any:
    # Lazy, so that `tpuemb --version` and the CLI import only what they use.
    if name in ("lint_file", "lint_message", "lint_string"):
        from tpuemb_cli import api

        return getattr(api, name)
    if name in ("Finding", "Severity"):
        from tpuemb_cli.model import findings

        return getattr(findings, name)
    raise AttributeError(f"module 'tpuemb_cli' has no attribute {name!r}")
