"""A suppression comment that is refused: no rules, an unknown rule, no reason, or misplaced.

## What it does
Reports a `# tpuemb: ignore[...]` or `# tpuemb: file-ignore[...]` comment that tpuemb does not
apply, and says why: it names no rules (`# tpuemb: ignore` alone would hide every finding on the
line, including ones nobody has looked at), names a rule that does not exist (with the rule name
it is closest to, when one is close: `unused-tabel` gets "did you mean `unused-table`?"), gives no
reason (when `require-reason` is on, the default), or is a `file-ignore` below the first field.

## Why is this bad?
A suppression is a decision someone made about a finding; without the rule it is about and the
reason, the next reader cannot tell whether the decision still holds. A refused suppression also
hides nothing, so the finding it meant to silence is still reported.

## What TensorFlow does
Nothing: to TensorFlow these are comments.

## Example
```pbtxt
table_descriptor { name: "legacy" dimension: 0 }  # tpuemb: ignore
```

## Use instead
```pbtxt
table_descriptor { name: "legacy" dimension: 0 }  # tpuemb: ignore[TE403] sized by the launcher
```

## Fix safety
No automatic fix.

## Options
`require-reason` (default true) in `[tool.tpuemb]`.

## References
- docs/configuration.md, "Suppressions"
"""

from tpuemb_cli.model.findings import Violation


def without_rules(kind: str) -> Violation:
    return Violation(
        (),
        f"`# tpuemb: {kind}` without rules would hide every finding; it is not applied",
        f"name the rules: `# tpuemb: {kind}[TE406] why`",
    )


def unknown_rule(written: str) -> Violation:
    from tpuemb_cli.model.nearest import nearest  # only for a suppression that names no rule
    from tpuemb_cli.rules import CATALOG

    # Rule names only: codes are numbers, too alike for closeness to mean anything.
    close = nearest(written, [entry.name for entry in CATALOG])
    if close is not None:
        return Violation(
            (),
            f"unknown rule {written!r} in a suppression (did you mean `{close}`?); it is not "
            "applied",
            f"use `{close}`",
        )
    return Violation(
        (),
        f"unknown rule {written!r} in a suppression; it is not applied",
        "use a code (TE406) or name (unused-table) from `tpuemb rules`",
    )


def without_reason(kind: str, written: tuple[str, ...]) -> Violation:
    return Violation(
        (),
        f"the suppression of {', '.join(written)} gives no reason; it is not applied",
        f"say why after the rules: `# tpuemb: {kind}[{','.join(written)}] reason`",
    )


def file_ignore_after_fields() -> Violation:
    return Violation(
        (),
        "`# tpuemb: file-ignore` must come before the first field; it is not applied",
        "move it to the top of the file",
    )
