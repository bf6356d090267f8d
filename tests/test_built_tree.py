"""Discovery on a repository the test builds (tests/built_tree): `tpuemb check .` at its root
reports exactly the findings of the configs with mistakes, in every format and in two processes,
and skips everything else -- by content: the same files under other names are skipped too."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.workspace import parallel

from .built_tree import FINDINGS, build

Finding = tuple[str, "int | None", "int | None", str]

CONCISE = """\
configs/export/tpu_embedding.pb: TE104 [error] the constant learning rate -0.05 is negative, \
so training moves embeddings up the loss gradient (at \
table_descriptor[0].optimization_parameters.learning_rate.constant)
configs/export/tpu_embedding.pb: TE501 [error] `mode` is UNSPECIFIED; the TPU embedding engine \
needs TRAINING, INFERENCE or BACKWARD_PASS_ONLY (at mode)
configs/optimizers/item_adam.pbtxt:5:1: TE303 [error] gradient clipping needs gradient \
accumulation, but `gradient_accumulation_status` is DISABLED, so these limits are never applied
configs/optimizers/item_adam.pbtxt:17:3: TE203 [error] Adam's epsilon is 0.0 (or not set); it \
must be positive or updates of unseen rows divide by zero
configs/ranker/tpu_embedding.pbtxt:25:7: TE202 [error] Adam's beta2 is 1.0, but it must be at \
least 0 and below 1
configs/ranker/tpu_embedding.pbtxt:34:1: TE406 [error] no feature uses table 2 ("country") (no \
`feature_descriptor` has `table_id: 2`)
configs/ranker/tpu_embedding.pbtxt:63:3: TE407 [error] feature 2 ("country") has `table_id: 3`, \
but the config has 3 tables (valid ids: 0 to 2); building the graph, TensorFlow does not check \
it and crashes or reads garbage, and configuring the TPU rejects it
configs/retrieval/two_tower.json:14:11: TE207 [error] FTRL's lr_power is 0.5; it must be 0 or \
negative, or steps grow with every update
configs/retrieval/two_tower.json:20:7: TE402 [error] table 1 is named "query_tokens", like table \
0; table names must be unique
configs/specs/ranker.spec.yaml:15:5: TE704 [warning] no feature uses table "user_id", so \
TensorFlow will not create it
configs/specs/ranker.spec.yaml:20:23: TE711 [error] the learning rate follows schedule 'warmpu', \
which `schedules` does not define
configs/specs/ranker.spec.yaml:24:18: TE703 [error] feature "user" uses table 'user', which the \
spec does not define
Found 11 errors, 1 warning in 5 files (84 files checked).
"""

# Every file the walk finds that is not a document, and why it is skipped.
SKIPPED = {
    ".devcontainer.json": "its top-level fields are `name`, `image`, `features`, `forwardPorts`, "
    "`postCreateCommand`",
    ".pre-commit-config.yaml": "its top-level fields are `repos`",
    "charts/ranker-serving/Chart.yaml": "its top-level fields are `apiVersion`, `name`, "
    "`description`, `type`, `version`, `appVersion`",
    "charts/ranker-serving/templates/deployment.yaml": "it does not parse and names no field of "
    "a TPU embedding document",
    "charts/ranker-serving/values.yaml": "its top-level fields are `replicaCount`, `image`, "
    "`model`, `service`, `resources`, `autoscaling`, ...",
    "dashboard/package.json": "its top-level fields are `name`, `version`, `private`, "
    "`description`, `type`, `scripts`, ...",
    "dashboard/tsconfig.json": "its top-level fields are `compilerOptions`, `include`, "
    "`references`",
    "dashboard/tsconfig.node.json": "its top-level fields are `compilerOptions`, `include`",
    "data/schema.pbtxt": "its top-level fields are `feature`, `default_environment`",
    "docker-compose.yml": "its top-level fields are `services`",
    "k8s/deployment.yaml": "its top-level fields are `apiVersion`, `kind`, `metadata`, `spec`",
    "models/ranker/1/fingerprint.pb": "a SavedModel fingerprint",
    "object_detection/label_map.pbtxt": "its top-level fields are `item`",
    "params.yaml": "its top-level fields are `train`, `features`, `optimizer`, holding other "
    "things",
    "configs/sweep.yaml": "its top-level fields are `features`, `optimizer`, `dimension`, "
    "`learning_rate`, holding other things",
    "serving/batching_parameters.pbtxt": "its top-level fields are `max_batch_size`, "
    "`batch_timeout_micros`, `max_enqueued_batches`, `num_batch_threads`",
}
# Files the walk does not look at: in hidden folders, or with names tpuemb does not read.
NOT_WALKED = {
    ".github/workflows/ci.yml",
    ".vscode/settings.json",
    "README.md",
    "configs/NOTES.md",
    "configs/gen.py",
    "data/train-00000-of-00001.tfrecord",
    "models/ranker/1/variables/variables.data-00000-of-00001",
    "models/ranker/1/variables/variables.index",
    "object_detection/pipeline.config",
    "requirements.txt",
    "serving/model.config",
    "serving/monitoring.config",
    "trainer/task.py",
    "training/ckpt/checkpoint",
    "training/ckpt/ckpt-1.data-00000-of-00001",
    "training/ckpt/ckpt-1.index",
}


_NO_TYPE = (
    "it parses as no TPUEmbeddingConfiguration, GraphDef, OptimizationParameters, "
    "SparseCoreTableLayouts or EmbeddingSpecProto without unknown fields"
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    build(root)
    return root


@pytest.fixture
def at_root(tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tree)
    return tree


def _check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", "--isolated", *args])
    return result.exit_code, result.stdout


def _from_concise(out: str) -> set[Finding]:
    found: set[Finding] = set()
    for line in out.splitlines():
        match = re.match(r"(\S+?)(?::(\d+):(\d+))?: (TE\d+) \[", line)
        if match:
            file, row, column, rule = match.groups()
            found.add((file, int(row) if row else None, int(column) if column else None, rule))
    return found


def _from_json(out: str) -> set[Finding]:
    findings = json.loads(out)["findings"]
    return {(f["file"], f["line"], f["column"], f["rule"]) for f in findings}


def _from_sarif(out: str) -> set[Finding]:
    found: set[Finding] = set()
    for result in json.loads(out)["runs"][0]["results"]:
        location = result["locations"][0]["physicalLocation"]
        region: dict[str, Any] = location["region"]
        # Binary findings have no position; SARIF needs a region, and gets line 1 alone.
        column = region.get("startColumn")
        row = region["startLine"] if column is not None else None
        found.add((location["artifactLocation"]["uri"], row, column, result["ruleId"]))
    return found


def test_check_dot_reports_exactly_the_configs_mistakes(at_root: Path) -> None:
    code, out = _check(".")
    assert (code, out) == (1, CONCISE)
    assert _from_concise(out) == FINDINGS


@pytest.mark.parametrize(
    ("fmt", "read"), [("json", _from_json), ("sarif", _from_sarif), ("json-lines", None)]
)
def test_every_format_reports_the_same_findings(
    at_root: Path, fmt: str, read: Callable[[str], set[Finding]] | None
) -> None:
    code, out = _check("--format", fmt, ".")
    assert code == 1
    if read is None:
        lines = [json.loads(line) for line in out.splitlines()]
        assert {(f["file"], f["line"], f["column"], f["rule"]) for f in lines} == FINDINGS
    else:
        assert read(out) == FINDINGS


def test_two_processes_report_what_one_does(at_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forks: list[int] = []
    fork = parallel._fork

    def counted(function: Any, share: Any) -> tuple[int, int]:
        forks.append(len(share))
        return fork(function, share)

    monkeypatch.setattr(parallel, "_fork", counted)
    assert _check("--jobs", "2", ".") == (1, CONCISE)
    assert len(forks) == 1 and forks[0] >= parallel.MIN_ITEMS_PER_WORKER  # it really forked
    code, out = _check("--jobs", "2", "--format", "json", ".")
    assert code == 1 and _from_json(out) == FINDINGS


def test_show_files_lists_every_walked_file(at_root: Path) -> None:
    code, out = _check("--show-files", ".")
    assert code == 0
    shown = dict(line.split(": ", 1) for line in out.splitlines())
    skipped = {name: what.removeprefix("skipped: ") for name, what in shown.items()}
    skipped = {name: why for name, why in skipped.items() if why != "checked"}
    assert skipped == SKIPPED
    checked = {name for name, what in shown.items() if what == "checked"}
    sweep = {p.relative_to(at_root).as_posix() for p in (at_root / "configs/sweep").iterdir()}
    assert len(sweep) == 72
    assert checked == {
        "configs/export/tpu_embedding.pb",
        "configs/export/tpu_embedding_clean.pb",
        "configs/optimizers/item_adam.pbtxt",
        "configs/optimizers/user_adagrad.pbtxt",
        "configs/ranker/serving.pbtxt",
        "configs/ranker/tpu_embedding.pbtxt",
        "configs/retrieval/query_tower.json",
        "configs/retrieval/two_tower.json",
        "configs/specs/ranker.spec.yaml",
        "configs/specs/retrieval.spec.yaml",
        "models/ranker/1/saved_model.pb",  # graphs: linted for TPU embedding ops, has none
        "models/ranker_frozen.pb",
        *sweep,
    }
    every = {p.relative_to(at_root).as_posix() for p in at_root.rglob("*") if p.is_file()}
    assert every - set(shown) == NOT_WALKED


# Files of the tree under names that say nothing: content decides.
RENAMED = {
    "data/schema.pbtxt": "features.pbtxt",
    "serving/model.config": "serving.pbtxt",
    "serving/monitoring.config": "monitoring.textproto",
    "object_detection/pipeline.config": "pipeline.pbtxt",
    "models/ranker/1/fingerprint.pb": "model_fingerprint.pb",
    "models/ranker/1/variables/variables.index": "variables.pb",
    "training/ckpt/checkpoint": "checkpoint.pbtxt",
    "training/ckpt/ckpt-1.index": "ckpt.binpb",
    "training/ckpt/ckpt-1.data-00000-of-00001": "ckpt_data.pb",
    "data/train-00000-of-00001.tfrecord": "train.pb",
    ".devcontainer.json": "devcontainer.json",
    ".vscode/settings.json": "settings.json",
    "docker-compose.yml": "stack.yml",
    "params.yaml": "training.yaml",
    "models/ranker_frozen.pb": "graph.pb",
}


def test_content_decides_not_the_name(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for source, target in RENAMED.items():
        shutil.copyfile(tree / source, tmp_path / target)
    monkeypatch.chdir(tmp_path)
    code, out = _check("--show-files", ".")
    assert code == 0
    assert out == (
        "checkpoint.pbtxt: skipped: its top-level fields are `model_checkpoint_path`, "
        "`all_model_checkpoint_paths`\n"
        "ckpt.binpb: skipped: " + _NO_TYPE + "\n"
        "ckpt_data.pb: skipped: " + _NO_TYPE + "\n"
        "devcontainer.json: skipped: its top-level fields are `name`, `image`, `features`, "
        "`forwardPorts`, `postCreateCommand`\n"
        "features.pbtxt: skipped: its top-level fields are `feature`, `default_environment`\n"
        "graph.pb: checked\n"
        "model_fingerprint.pb: skipped: " + _NO_TYPE + "\n"
        "monitoring.textproto: skipped: its top-level fields are `prometheus_config`\n"
        "pipeline.pbtxt: skipped: its top-level fields are `model`, `train_config`, "
        "`train_input_reader`, `eval_config`, `eval_input_reader`\n"
        "serving.pbtxt: skipped: its top-level fields are `model_config_list`\n"
        "settings.json: skipped: its top-level fields are `[python]`, "
        "`python.testing.pytestEnabled`, `python.testing.pytestArgs`, `files.associations`, "
        "`files.exclude`\n"
        "stack.yml: skipped: its top-level fields are `services`\n"
        "train.pb: skipped: " + _NO_TYPE + "\n"
        "training.yaml: skipped: its top-level fields are `train`, `features`, `optimizer`, "
        "holding other things\n"
        "variables.pb: skipped: " + _NO_TYPE + "\n"
    )
    assert _check(".") == (0, "All checks passed (1 file checked).\n")


def test_what_an_unnarrowed_hook_passes_from_hidden_folders_is_skipped(at_root: Path) -> None:
    # The walk skips hidden folders; a pre-commit hook without `files:` passes their files by
    # name, with --documents-only.
    code, out = _check(
        "--documents-only", "--show-files", ".vscode/settings.json", ".github/workflows/ci.yml"
    )
    assert code == 0
    assert out == (
        ".vscode/settings.json: skipped: its top-level fields are `[python]`, "
        "`python.testing.pytestEnabled`, `python.testing.pytestArgs`, `files.associations`, "
        "`files.exclude`\n"
        ".github/workflows/ci.yml: skipped: its top-level fields are `name`, `on`, `jobs`\n"
    )
