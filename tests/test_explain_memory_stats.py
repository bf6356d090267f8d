"""`explain --memory --stats`: a JAX stack's input buffers at the measured sizes beside the
limits' theoretical maximum (text and JSON), and TE601's remedy saying whether those would fit."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.jax_specs import STACKED
from tests.measured_stats import stats
from tpuemb_cli.cli import main
from tpuemb_cli.load.fdo import StackStats, write_fdo_stats


def _explain(tmp_path: Path, *options: str) -> str:
    spec = tmp_path / "stacked.pbtxt"
    spec.write_text(STACKED)
    result = CliRunner().invoke(main, ["explain", "--memory", str(spec), *options])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_measured_buffers_beside_the_limits(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(20, 10))
    text = _explain(tmp_path, "--tpu", "v5p", "--stats", str(folder))
    header = next(line for line in text.splitlines() if line.startswith("stack "))
    assert header.split("  ")[-1] == "measured buffers" and "measured ids" in header
    row = next(line for line in text.splitlines() if "video_user" in line)
    # 160 required a SparseCore (stats(): ids x 8) x 4 a device = 640 elements, x 12 bytes and
    # the row pointers (8 x 4 x 4): 7,808 bytes
    assert row.split()[-2:] == ["7.6", "KiB"]
    ads = next(line for line in text.splitlines() if line.startswith("2 ads"))
    assert ads.split()[-1] == "-"  # not measured
    assert "at the measured sizes:" in text


def test_json_says_the_measured_sizes(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    write_fdo_stats(folder, {"ads": StackStats(((30,) * 8,), ((3,) * 8,))}, kind="csv")
    document = json.loads(
        _explain(tmp_path, "--tpu", "v5p", "--stats", str(folder), "--format", "json")
    )
    memory = document
    stacks = {stack["name"]: stack for stack in memory["stacks"]}
    # no required buffer measured: the theoretical maximum at the measured 30 ids (32 x 4 x 8)
    assert stacks["ads"]["measured_max_ids"] == 30
    assert stacks["ads"]["measured_coo_buffer_size_per_device"] == 32 * 4 * 8
    assert stacks["video_user"]["measured_max_ids"] is None
    assert memory["measured_per_device_bytes"] < memory["per_device_bytes"]


def test_without_stats_nothing_changes(tmp_path: Path) -> None:
    assert "measured" not in _explain(tmp_path, "--tpu", "v5p")


def test_te601_says_whether_the_measured_buffers_fit(tmp_path: Path) -> None:
    # video's rows: 2,656,000,000 over 8 SparseCores, 16 floats wide, 4 SparseCores a v5p
    # device: 85.0 GB of variables a device; a limit of 6e7 ids: a COO buffer of 6e7 x 4 x 8
    # elements of 12 bytes (23.0 GB; INT_MAX elements would be refused) -- 108 GB, past a
    # device's 95 GiB, where the buffers of the 20 ids measured fit
    text = STACKED.replace("padded_vocab_size: 1024", "padded_vocab_size: 2656000000", 1)
    text = text.replace("max_ids_per_partition: 256", "max_ids_per_partition: 60000000", 1)
    spec = tmp_path / "big.pbtxt"
    spec.write_text(text)
    folder = stats(tmp_path / "s", video_user=(20, 10), ads=(20, 10))
    args = ["check", "--isolated", "--tpu", "v5p", "--select", "TE601", "--format", "json"]
    findings = json.loads(CliRunner().invoke(main, [*args, str(spec)]).stdout)["findings"]
    measured = json.loads(
        CliRunner().invoke(main, [*args, "--stats", str(folder), str(spec)]).stdout
    )["findings"]
    assert len(findings) == len(measured) == 1
    assert "statistics measured" not in findings[0]["help"]
    assert "with the buffers the statistics measured, a device takes" in measured[0]["help"]
    assert ": enough;" in measured[0]["help"]
