"""TE612 limit-far-above-measured: a limit above the measured maximum times the headroom (a
warning, lowered by an unsafe fix), at and just past the headroom; the bytes on a SparseCore,
or on a device where the chip says; nothing measured says nothing; the verdict the same with or
without --tpu."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.jax_specs import STACKED, check
from tests.measured_stats import stats
from tpuemb_cli.cli import main


def _lines(tmp_path: Path, folder: Path, *options: str) -> list[str]:
    _, stdout, _, path = check(
        tmp_path, STACKED, "--isolated", "--stats", str(folder), "--select", "TE612", *options
    )
    return stdout.replace(str(path), "PATH").splitlines()


def test_at_the_headroom_is_quiet(tmp_path: Path) -> None:
    # 256 = ceil(171 x 1.5); 170 x 1.5 = 255 is one below
    folder = stats(tmp_path / "s", video_user=(171, 10), ads=(200, 10))
    assert _lines(tmp_path, folder) == ["All checks passed (1 file checked)."]
    folder = stats(tmp_path / "t", video_user=(170, 10), ads=(200, 10))
    assert len(_lines(tmp_path, folder)) == 3


def test_far_above_on_a_sparsecore_and_on_a_device(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(20, 10), ads=(200, 10))
    line = (
        "PATH:6:3: TE612 [warning] stack `video_user` lets 256 ids into a partition "
        "(max_ids_per_partition), 12.8x the 20 measured: the input buffers that limit sizes "
        "take {} more on {} than at 30 (the measured maximum with the headroom of 1.5)"
    )
    # (256 - 32) x 8 SparseCores x 12 bytes; on a v5p device (4 SparseCores), 4 times that
    assert _lines(tmp_path, folder)[0] == line.format("21.0 KiB", "a SparseCore")
    assert _lines(tmp_path, folder, "--tpu", "v5p")[0] == line.format("84.0 KiB", "a device")


def test_the_headroom_setting(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(20, 10), ads=(200, 10))
    assert _lines(tmp_path, folder, "--stats-headroom", "12.8") == [
        "All checks passed (1 file checked)."
    ]
    assert (
        "than at 200 (the measured maximum with the headroom of 10)"
        in (_lines(tmp_path, folder, "--stats-headroom", "10")[0])
    )


def test_nothing_measured_says_nothing(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(0, 0), ads=(200, 10))
    assert _lines(tmp_path, folder) == ["All checks passed (1 file checked)."]


def test_the_unsafe_fix_lowers_both_limits(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(20, 10), ads=(200, 10))
    _, _, _, path = check(tmp_path, STACKED)
    args = ["check", "--isolated", "--stats", str(folder), "--select", "TE612", str(path)]
    assert CliRunner().invoke(main, [*args, "--fix"]).exit_code == 0
    assert path.read_text() == STACKED  # unsafe: not without --unsafe-fixes
    result = CliRunner().invoke(main, [*args, "--fix", "--unsafe-fixes"])
    assert result.exit_code == 0, result.output
    assert "max_ids_per_partition: 30\n  max_unique_ids_per_partition: 15" in path.read_text()


def test_a_suggested_buffer_far_above_the_measured_need(tmp_path: Path) -> None:
    """A suggested buffer, not the limit, sizes a table alone's buffer: judged instead."""
    from google.protobuf import text_format

    from tests.jax_objects import FeatureSpec, TableSpec
    from tpuemb_cli.jax import spec_from_jax
    from tpuemb_cli.load.fdo import StackStats, write_fdo_stats

    c = TableSpec("c", max_ids_per_partition=4096, suggested_coo_buffer_size_per_device=1000)
    spec = spec_from_jax([FeatureSpec("fc", c)], global_device_count=2, num_sc_per_device=4)
    path = tmp_path / "model.spec.textproto"
    header = "# proto-message: tpuemb.spec.EmbeddingSpec\n"
    path.write_text(header + text_format.MessageToString(spec))
    folder = tmp_path / "s"
    write_fdo_stats(
        folder, {"c": StackStats(((10,) * 8,), ((5,) * 8,), ((20, 3, 3, 3),))}, kind="npz"
    )
    args = ["check", "--isolated", "--stats", str(folder), "--select", "TE612", str(path)]
    result = CliRunner().invoke(main, args)
    (line,) = result.stdout.splitlines()[:-2]
    # 1000 rounded up to 32 a device (8 a SparseCore): 1,024; the need 20 x 4 = 80, x 1.5 = 120
    assert line.endswith(
        "TE612 [warning] stack `c`'s suggested_coo_buffer_size_per_device gives a device a COO "
        "buffer of 1024 ids, 12.8x the 80 measured: it takes 10.6 KiB more on a device than at "
        "120 (the measured need with the headroom of 1.5)"
    )
    assert CliRunner().invoke(main, [*args, "--fix", "--unsafe-fixes"]).exit_code == 0
    assert "suggested_coo_buffer_size_per_device: 120" in path.read_text()
