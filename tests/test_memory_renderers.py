"""The one memory interface (issue 37, point 2b): every model's report goes through one text and
one JSON renderer, which name no ecosystem; the corpus (tools/output_corpus.py) checks the
outputs byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tpuemb_cli.model.memory_report import ChipVerdict, MemoryReport, budget_for
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_text import render_text

VIEWS = Path(__file__).resolve().parent.parent / "tpuemb_cli" / "views"
ECOSYSTEMS = re.compile(r"jax|keras|tensorflow|sparsecore|tensorcore", re.IGNORECASE)


def test_the_renderers_name_no_ecosystem() -> None:
    for module in ("memory_text.py", "memory_json.py"):
        assert not ECOSYSTEMS.search((VIEWS / module).read_text()), module


def test_json_writes_the_head_then_the_models_fields_in_order() -> None:
    report = MemoryReport("toy", "t.cfg", {"b": 1, "a": [2]})
    expected = ["version", "engine", "file", "b", "a", "summary"]
    assert list(json.loads(render_json(report))) == expected


def test_text_lays_out_the_record_with_its_words() -> None:
    verdict = ChipVerdict(
        "x1", 100, 90, unit="unit", what="things", exceeded="too much", ask="do",
        advice=("  fewer things",),
    )  # fmt: skip
    report = MemoryReport(
        "toy", "t.cfg", heading="t.cfg: things", engine_line="engine: toy",
        columns=("thing", "bytes"), rows=(("a", "90 B"),), shares=(1.0,),
        notes=("total: 90 B",), chip=verdict,
    )  # fmt: skip
    text = render_text(report)
    assert text.splitlines()[:3] == ["t.cfg: things", "engine: toy", ""]
    assert "TPU x1: 100 B of HBM a unit; the things take 90.0% of it" in text
    assert (
        "fits, with less than 20% left for the rest of the program. What would leave 20%:" in text
    )
    assert text.endswith("  fewer things\n")


def test_budget_is_the_hbm_the_warning_share_or_none() -> None:
    assert budget_for(101, 100) == 100
    assert budget_for(90, 100) == 80
    assert budget_for(50, 100) is None
