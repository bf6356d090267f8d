"""toyemb's rules: their catalog rows (appended to tpuemb's), one module each here."""

from __future__ import annotations

from tpuemb_cli.model.findings import Severity
from tpuemb_cli.rules import Entry

CATALOG = (
    Entry("TE981", "toy-empty-table", "toy", Severity.ERROR, "no", ("toy",), home=__name__),
    Entry("TE982", "toy-narrow-table", "toy", Severity.WARNING, "no", ("toy",), home=__name__),
)
