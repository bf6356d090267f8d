"""--fix and --diff on generated configs full of fixable findings (tests/fix_properties.py says
which properties); fuzz/fuzz_fix.py is the long-running, coverage-guided counterpart."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from . import fix_properties

# A hypothesis sweep of whole --fix and --diff runs: `make test-slow`, not `make test`.
pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), unsafe=st.booleans())
def test_fix_and_diff_properties(data: st.DataObject, unsafe: bool) -> None:
    name, content = fix_properties.draw_config(lambda count: data.draw(st.integers(0, count - 1)))
    with tempfile.TemporaryDirectory() as folder:
        fix_properties.check(Path(folder), name, content, unsafe)
