"""`check --stats` on TorchRec specs: torchrec's FDO CSV (table_name,max_ids,max_unique_ids,
dropped_count; the names are the stacks' names) beside the stacks torchrec makes."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main

SPEC = """\
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "u"
         max_ids_per_partition: 64 }
tables { name: "item" kind: "bag" num_embeddings: 500 embedding_dim: 16 feature_names: "i"
         max_ids_per_partition: 32 stack_table_name: "pair" }
tables { name: "shop" kind: "bag" num_embeddings: 500 embedding_dim: 16 feature_names: "s"
         stack_table_name: "pair" }
prepare { global_device_count: 2 num_sc_per_device: 4 }
"""


def _check(tmp_path: Path, rows: str, *options: str) -> tuple[int, str, str]:
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "fdo_stats_0_1.csv").write_text(
        "table_name,max_ids,max_unique_ids,dropped_count\n" + rows
    )
    spec = tmp_path / "spec.pbtxt"
    spec.write_text(SPEC)
    done = CliRunner().invoke(
        main,
        [
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--stats",
            str(tmp_path / "stats"),
            *options,
            str(spec),
        ],
    )
    return done.exit_code, done.stdout, spec.read_text()


def test_limits_below_and_far_above_what_was_measured(tmp_path: Path) -> None:
    code, out, _ = _check(tmp_path, "user,100,20,0\npair,40,10,0\n")
    assert code == 1
    spec = str(tmp_path / "spec.pbtxt")
    assert out.replace(spec, "spec.pbtxt").splitlines()[:2] == [
        "spec.pbtxt:2:10: TE611 [*] [error] stack `user` lets 64 ids into a partition "
        "(max_ids_per_partition), and the statistics measured up to 100: torchrec's SparseCore "
        "preprocessing cannot hold the rest (its native module is not in torchrec 1.9.2's wheel, "
        "so whether it drops them or fails is not known to tpuemb)",
        # The stack of two takes its tables' largest limit: 256, `shop`'s default.
        "spec.pbtxt:3:1: TE612 [warning] stack `pair` lets 256 ids into a partition "
        "(max_ids_per_partition), 6.4x the 40 measured: the input buffers that limit sizes take "
        "72.0 KiB more on a device than at 60 (the measured maximum with the headroom of 1.5)",
    ]


def test_fix_raises_a_single_tables_limit(tmp_path: Path) -> None:
    code, out, text = _check(tmp_path, "user,100,20,0\npair,40,10,0\n", "--fix")
    assert code == 0  # the warning about `pair` is left
    assert "max_ids_per_partition: 150" in text  # 100 x the default headroom of 1.5
    assert "TE611" not in out


def test_stacks_the_statistics_do_not_know(tmp_path: Path) -> None:
    code, out, _ = _check(tmp_path, "ghost,4,4,0\n")
    assert code == 0
    assert "TE613" in out and "`ghost`" in out and "`pair`" in out and "`user`" in out
