"""Every kind of document tpuemb reads against every other, in both orders, through `tpuemb
diff` (issue 36): a pair is compared (a real verdict), skipped where both sides have no
checkpoint layout or are SparseCore specs (documented, said on stderr for the latter), or it
cannot be compared: exit 2, naming each side's real kind. A Keras-RS model or a stacked layout
against a SparseCore spec passed as "No changes" and called the model "a SparseCore spec"."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

# name -> (the file, relative to the fixture folder; its family: None for no checkpoint layout;
# what stderr calls it)
CONFIG = "a TPUEmbeddingConfiguration (TensorFlow's TPUEmbedding)"
KINDS: dict[str, tuple[str, str | None, str]] = {
    "config-text": ("ranking_model.pbtxt", "tensorflow", CONFIG),
    "config-json": ("ranking_model.json", "tensorflow", CONFIG),
    "config-binary": ("ranking_model.pb", "tensorflow", CONFIG),
    "optimizer": (
        "adam_optimizer.pbtxt",
        None,
        "a message of type OptimizationParameters, with no checkpoint layout",
    ),
    "tf-spec": (
        "recommender.spec.yaml",
        "tensorflow",
        "an embedding spec (TensorFlow's TPUEmbedding)",
    ),
    "sparsecore-spec": (
        "dlrm.spec.yaml",
        "sparsecore",
        "a SparseCore spec (TensorFlow's TPUEmbeddingV2)",
    ),
    "stacked": (
        "recommender.stacked.pbtxt",
        "stacked",
        "a stacked layout of jax-tpu-embedding (EmbeddingSpecProto)",
    ),
    "keras-archive": ("clean.keras", "keras", "a Keras-RS model"),
    "keras-folder": ("model/config.json", "keras", "a Keras-RS model"),
    "graph": (
        "tpu_embedding_send_recv.pbtxt",
        None,
        "a message of type GraphDef, with no checkpoint layout",
    ),
    "saved-model": (
        "saved/saved_model.pb",
        None,
        "a message of type SavedModel, with no checkpoint layout",
    ),
    "layouts": (
        "layouts.pbtxt",
        None,
        "a message of type SparseCoreTableLayouts, with no checkpoint layout",
    ),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kinds")
    for name in ("ranking_model.pbtxt", "ranking_model.json", "ranking_model.pb"):
        shutil.copy(ROOT / "examples" / name, folder / name)
    shutil.copy(ROOT / "examples" / "adam_optimizer.pbtxt", folder)
    shutil.copy(ROOT / "examples" / "recommender.spec.yaml", folder)
    shutil.copy(ROOT / "examples" / "sparsecore" / "dlrm.spec.yaml", folder)
    shutil.copy(ROOT / "examples" / "jax" / "recommender.stacked.pbtxt", folder)
    shutil.copy(DATA / "keras-core" / "clean.keras", folder)
    (folder / "model").mkdir()
    (folder / "model" / "config.json").write_bytes(
        zipfile.ZipFile(DATA / "keras-core" / "clean.keras").read("config.json")
    )
    shutil.copy(DATA / "tf-2.21" / "graphs" / "tpu_embedding_send_recv.pbtxt", folder)
    (folder / "saved").mkdir()
    shutil.copy(
        DATA / "real-repo" / "tree" / "models" / "ranker" / "1" / "saved_model.pb",
        folder / "saved",
    )
    compiled = subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", "compile", "--target", "sparsecore"]
        + [str(folder / "dlrm.spec.yaml"), "-o", str(folder / "layouts.pbtxt")],
        capture_output=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr
    return folder


def _invoke(folder: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["diff", "--tpu", "v5p-8", "--isolated", *args], catch_exceptions=False
    )


def _shown(folder: Path, kind: str) -> str:
    """How stderr names the file of ``kind`` (an archive by its config.json)."""
    name = str(folder / KINDS[kind][0])
    return f"{name}!config.json" if name.endswith(".keras") else name


@pytest.mark.parametrize("new", list(KINDS))
@pytest.mark.parametrize("old", list(KINDS))
@pytest.mark.slow
def test_every_ordered_pair_of_kinds(files: Path, old: str, new: str) -> None:
    old_file, old_family, old_what = KINDS[old]
    new_file, new_family, new_what = KINDS[new]
    result = _invoke(files, str(files / old_file), str(files / new_file))
    if old_family is None and new_family is None:
        # Documented (issue 24): two files with no checkpoint layout are skipped.
        assert (result.exit_code, result.stdout, result.stderr) == (
            0,
            "No changes (0 file pairs compared).\n",
            "",
        )
    elif old_family == new_family == "sparsecore":
        # One spec on both sides: nothing changed (two that differ cannot be compared yet:
        # tests/test_diff_review.py).
        assert (result.exit_code, result.stdout, result.stderr) == (
            0,
            "No changes (1 file pair compared).\n",
            "",
        )
    elif old_family == new_family:
        assert result.exit_code in (0, 1), result.stderr
        assert "(1 file pair compared)" in result.stdout
        assert "error" not in result.stderr
    else:
        why = (
            "their checkpoints have nothing in common to compare"
            if old_family is not None and new_family is not None
            else "only a config, a spec, a stacked layout or a Keras-RS model has one to compare"
        )
        first, second = _shown(files, old), _shown(files, new)
        assert (result.exit_code, result.stdout) == (
            2,
            "Nothing compared (1 file pair could not be compared).\n",
        )
        assert result.stderr == (
            f"tpuemb: error: {first} and {second}: cannot compare: {first} is {old_what}, "
            f"{second} is {new_what}; {why}\n"
        )


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("stacked", "config-text", "model.pbtxt"),
        ("config-text", "stacked", "model.pbtxt"),
        ("tf-spec", "sparsecore-spec", "model.yaml"),
        ("sparsecore-spec", "tf-spec", "model.yaml"),
    ],
)
def test_against_a_revision_a_file_that_changed_kind_cannot_be_compared(
    files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str, name: str
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    target = repo / name
    shutil.copy(files / KINDS[old][0], target)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "first")
    shutil.copy(files / KINDS[new][0], target)
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(
        main, ["diff", "--isolated", "--against", "HEAD", name], catch_exceptions=False
    )
    assert (result.exit_code, result.stdout) == (
        2,
        "Nothing compared (1 file pair could not be compared).\n",
    )
    assert result.stderr == (
        f"tpuemb: error: HEAD:{name} and {name}: cannot compare: HEAD:{name} is "
        f"{KINDS[old][2]}, {name} is {KINDS[new][2]}; their checkpoints have nothing in "
        "common to compare\n"
    )
