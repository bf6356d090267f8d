"""Coverage-guided fuzzing of ``check --add-suppressions`` with atheris.

    python fuzz/fuzz_baseline.py [libFuzzer options]

The fuzzer's bytes drive the generator of tests/baseline_property.py (mutated configs with
findings, headers, BOM, CRLF, suppression comments, configuration files in every TOML layout),
and each project is baselined in a fresh temporary folder. A failed property (the configuration
broken or a setting lost, a second run that changes a byte, a finding lost or invented) or any
exception is a crash: libFuzzer writes the input as crash-<hash>; replay it with
``python fuzz/fuzz_baseline.py crash-<hash>``, and add the project it generates to
tests/test_baseline.py.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.baseline_property

with atheris.instrument_imports():
    # What the baseline runs, imported here so that it is instrumented (the CLI imports most of
    # it lazily, on first use).
    import tomlkit  # noqa: F401

    import tpuemb_cli.cli.fixing
    import tpuemb_cli.engine.baseline
    import tpuemb_cli.engine.suppressions  # noqa: F401
    from tests.baseline_property import check_baseline, generate
    from tpuemb_cli.rules import all_rules

    all_rules()


class _Bytes:
    """The generator's choices, taken from the fuzzer's input (0 once it runs out)."""

    def __init__(self, data: bytes) -> None:
        self.provider = atheris.FuzzedDataProvider(data)

    def integer(self, count: int) -> int:
        return int(self.provider.ConsumeIntInRange(0, count - 1))

    def text(self) -> str:
        return str(self.provider.ConsumeUnicodeNoSurrogates(12))


def one_input(data: bytes) -> None:
    project = generate(_Bytes(data))
    with tempfile.TemporaryDirectory() as root:
        check_baseline(project, Path(root))


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
