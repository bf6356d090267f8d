from pathlib import Path

import pytest

from tests.jax_specs import one_finding, replaced


def test_a_feature_past_the_stacks_samples(tmp_path: Path) -> None:
    text = replaced(("row_offset: 256", "row_offset: 300"))
    assert one_finding(tmp_path, text, "TE686") == (
        'PATH:45:7: TE686 [error] feature "viewer"\'s 128 samples from row_offset 300 lie '
        'outside stack "video_user"\'s 384 samples (total_sample_count)'
    )


def test_a_feature_over_another(tmp_path: Path) -> None:
    text = replaced(("row_offset: 128", "row_offset: 64"))
    assert one_finding(tmp_path, text, "TE686") == (
        'PATH:28:7: TE686 [error] feature "liked"\'s samples 64 to 191 lie over samples 0 to 127 '
        'of feature "watched"'
    )


def test_a_col_offset_that_is_not_the_tables(tmp_path: Path) -> None:
    text = replaced(("col_offset: 1024", "col_offset: 128"))
    assert one_finding(tmp_path, text, "TE686") == (
        'PATH:46:7: TE686 [error] feature "viewer" has col_offset 128, but its table starts at '
        "row 128 of each of 8 shards: col_offset 1024"
    )


def test_a_sample_count_that_is_not_the_features(tmp_path: Path) -> None:
    text = replaced(("total_sample_count: 384", "total_sample_count: 512"))
    assert one_finding(tmp_path, text, "TE686") == (
        'PATH:5:3: TE686 [error] stack "video_user" has total_sample_count 512, but its features '
        "have 384 samples"
    )


def test_json_and_binary_are_addressed_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from tpuemb_cli.cli import main
    from tpuemb_cli.load import encodings, load_bytes

    monkeypatch.chdir(tmp_path)
    message = load_bytes(replaced(("col_shift: 2", "col_shift: 3")).encode(), "x.pbtxt").message
    assert message is not None
    for name, encoding in (("s.json", "json"), ("s.binpb", "binary")):
        (tmp_path / name).write_bytes(encodings.get(encoding).render(message))
    result = CliRunner().invoke(
        main, ["check", "--format", "concise", "--select", "TE686", "s.json", "s.binpb"]
    )
    said = 'TE686 [error] feature "viewer" has col_shift 3, but its table\'s shard_rotation is 2'
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout.splitlines()[:2] == [
        f"s.json:65:15: {said}",
        f"s.binpb: {said} (at stacked_table_specs[0].table_specs[1].feature_specs[0].col_shift)",
    ]
