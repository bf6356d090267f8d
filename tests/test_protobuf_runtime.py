"""The generated code loads quietly on the protobuf runtime installed (CI runs the suite on the
oldest and newest we support: `make test-protobuf-range`)."""

from __future__ import annotations

import subprocess
import sys

import google.protobuf


def test_imports_without_any_warning() -> None:
    # The spec's gencode is loaded by its own package (a config run does not import it).
    code = "import tpuemb_cli.cli, tpuemb_cli.engine, tpuemb_cli.pb.spec.embedding_spec_pb2"
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_runtime_is_in_the_supported_range() -> None:
    major, minor = (int(part) for part in google.protobuf.__version__.split(".")[:2])
    assert (5, 28) <= (major, minor) < (8, 0)
