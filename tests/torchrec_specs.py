"""TorchRec specs in text, linted as `tpuemb check` lints them (for the rules' tests)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli import lint_string


def findings_of(text: str, tpu: str | None = None) -> list[tuple[Any, ...]]:
    """Each finding of the TorchRecSpec ``text``: (rule, path, message, fix)."""
    found = lint_string(text, "spec.pbtxt", message_type="TorchRecSpec", tpu=tpu, isolated=True)
    return [(f.rule, f.path, f.message, f.fix) for f in found]


def findings_of_rule(code: str, text: str) -> list[tuple[Any, ...]]:
    """``findings_of(text)``'s findings of the rule ``code``: (path, message, fix)."""
    return [finding[1:] for finding in findings_of(text) if finding[0] == code]
