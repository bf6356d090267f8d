"""TPUs as users name them (issue 26, points 7-9): chips and accelerator types, one parser for
every place a TPU is named, the slices the advice may name, and SparseCores per chip and per
device."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.engine.settings import SettingsError, read
from tpuemb_cli.model import chips
from tpuemb_cli.model.accelerators import NAMING, Accelerator, UnknownTpu, parse, slices
from tpuemb_cli.model.advice import Demand, smallest_slice
from tpuemb_cli.model.memory import model
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.server.settings import _check

DOCS = Path(__file__).resolve().parent.parent / "docs" / "memory.md"


@pytest.mark.parametrize(
    ("text", "name", "chips_", "devices"),
    [
        ("v5p", "v5p", None, None),
        ("TPU v5p", "v5p", None, None),
        ("tpu-v5p", "v5p", None, None),
        ("trillium", "v6e", None, None),
        ("v5p-128", "v5p-128", 64, 64),  # TensorCores: 64 chips, megacore
        ("V5P-8", "v5p-8", 4, 4),
        ("v4-32", "v4-32", 16, 16),  # TensorCores, megacore
        ("v3-32", "v3-32", 16, 32),  # TensorCores, a device each
        ("v5litepod-16", "v5litepod-16", 16, 16),  # chips
        ("v6e-256", "v6e-256", 256, 256),  # chips
    ],
)
def test_names_users_write(text: str, name: str, chips_: int | None, devices: int | None) -> None:
    found = parse(text)
    assert (found.name, found.chips, found.devices) == (name, chips_, devices)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("v5pp", "unknown TPU 'v5pp'; did you mean `v5p`?"),
        ("v5pp-128", "unknown TPU 'v5pp-128'; did you mean `v5p-128`?"),
        (
            "v5e-16",
            "unknown TPU 'v5e-16': v5e accelerator types are written v5litepod-N; did you mean "
            "`v5litepod-16`?",
        ),
        (
            "v6e-265",
            "unknown TPU 'v6e-265': no v6e slice has 265 chips (the count counts chips); v6e "
            "slices: v6e-1, v6e-4, v6e-8, v6e-16, v6e-32, v6e-64, v6e-128, v6e-256; did you mean "
            "`v6e-256`?",
        ),
        (
            "h100",
            "unknown TPU 'h100' (chips: v2, v3, v4, v5e, v5p, v6e, tpu7x; or an accelerator type "
            "such as v5p-128)",
        ),
    ],
)
def test_unknown_names_have_a_suggestion(text: str, message: str) -> None:
    with pytest.raises(UnknownTpu) as raised:
        parse(text)
    assert str(raised.value) == message


def test_sizes_are_real_and_fit_an_int32() -> None:
    # The v5p page's common shapes, and v5p-32 (2x2x4), which the page's table leaves out.
    v5p = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 12288)
    assert set(v5p) <= set(NAMING["v5p"].sizes) and NAMING["v5p"].sizes[-1] == 12288
    assert 40 not in NAMING["v5p"].sizes  # 20 chips: 1x4x5 breaks the rule
    assert 640 in NAMING["v4"].sizes and 40 not in NAMING["v4"].sizes  # 4x4x20 chips; 20 no
    for chip in chips.CHIPS:
        for found in slices(chip):
            assert found.devices is not None and 1 <= found.devices < 2**31
    assert slices(chips.BY_NAME["tpu7x"]) == ()


def test_cli_settings_and_server_share_the_parser(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["explain", "--memory", "--tpu", "v5e-16", "x.pbtxt"])
    assert result.exit_code == 2
    assert "did you mean `v5litepod-16`?" in result.output
    settings = tmp_path / ".tpuemb.toml"
    settings.write_text('tpu = "v5p-128"\n')
    assert read(settings).tpu == "v5p-128"
    settings.write_text('tpu = "v5p-126"\n')
    with pytest.raises(SettingsError, match="did you mean `v5p-128`"):
        read(settings)
    assert _check("tpu", "v6e-256") == (None, "v6e-256")
    assert _check("tpu", "v6e-265")[0] is not None


BIG = """\
mode: TRAINING
num_hosts: 1
num_tensor_cores: 4
table_descriptor { name: "ids" vocabulary_size: 400000000 dimension: 32
  optimization_parameters { learning_rate { constant: 0.1 } adagrad {} } }
