"""A suppression that suppresses nothing.

## What it does
Reports a `# tpuemb: ignore[...]` or `file-ignore[...]` comment, or a `[[tool.tpuemb.suppress]]`
entry whose file was linted, that matched no finding. Suppressions of rules that are not enabled
are left alone.

## Why is this bad?
The finding it was written for is gone (the config was fixed, or the line moved), but the comment
stays, and will silently hide the next finding of that rule on that line.

## What TensorFlow does
Nothing: to TensorFlow these are comments.

## Example
```pbtxt
dimension: 16  # tpuemb: ignore[TE403] was 0 while the table was a placeholder
```

## Use instead
```pbtxt
dimension: 16
```

## Fix safety
Safe: `--fix` removes the comment (the whole line when it is alone on it). Entries in the
configuration are reported, not edited.

## Options
None.

## References
- docs/configuration.md, "Suppressions"
"""

from tpuemb_cli.model.edits import Fix, TextEdit
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath


def unused_comment(
    written: tuple[str, ...], removal: TextEdit, others: tuple[str, ...] = ()
) -> Violation:
    """A suppression comment that matched no finding; ``removal`` deletes it. ``others``: the
    rules it names that another command judges (`check` and `diff` read the same comments):
    then only ``written`` are said unused, and the comment is not removed."""
    if others:
        return Violation(
            (),
            f"this suppression of {', '.join(written)} suppresses nothing (its "
            f"{', '.join(others)} is another command's)",
            f"take {', '.join(written)} out of it",
        )
    return Violation(
        (),
        f"this suppression of {', '.join(written)} suppresses nothing",
        "remove it",
        Fix((removal,), safe=True, title="remove the unused suppression"),
    )


def unused_entry(rules: tuple[str, ...], file: str, field: str, at: FieldPath) -> Violation:
    """A configuration suppression (at ``at`` in its TOML file) that matched no finding."""
    return Violation(
        at,
        f"the suppression of {', '.join(rules)} for `{file}` (field `{field}`) suppresses nothing",
        "remove the entry",
    )
