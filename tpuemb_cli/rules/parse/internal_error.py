"""tpuemb failed on this file: a bug in tpuemb, reported on the file instead of stopping the run.

## What it does
Reports an unexpected exception raised while tpuemb read, linted or fixed one file -- inside a
rule ("internal error in rule TE402 (duplicate-table-name): ...") or in the loader -- as a
finding on that file, with the exception and where in tpuemb it was raised. The other rules still
run on the file, every other file is still linted and reported, and the run exits with code 2
(the tool could not do its whole job), whatever the findings.

It is not a lint opinion, so it cannot be turned off: `select`, `ignore`, `per-file-ignores` and
suppressions do not hide it.

## Why is this bad?
The file was not fully checked: a rule that failed found nothing, and mistakes it would have
reported may be there. Without this finding one bad file would stop the whole run, and the other
files would get no report at all.

## What TensorFlow does
Nothing: this is about tpuemb, not the file. TensorFlow may accept the file or refuse it; the
other findings on it still say what tpuemb could check.

## Example
```pbtxt
# A config that made a rule of an older tpuemb fail (an input it did not expect):
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
```

## Use instead
Nothing to change in the file: report the finding (with the file, or the smallest part of it that
still fails) to tpuemb's maintainers. `TPUEMB_DEBUG=1 tpuemb check FILE` prints the traceback.

## Fix safety
No automatic fix: the bug is in tpuemb.

## Options
None (it cannot be selected away).

## References
- docs/usage.md, "Exit codes"
"""

from __future__ import annotations

import traceback

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation

_REPORT = (
    "this is a bug in tpuemb: please report it, with the file (TPUEMB_DEBUG=1 shows the traceback)"
)


def where(error: BaseException) -> str:
    """Where the exception was raised, below the code that caught it: the innermost place in
    tpuemb's own code (``rules/config/x.py:42``), else the innermost place at all."""
    frames = traceback.extract_tb(error.__traceback__)[1:]  # the first is the catcher's
    ours = [f for f in frames if "/tpuemb_cli/" in f.filename.replace("\\", "/")]
    if not (ours or frames):
        return ""
    frame = (ours or frames)[-1]
    name = frame.filename.replace("\\", "/")
    name = name.split("/tpuemb_cli/")[-1] if ours else name.rsplit("/", 1)[-1]
    return f"{name}:{frame.lineno}"


def crashed(during: str, error: BaseException) -> Violation:
    """An unexpected exception ``during`` something ("in rule TE402 (duplicate-table-name)",
    "while loading the file")."""
    at = where(error)
    text = shown(str(error), 200)
    described = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return Violation(
        (), f"internal error {during}: {described}" + (f" (at {at})" if at else ""), _REPORT
    )
