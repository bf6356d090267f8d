"""The package's import hook (``tpuemb_cli/__init__.py``, ``_Facades``): ``tpuemb_cli.<name>``
is the API module a registered front-end names on its record (``FrontEnd.api``), whichever way
it is imported, and nothing else; the hook is installed once, asked after the package's own
files, and costs the start-up nothing (``tpuemb --version`` imports no front-end).

Each test runs in a fresh interpreter: the import system's caches are what is tested.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _python(code: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *options, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_way_of_importing_the_facade_gives_the_api_module() -> None:
    done = _python(
        """
        import importlib, sys
        import tpuemb_cli.torchrec
        import tpuemb_cli.torchrec as named
        from tpuemb_cli.torchrec import spec_from_torchrec
        from tpuemb_cli import torchrec
        imported = importlib.import_module("tpuemb_cli.torchrec")
        real = sys.modules["tpuemb_cli.frontends.torchrec.api"]
        assert tpuemb_cli.torchrec is named is torchrec is imported is real
        assert sys.modules["tpuemb_cli.torchrec"] is real
        assert spec_from_torchrec is real.spec_from_torchrec
        # One module, two names: it keeps its own (its spec too, which reload reads).
        print(real.__name__, real.__spec__.name, type(real.__spec__.loader).__name__)
        importlib.reload(real)
        print(sys.modules["tpuemb_cli.torchrec"] is sys.modules[real.__name__])
        """
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == (
        "tpuemb_cli.frontends.torchrec.api tpuemb_cli.frontends.torchrec.api SourceFileLoader\n"
        "True\n"
    )


def test_a_name_no_front_end_has_is_no_module() -> None:
    done = _python(
        """
        import importlib
        for name in ("tpuemb_cli.nope", "tpuemb_cli.torchrec.x", "tpuemb_cli.keras_rs"):
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as error:
                print(error)
        try:
            import tpuemb_cli.nope
        except ModuleNotFoundError as error:
            print(type(error).__name__, error.name)
        try:
            from tpuemb_cli.torchrec import nothing
        except ImportError as error:
            print(type(error).__name__, error)
        """
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == (
        "No module named 'tpuemb_cli.nope'\n"
        "No module named 'tpuemb_cli.torchrec.x'; 'tpuemb_cli.torchrec' is not a package\n"
        "No module named 'tpuemb_cli.keras_rs'\n"
        "ModuleNotFoundError tpuemb_cli.nope\n"
        "ImportError cannot import name 'nothing' from 'tpuemb_cli.frontends.torchrec.api' "
        f"({_api_file()})\n"
    )


def _api_file() -> str:
    from tpuemb_cli.frontends.torchrec import api

    return str(api.__file__)


def test_the_package_s_own_modules_come_first() -> None:
    # `tpuemb_cli.jax` is a file of the package: the hook is never asked for it.
    done = _python(
        """
        import sys
        import tpuemb_cli
        # The standard finders are classes, the hook an instance.
        finders = [getattr(f, "__name__", type(f).__name__) for f in sys.meta_path]
        print(finders.count("_Facades"), finders.index("_Facades") > finders.index("PathFinder"))
        import tpuemb_cli.jax
        print(tpuemb_cli.jax.__spec__.name, tpuemb_cli.jax.__file__.endswith("tpuemb_cli/jax.py"))
        """
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == "1 True\ntpuemb_cli.jax True\n"


def test_the_hook_is_installed_once() -> None:
    done = _python(
        """
        import importlib, sys
        import tpuemb_cli
        importlib.reload(tpuemb_cli)
        importlib.reload(tpuemb_cli)
        print(sum(type(finder).__name__ == "_Facades" for finder in sys.meta_path))
        import tpuemb_cli.torchrec
        print(tpuemb_cli.torchrec.__name__)
        """
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == "1\ntpuemb_cli.frontends.torchrec.api\n"


def test_importing_the_package_imports_no_front_end() -> None:
    done = _python(
        """
        import sys
        import tpuemb_cli
        print(sorted(name for name in sys.modules if name.startswith("tpuemb_cli")))
        """
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == "['tpuemb_cli']\n"


def test_the_version_start_up_imports_no_front_end() -> None:
    done = _python(
        "import runpy, sys\n"
        "sys.argv = ['tpuemb', '--version']\n"
        "runpy.run_module('tpuemb_cli', run_name='__main__')\n",
        "-X",
        "importtime",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("tpuemb, version ")
    imported = [line.rpartition("|")[2].strip() for line in done.stderr.splitlines()]
    ours = [name for name in imported if name.startswith("tpuemb_cli")]
    assert "tpuemb_cli.cli.main" in ours  # the log is read: the command line was imported
    # The registration module (frontends/__init__.py, read by load/encodings) is imported, as
    # it was before any facade; no front-end's record or module is, and no facade.
    assert [name for name in ours if name.startswith("tpuemb_cli.frontends.")] == []
    assert "tpuemb_cli.torchrec" not in ours
