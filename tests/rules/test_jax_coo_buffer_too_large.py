"""jax-coo-buffer-too-large on jax-tpu-embedding's EmbeddingSpecProto (tests/data/jax/stacked.pbtxt:
8 SparseCores a stack): a limit no chip can size is an error with or without --tpu; one too large
for the chip named only with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.jax_specs import check, one_finding, replaced

LIMIT = "max_ids_per_partition: 256"


@pytest.mark.parametrize("tpu", [(), ("--tpu", "v5p-8"), ("--tpu", "v6e-8")])
def test_a_limit_past_32_bits_whatever_the_chip(tmp_path: Path, tpu: tuple[str, ...]) -> None:
    text = replaced((LIMIT, "max_ids_per_partition: 2147483648"))
    exit_code, stdout, stderr, path = check(tmp_path, text, "--select", "TE671", *tpu)
    assert (exit_code, stderr, stdout.replace(str(path), "PATH")) == (
        1,
        "",
        'PATH:6:3: TE671 [error] stack "video_user" has max_ids_per_partition 2,147,483,648, more '
        "than a 32-bit int holds (2,147,483,647): the library's input preprocessing takes it as "
        "one, and raises TypeError\nFound 1 error in 1 file (1 file checked).\n",
    )


def test_a_buffer_too_large_on_any_chip(tmp_path: Path) -> None:
    text = replaced((LIMIT, "max_ids_per_partition: 268435456"))  # 2^28 x 8 SparseCores = 2^31
    assert one_finding(tmp_path, text, "TE671") == (
        'PATH:6:3: TE671 [error] stack "video_user"\'s COO buffer takes at least 2,147,483,648 '
        "elements a device (max_ids_per_partition 268,435,456 rounded up to 8, x 8 SparseCores, "
        "x at least 1 SparseCore a device), not below INT_MAX (2,147,483,647): the library "
        "aborts the process (CHECK in ComputeCooBufferSizePerDevice)"
    )


def test_a_buffer_too_large_on_the_chip_named(tmp_path: Path) -> None:
    # 10^8 x 8 is below INT_MAX; x 4 SparseCores a v5p device, above; x 2 a v6e device, below.
    text = replaced((LIMIT, "max_ids_per_partition: 100000000"))
    assert check(tmp_path, text, "--select", "TE671")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )
    exit_code, stdout, _, path = check(tmp_path, text, "--select", "TE671", "--tpu", "v5p-8")
    assert (exit_code, stdout.replace(str(path), "PATH")) == (
        1,
        'PATH:6:3: TE671 [error] stack "video_user"\'s COO buffer takes 3,200,000,000 elements a '
        "device on a v5p (max_ids_per_partition 100,000,000 rounded up to 8, x 8 SparseCores, x "
        "4 SparseCores a device), not below INT_MAX (2,147,483,647): the library aborts the "
        "process (CHECK in ComputeCooBufferSizePerDevice)\nFound 1 error in 1 file (1 file "
        "checked).\n",
    )
    assert check(tmp_path, text, "--select", "TE671", "--tpu", "v6e-8")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )


def test_the_librarys_limits_pass(tmp_path: Path) -> None:
    assert check(tmp_path, replaced(), "--select", "TE671", "--tpu", "v5p-8")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )


# A spec with a `jax` section says its SparseCores a device: the stacks compile --target jax
# writes are judged exactly, the same with or without --tpu (tests/data/jax/compile/
# explicit.spec.textproto: 8 devices x 2 SparseCores; "a" and "c" stacked as "shared", "b" alone).
SPEC = (
    Path(__file__).resolve().parent.parent / "data" / "jax" / "compile" / "explicit.spec.textproto"
)


def _spec_check(tmp_path: Path, text: str, *tpu: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from tpuemb_cli.cli import main

    path = tmp_path / "spec.textproto"
    path.write_text(text)
    result = CliRunner().invoke(
        main, ["check", "--isolated", "--format", "concise", "--select", "TE671", str(path), *tpu]
    )
    return result.exit_code, result.stdout.replace(str(path), "PATH")


def _alone_limit(value: int) -> str:
    text = SPEC.read_text()
    b = text.index('name: "b"')
    at = text.index("max_ids_per_partition: 256", b)
    return (
        text[:at]
        + f"max_ids_per_partition: {value}"
        + text[at + len("max_ids_per_partition: 256") :]
    )


@pytest.mark.parametrize("tpu", [(), ("--tpu", "v5p-8"), ("--tpu", "v6e-8")])
def test_a_spec_whose_compiled_stack_cannot_be_sized(tmp_path: Path, tpu: tuple[str, ...]) -> None:
    # 2^31 - 1 rounds up to 2^31: x 16 SparseCores x 2 a device, far above INT_MAX.
    exit_code, stdout = _spec_check(tmp_path, _alone_limit(2**31 - 1), *tpu)
    assert exit_code == 1, stdout
    assert 'TE671 [error] table "b"\'s COO buffer takes 68,719,476,736 elements a device ' in stdout
    assert "x 16 SparseCores, x 2 SparseCores a device" in stdout
    exit_code, stdout = _spec_check(tmp_path, _alone_limit(2**31), *tpu)
    assert exit_code == 1 and "more than a 32-bit int holds" in stdout, stdout
    # 2^26 x 32 = 2^31: too large; 2^25 x 32 below.
    assert _spec_check(tmp_path, _alone_limit(2**26), *tpu)[0] == 1
    assert _spec_check(tmp_path, _alone_limit(2**25), *tpu) == (
        0,
        "All checks passed (1 file checked).\n",
    )


def test_a_spec_whose_stack_limit_cannot_be_sized(tmp_path: Path) -> None:
    text = SPEC.read_text().replace(
        'key: "shared"\n    value: 512', 'key: "shared"\n    value: 2147483648'
    )
    assert "2147483648" in text
    exit_code, stdout = _spec_check(tmp_path, text)
    assert exit_code == 1, stdout
    assert 'TE671 [error] stack "shared" has max_ids_per_partition 2,147,483,648' in stdout
