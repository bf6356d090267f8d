"""Every TorchRec rule's documented example is a TorchRecSpec it reports, and its "Use instead"
one it does not: the documentation's claims, run (each pbtxt block of the two sections)."""

from __future__ import annotations

import re

import pytest

from tests.torchrec_specs import findings_of
from tpuemb_cli.rules import CATALOG

RULES = [entry for entry in CATALOG if entry.family == "torchrec"]
BLOCK = re.compile(r"```pbtxt\n(.*?)```", re.DOTALL)


def _blocks(doc: str, section: str, until: str) -> list[str]:
    return BLOCK.findall(doc.split(section, 1)[1].split(until, 1)[0])


@pytest.mark.parametrize("entry", RULES, ids=lambda entry: entry.code)
def test_the_example_is_reported_and_the_fix_is_not(entry: object) -> None:
    import importlib

    module = importlib.import_module(entry.module)  # type: ignore[attr-defined]
    doc = module.__doc__ or ""
    examples = _blocks(doc, "## Example", "## Use instead")
    fixes = _blocks(doc, "## Use instead", "## Fix safety")
    assert examples and fixes
    for text in examples:
        codes = [rule for rule, *_ in findings_of(text)]
        assert entry.code in codes, (text, codes)  # type: ignore[attr-defined]
    for text in fixes:
        codes = [rule for rule, *_ in findings_of(text)]
        assert entry.code not in codes, (text, codes)  # type: ignore[attr-defined]
