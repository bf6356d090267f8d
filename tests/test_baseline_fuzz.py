"""``--add-suppressions`` on generated projects (hypothesis; fuzz/fuzz_baseline.py is the
coverage-guided counterpart): mutated configs with findings, headers, BOM, CRLF, suppression
comments, and configuration files in every layout TOML allows. The properties are in
tests/baseline_property.py: the result parses, a second run is a no-op, and no finding is lost
or invented except those suppressed."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .baseline_property import check_baseline, generate

# A hypothesis sweep of whole projects: `make test-slow`, not `make test`.
pytestmark = pytest.mark.slow


class _Draws:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, count: int) -> int:
        return self.data.draw(st.integers(0, count - 1))

    def text(self) -> str:
        return self.data.draw(st.text(max_size=12))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_add_suppressions_properties(data: st.DataObject) -> None:
    project = generate(_Draws(data))
    with tempfile.TemporaryDirectory() as root:
        check_baseline(project, Path(root))
