"""`lint_tf`, `lint_jax` and `lint_keras` lint through the workspace, as `lint_file` does: the
working directory's `.tpuemb.toml` selects and ignores rules and names the chip, the API's `tpu`
names it too, and `isolated=True` reads no configuration. The libraries' objects are the tests'
stand-ins (tests/jax_objects.py, tests/keras_objects.py, attribute bags for TensorFlow's)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.jax_objects import FeatureSpec, TableSpec
from tests.keras_objects import Adagrad, DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.engine.settings import SettingsError
from tpuemb_cli.jax import lint_jax
from tpuemb_cli.keras import lint_keras
from tpuemb_cli.tf import lint_tf


class SGD:  # read by its class name, as TensorFlow's
    learning_rate = 0.1


def _tf(rows: int = 10, hosts: int = 32, **options: Any) -> list[str]:
    """A TensorFlow table of ``rows`` on ``hosts``: below the host count (TE709), and past a
    chip's HBM when the rows are many (TE601 with a chip)."""
    table = SimpleNamespace(
        name="video", vocabulary_size=rows, dim=256, combiner="mean", optimizer=None
    )
    feature = SimpleNamespace(table=table, name="f", max_sequence_length=0, output_shape=[16])
    topology: dict[str, Any] = {"num_hosts": hosts, "cores_per_host": 4}
    return [f.rule for f in lint_tf([feature], SGD(), **topology, **options)]


def _jax(**options: Any) -> list[str]:
    """A batch of 100 that 8 devices x 4 SparseCores do not divide (TE691)."""
    feature = FeatureSpec("u", TableSpec("t"), input_shape=(100, 1), output_shape=(100, 16))
    found = lint_jax([feature], global_device_count=8, num_sc_per_device=4, **options)
    return [f.rule for f in found]


def _keras(rows: int = 100, **options: Any) -> list[str]:
    """A Keras-RS table with ``clipnorm`` (TE762), converted for TensorFlow (TE773); past a
    chip's HBM when the rows are many (TE601 with a chip)."""
    table = TableConfig("users", rows, 256, optimizer=Adagrad(0.1, clipnorm=1.0))
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, (128, 1), (128, 256))})
    found = lint_keras(
        layer, backend="tensorflow", global_device_count=4, num_sc_per_device=4, **options
    )
    return [f.rule for f in found]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, where a test writes its `.tpuemb.toml`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_with_no_configuration_the_findings_are_as_before(project: Path) -> None:
    assert _tf() == ["TE709"]
    assert _jax() == ["TE691"]
    assert _keras() == ["TE762", "TE773"]


def test_the_configuration_ignores_and_selects_rules(project: Path) -> None:
    (project / ".tpuemb.toml").write_text('ignore = ["TE709", "TE691", "TE762"]\n')
    assert _tf() == []
    assert _jax() == []
    assert _keras() == ["TE773"]
    assert _tf(isolated=True) == ["TE709"]
    assert _jax(isolated=True) == ["TE691"]
    assert _keras(isolated=True) == ["TE762", "TE773"]
    (project / ".tpuemb.toml").write_text('select = ["TE762"]\n')
    assert _tf() == []
    assert _keras() == ["TE762"]
    assert _keras(isolated=True) == ["TE762", "TE773"]


def test_the_configurations_chip_and_the_apis_run_the_memory_rules(project: Path) -> None:
    many = 400_000_000  # rows of 256 floats: 400 GB on one host's 4 cores
    assert _tf(many, 1) == []
    assert _keras(many) == ["TE762", "TE773"]
    assert _tf(many, 1, tpu="v5p") == ["TE601"]
    assert _keras(many, tpu="v5p") == ["TE601", "TE762", "TE773"]
    (project / ".tpuemb.toml").write_text('tpu = "v5p"\n')
    assert _tf(many, 1) == ["TE601"]
    assert _keras(many) == ["TE601", "TE762", "TE773"]
    assert _tf(many, 1, isolated=True) == []
    assert _keras(many, isolated=True) == ["TE762", "TE773"]


def test_an_unknown_chip_and_a_broken_configuration_are_errors(project: Path) -> None:
    for lint in (_tf, _jax, _keras):
        with pytest.raises(ValueError, match="v99"):
            lint(tpu="v99")
    (project / ".tpuemb.toml").write_text('selectt = ["TE1"]\n')
    for lint in (_tf, _jax, _keras):
        with pytest.raises(SettingsError, match="`selectt`: unknown key"):
            lint()
    assert _jax(isolated=True) == ["TE691"]
