"""Coverage-guided fuzzing of --fix and --diff with atheris (`make fuzz-fix`).

    python fuzz/fuzz_fix.py [libFuzzer options] [corpus folder]

Each input either draws a config full of fixable findings (its bytes are the draws: dynamic tags
with gaps, reversed clipping ranges, weight-decay multipliers with no decay, FTRL's deprecated
flag, unused suppressions; CRLF, BOM, odd line-break characters in comments, no final newline;
text or JSON), or is itself the file (libFuzzer's mutations of configs it has seen). Then
tests/fix_properties.py checks: the fixed file parses, a second --fix changes nothing, --diff
applied by `git apply` gives what --fix writes, and no finding is lost or invented except those
fixed. libFuzzer writes a failing input as crash-<hash> in the working folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.fix_properties

with atheris.instrument_imports():
    from tests import fix_properties
    from tpuemb_cli.cli import fixing  # noqa: F401  (instrumented before first use)
    from tpuemb_cli.fix import apply, atomic, write  # noqa: F401
    from tpuemb_cli.load.encodings import json as json_codec  # noqa: F401
    from tpuemb_cli.load.encodings import text as text_codec  # noqa: F401

# In the working folder (build/fuzz/fix with `make fuzz-fix`): libFuzzer ends the process without
# running exit handlers, so a temporary folder would be left behind.
FOLDER = Path("work").resolve()
FOLDER.mkdir(exist_ok=True)


def one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    mode = provider.ConsumeIntInRange(0, 3)
    unsafe = provider.ConsumeBool()
    if mode == 0:  # the bytes are the file
        name = "model.json" if provider.ConsumeBool() else "model.pbtxt"
        content = provider.ConsumeBytes(provider.remaining_bytes())
    else:

        def draw(count: int) -> int:
            return provider.ConsumeIntInRange(0, count - 1)

        name, content = fix_properties.draw_config(draw)
    fix_properties.check(FOLDER, name, content, unsafe)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