feature_descriptor { name: "a" table_id: 0 input_shape: 8 }
"""


def _config(vocabulary: int, cores: int = 4) -> TPUEmbeddingConfiguration:
    config = TPUEmbeddingConfiguration(num_tensor_cores=cores)
    table = config.table_descriptor.add(name="t", vocabulary_size=vocabulary, dimension=16)
    table.optimization_parameters.adagrad.SetInParent()
    return config


def test_advice_is_the_smallest_real_slice() -> None:
    config = _config(10**9)  # 1e9 x 16 x 3 arrays x 4 = 192 GB in all
    demand = Demand(model(config), config)
    v5e = chips.BY_NAME["v5e"]
    advice = smallest_slice(demand, v5e, 16 * 10**9)
    assert advice.fits == Accelerator(v5e, 16)  # 12 GB a core; 8 cores would be 24 GB
    assert demand.per_core(16) == -(-(10**9) // 16) * 16 * 3 * 4


def test_advice_never_names_a_count_no_slice_has() -> None:
    # One row of a 2^62-row table on every core of the largest v5p slice is still too much:
    # the old bisection answered with a core count no slice has and no int32 holds.
    config = _config(2**62)
    advice = smallest_slice(Demand(model(config), config), chips.BY_NAME["v5p"], 95 * 2**30)
    assert advice.fits is None
    assert advice.largest == Accelerator(chips.BY_NAME["v5p"], 12288)


def test_explain_memory_names_a_slice(tmp_path: Path) -> None:
    path = tmp_path / "t.pbtxt"
    path.write_text(BIG)
    text = CliRunner().invoke(main, ["explain", "--memory", "--tpu", "v5e", str(path)]).output
    assert (
        "  more cores: a v5litepod-16 (16 chips, 16 TensorFlow cores) would fit "
        "(num_tensor_cores 16)"
    ) in text
    result = CliRunner().invoke(
        main, ["explain", "--memory", "--tpu", "v5e", "--format", "json", str(path)]
    )
    tpu = json.loads(result.output)["tpu"]
    assert tpu["smallest_core_count_that_fits"] == 16
    assert tpu["smallest_slice_that_fits"] == "v5litepod-16"


def test_spec_accelerator_must_match_its_topology(tmp_path: Path) -> None:
    spec = tmp_path / "s.spec.yaml"
    spec.write_text(
        "optimizer: {adagrad: {}, learning_rate: {constant: 0.1}}\n"
        "tables:\n  - {name: t, vocabulary_size: 1000, dim: 16}\n"
        "features:\n  - {name: f, table: t}\n"
        "topology: {num_hosts: 4, cores_per_host: 4, accelerator: v5p-128}\n"
    )
    result = CliRunner().invoke(main, ["check", "--isolated", str(spec)])
    assert (
        "TE724 [error] a v5p-128 (64 chips, 64 TensorFlow cores) is not num_hosts x "
        "cores_per_host = 4 x 4 = 16 cores"
    ) in result.output
    spec.write_text(spec.read_text().replace("num_hosts: 4", "num_hosts: 16"))
    assert "TE724" not in CliRunner().invoke(main, ["check", "--isolated", str(spec)]).output


def test_sparse_cores_per_chip_and_per_device() -> None:
    figures = {
        chip.name: (chip.sparse_cores.value, chip.sparse_cores_per_device.value)
        for chip in chips.CHIPS
    }
    assert figures["v5p"] == (4, 4)
    assert figures["v6e"] == (2, 2)
    assert figures["tpu7x"] == (4, 2)  # two devices a chip share its four SparseCores
    for chip in chips.CHIPS:
        per_chip, per_device = figures[chip.name]
        if per_chip is not None and per_device is not None:
            assert per_chip == per_device * (chip.devices_per_chip or 0)
        assert chip.sparse_cores_per_device.source
    text = DOCS.read_text()
    assert "not known" not in next(line for line in text.splitlines() if line.startswith("| v6e |"))
    assert "NUM_SC_PER_DEVICE_MAP" in text
