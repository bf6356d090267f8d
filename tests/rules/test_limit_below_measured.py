"""TE611 limit-below-measured: a stack's limit below the statistics' maximum (an error, raised
by a safe fix), at and just above the limit; the unique limit raised no further than the ids
limit; a stack of several tables in a spec (no fix) and one of one table (fixed)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.jax_specs import STACKED, check
from tests.measured_stats import stats
from tpuemb_cli.cli import main


def test_at_the_limit_is_quiet(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(256, 256), ads=(256, 10))
    code, stdout, _, _ = check(tmp_path, STACKED, "--stats", str(folder), "--select", "TE611")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_one_id_above_the_limit(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(257, 100), ads=(10, 10))
    code, stdout, _, path = check(tmp_path, STACKED, "--stats", str(folder), "--select", "TE611")
    assert stdout.replace(str(path), "PATH").splitlines() == [
        "PATH:6:3: TE611 [*] [error] stack `video_user` lets 256 ids into a partition "
        "(max_ids_per_partition), and the statistics measured up to 257: jax-tpu-embedding's "
        "preprocessing drops the rest when called with allow_id_dropping=True, and aborts the "
        "process without it (with enable_minibatching it splits the batch into minibatches "
        "first)",
        "Found 1 error in 1 file (1 file checked).",
        "[*] 1 finding fixable with `--fix`.",
    ]
    assert code == 1


def test_the_fix_raises_with_the_headroom(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(300, 290), ads=(10, 10))
    _, _, _, path = check(tmp_path, STACKED)
    result = CliRunner().invoke(
        main,
        ["check", "--isolated", "--stats", str(folder), "--select", "TE611", "--fix", str(path)],
    )
    assert result.exit_code == 0, result.output
    fixed = path.read_text()
    # 300 x 1.5; the unique limit 290 x 1.5 = 435, no further than the ids limit's 450
    assert "max_ids_per_partition: 450\n  max_unique_ids_per_partition: 435" in fixed
    # the other stack untouched
    assert fixed.count("max_ids_per_partition: 256") == 1


def test_the_unique_limit_is_raised_no_further_than_the_ids_limit(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(256, 250), ads=(10, 10))
    text = STACKED.replace(
        "max_unique_ids_per_partition: 256", "max_unique_ids_per_partition: 200", 1
    )
    _, _, _, path = check(tmp_path, text)
    result = CliRunner().invoke(
        main,
        ["check", "--isolated", "--stats", str(folder), "--select", "TE611", "--fix", str(path)],
    )
    assert result.exit_code == 0, result.output
    # 250 x 1.5 = 375, but the ids limit stays 256
    assert "max_ids_per_partition: 256\n  max_unique_ids_per_partition: 256" in path.read_text()


def _spec(folder: Path) -> Path:
    """A spec with a `jax` section (tpuemb_cli.jax.spec_from_jax): tables a, b and a2 (a limit
    of its own, 32) stacked as `a_b`, c alone (its own limit, 64), on 2 devices x 4
    SparseCores."""
    from google.protobuf import text_format

    from tests.jax_objects import AdagradOptimizerSpec, FeatureSpec, TableSpec
    from tpuemb_cli.jax import spec_from_jax

    adagrad = AdagradOptimizerSpec(0.1)
    a, b = TableSpec("a", optimizer=adagrad), TableSpec("b", optimizer=adagrad)
    c = TableSpec("c", embedding_dim=64, max_ids_per_partition=64)
    a2 = TableSpec("a2", optimizer=adagrad, max_ids_per_partition=32)
    features = [
        FeatureSpec("fa", a),
        FeatureSpec("fb", b),
        FeatureSpec("fa2", a2),
        FeatureSpec("fc", c, output_shape=(128, 64)),
    ]
    spec = spec_from_jax(
        features, global_device_count=2, num_sc_per_device=4, stacks={"a_b": ["a", "b", "a2"]}
    )
    path = folder / "model.spec.textproto"
    path.write_text(
        "# proto-message: tpuemb.spec.EmbeddingSpec\n" + text_format.MessageToString(spec)
    )
    return path


def test_a_spec_stack_of_one_table_is_fixed_at_its_table(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    folder = stats(tmp_path / "s", a_b=(300, 10), c=(100, 10))
    args = ["check", "--isolated", "--stats", str(folder), "--select", "TE611", str(spec)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    lines = result.stdout.replace(str(spec), "PATH").splitlines()
    assert len(lines) == 4, result.stdout
    # a stack of several tables: the library's 256, in a map entry no fix writes (a2's own
    # limit is ignored); c's own 64
    assert lines[0].startswith("PATH:2:1: TE611 [error] stack `a_b` lets 256 ids")
    assert lines[0].endswith(
        "(its tables' own limits, max_ids/max_unique_ids `a2` 32/256, count for nothing in a "
        "stack of several tables: the stack's do)"
    )
    assert "TE611 [*] [error] stack `c` lets 64 ids" in lines[1]
    result = CliRunner().invoke(main, [*args, "--fix"])
    assert "max_ids_per_partition: 150" in spec.read_text()
    assert result.exit_code == 1  # a_b remains


def test_a_suggested_buffer_below_the_measured_need(tmp_path: Path) -> None:
    """A table alone with a suggested COO buffer of 64 (a device of 4 SparseCores: 64 ids), and
    20 ids a SparseCore measured (80 a device): the library drops past the buffer."""
    from google.protobuf import text_format

    from tests.jax_objects import FeatureSpec, TableSpec
    from tpuemb_cli.jax import spec_from_jax

    c = TableSpec("c", max_ids_per_partition=64, suggested_coo_buffer_size_per_device=64)
    spec = spec_from_jax([FeatureSpec("fc", c)], global_device_count=2, num_sc_per_device=4)
    path = tmp_path / "model.spec.textproto"
    path.write_text(
        "# proto-message: tpuemb.spec.EmbeddingSpec\n" + text_format.MessageToString(spec)
    )
    folder = tmp_path / "s"
    from tpuemb_cli.load.fdo import StackStats, write_fdo_stats

    # 8 partitions of one local device; a required buffer a SparseCore of 20
    write_fdo_stats(
        folder, {"c": StackStats(((10,) * 8,), ((5,) * 8,), ((20, 3, 3, 3),))}, kind="npz"
    )
    args = ["check", "--isolated", "--stats", str(folder), "--select", "TE611", str(path)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    (line,) = result.stdout.splitlines()[:-2]
    assert line.endswith(
        "TE611 [*] [error] stack `c`'s suggested_coo_buffer_size_per_device of 64 gives a "
        "device a COO buffer of 64 ids, and the statistics measured up to 20 a SparseCore (80 "
        "a device of 4): jax-tpu-embedding's preprocessing drops the ids past the buffer, with "
        "allow_id_dropping or without"
    )
    assert CliRunner().invoke(main, [*args, "--fix"]).exit_code == 0
    assert "suggested_coo_buffer_size_per_device: 120" in path.read_text()


def test_statistics_past_any_buffer_get_no_fix(tmp_path: Path) -> None:
    # 1e9 ids x 1.5 in a partition of 8: a COO buffer past INT_MAX elements on any device
    folder = stats(tmp_path / "s", video_user=(1_000_000_000, 10), ads=(10, 10))
    code, stdout, _, _ = check(
        tmp_path, STACKED, "--stats", str(folder), "--select", "TE611", "--statistics"
    )
    assert code == 1 and "[*]" not in stdout and "fixable" not in stdout
    _, _, _, path = check(tmp_path, STACKED)
    result = CliRunner().invoke(
        main, ["check", "--isolated", "--stats", str(folder), "--format", "json", str(path)]
    )
    (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "TE611"]
    assert finding["help"].startswith("the library refuses a COO buffer that large (INT_MAX")


def test_a_fix_that_would_add_an_error_is_withheld_and_said(tmp_path: Path) -> None:
    # 9e7 ids a partition: a COO buffer of 9e7 x 8 elements a SparseCore, 2.9e9 on a v5p device
    # of 4 (past INT_MAX: TE671 on the fixed file), fine on one SparseCore
    folder = stats(tmp_path / "s", video_user=(60_000_000, 10), ads=(200, 10))
    _, _, _, path = check(tmp_path, STACKED)
    args = ["check", "--isolated", "--tpu", "v5p", "--stats", str(folder), "--fix", str(path)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert path.read_text() == STACKED
    assert (
        "1 fix not made (TE611): each would break the file or add an error it does not have "
        in (result.stderr)
    )
    assert "fixable" not in result.stdout and "[*]" not in result.stdout
