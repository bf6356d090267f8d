"""What a hostile review of the TorchRec front-end found, each kept fixed: JSON and YAML specs
recognised, a stack call without `call` and recorded stacks of no table reported, the API's
refusals naming the field, a string of one-letter names accepted as the library accepts it,
limits and rotations out of range, a `.metadata` named alone that cannot be read, and thousands
of tables stacked in seconds."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.torchrec_specs import findings_of
from tpuemb_cli.cli import main

# `tpuemb_cli.torchrec`, as type checkers import it.
from tpuemb_cli.frontends.torchrec.api import lint_torchrec, spec_from_torchrec

EXAMPLE = Path(__file__).parent.parent / "examples" / "torchrec" / "recommender.torchrec.pbtxt"


def _run(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, list(args))
    return done.exit_code, done.stdout + done.stderr


@pytest.mark.parametrize("to", ["json", "yaml"])
def test_a_spec_in_json_or_yaml_is_a_torchrec_spec(tmp_path: Path, to: str) -> None:
    code, converted = _run("convert", str(EXAMPLE), "--to", to)
    assert code == 0
    (tmp_path / "specs").mkdir()
    path = tmp_path / "specs" / f"rec.{to}"
    path.write_text(converted)
    assert _run("check", "--isolated", str(path)) == (0, "All checks passed (1 file checked).\n")
    # Found in a folder too, not skipped.
    folder = _run("check", "--isolated", str(tmp_path / "specs"))
    assert folder == (0, "All checks passed (1 file checked).\n")
    if to == "json":
        assert json.loads(converted)["collection"]["type"]


def test_a_stack_call_without_call_and_recorded_stacks_of_no_table() -> None:
    table = (
        'tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "a" }\n'
    )
    found = findings_of(table + "stack_calls { }\nprepare {}")
    # A call that says none is the default, stack_tables: an empty one.
    assert [(r, p) for r, p, *_ in found] == [("TE843", ("stack_calls", 0))]
    recorded = findings_of(
        table
        + 'stacks { stack_name: "zz" tables: "nope" }\nstacks { }\n'
        + 'collection { batch_size: 2 optimizer { type: "Adagrad" } }'
    )
    assert [(r, p) for r, p, *_ in recorded] == [
        ("TE862", ("stacks", 0, "tables")),
        ("TE862", ("stacks", 1, "tables")),
    ]


def test_a_string_of_one_letter_names_stacks_as_the_library_stacks_it() -> None:
    tables = "".join(
        f'tables {{ name: "{n}" kind: "bag" num_embeddings: 64 embedding_dim: 8 '
        f'feature_names: "{n}" }}\n'
        for n in "ab"
    )
    call = 'stack_calls {{ call: "stack_tables" tables: "{}" tables_string: true }}\nprepare {{}}'
    assert findings_of(tables + call.format("ab")) == []  # the library makes stack a_b
    assert [r for r, *_ in findings_of(tables + call.format("abc"))] == ["TE842"]


def test_limits_and_rotations_out_of_range() -> None:
    table = (
        'tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "a" }\n'
    )
    found = findings_of(
        table
        + 'stack_calls { call: "stack_tables" tables: "a" rotation: -3 }\n'
        + "collection { batch_size: 2 auto_stack: true activation_mem_bytes_limit: -1 "
        + 'optimizer { type: "Adagrad" } }'
    )
    assert sorted((r, p) for r, p, *_ in found) == [
        ("TE849", ("collection", "activation_mem_bytes_limit")),
        ("TE849", ("stack_calls", 0, "rotation")),
    ]


@dataclass
class EmbeddingBagConfig:
    name: str
    num_embeddings: Any
    embedding_dim: Any = 8
    feature_names: Any = field(default_factory=lambda: ["f"])


@dataclass
class SparseCoreEmbeddingConfig:
    config: Any
    max_seq_len: Any = None
    max_ids_per_partition: Any = 256


class Index:
    """An integer as NumPy's and torch's are: by ``__index__``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_the_api_reads_integers_by_index_and_refuses_what_is_no_size() -> None:
    table = SparseCoreEmbeddingConfig(
        EmbeddingBagConfig("a", Index(64)), max_ids_per_partition=Index(0)
    )
    found = lint_torchrec([table], isolated=True)
    assert [(f.rule, f.path) for f in found] == [("TE849", ("tables", 0, "max_ids_per_partition"))]
    for size, said in (
        (float("nan"), "tables[0] (`a`) num_embeddings is nan: not an integer"),
        (1000.7, "tables[0] (`a`) num_embeddings is 1000.7: not an integer"),
        (2**70, "tables[0] (`a`) num_embeddings is 1180591620717411303424: past the 64 bits"),
    ):
        with pytest.raises(ValueError, match=re.escape(said)):
            spec_from_torchrec([SparseCoreEmbeddingConfig(EmbeddingBagConfig("a", size))])
    for given in (None, "abc", ["user", "item"]):
        with pytest.raises(ValueError):
            spec_from_torchrec(given)
    with pytest.raises(ValueError, match="stack_calls"):
        spec_from_torchrec([], stack_calls=["stack_tables"])  # type: ignore[list-item]


def test_an_unreadable_metadata_named_alone_says_why(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "ckpt"
    folder.mkdir()
    os.mkfifo(folder / ".metadata")
    code, said = _run(
        "diff", "--isolated", "--against-checkpoint", str(folder / ".metadata"), str(EXAMPLE)
    )
    assert code == 2 and "not a regular file" in said, said


def test_thousands_of_tables_stack_in_seconds(tmp_path: Path) -> None:
    lines = [
        f'tables {{ name: "t{i}" kind: "bag" num_embeddings: 1000 embedding_dim: 8 '
        f'feature_names: "f{i}" }}'
        for i in range(5000)
    ]
    lines.append(
        'collection { batch_size: 64 auto_stack: true optimizer { type: "Adagrad" '
        'kwargs { key: "lr" value: 0.1 } } }'
    )
    path = tmp_path / "big.pbtxt"
    path.write_text("# proto-message: tpuemb.torchrec.TorchRecSpec\n" + "\n".join(lines) + "\n")
    started = time.perf_counter()
    assert _run("check", "--isolated", str(path))[0] == 0
    # Quadratic, 5,000 tables took 11 s; here well under that, whatever the machine.
    assert time.perf_counter() - started < 8
