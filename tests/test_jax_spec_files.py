"""jax-tpu-embedding's EmbeddingSpecProto as a file: recognised without --type in text, JSON and
binary (and never in TensorFlow's own files or the examples), explained by stack, converted among
the encodings with its header. tests/data/jax/stacked.* are what jax-tpu-embedding 0.1.0 wrote for
three tables on 4 devices x 2 SparseCores (`create_proto_from_feature_specs`, then protobuf's own
text, JSON and binary writers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.load import encodings, load_bytes, sniff
from tpuemb_cli.load.recognise import recognise

from .helpers import DATA

REPO = Path(__file__).parent.parent
JAX = DATA / "jax"
HEADER = (
    "# proto-message: third_party.py.jax_tpu_embedding.sparsecore_lib_proto.EmbeddingSpecProto\n"
)
# Every file TensorFlow made and every example but the JAX ones: none may be taken for a JAX spec.
OTHERS = sorted(
    path
    for folder in (DATA / "tf-2.21", REPO / "examples")
    for path in folder.rglob("*")
    if path.is_file() and "jax" not in path.relative_to(folder).parts
)
JAX_EXAMPLES = sorted((REPO / "examples" / "jax").rglob("*.pbtxt"))


@pytest.mark.parametrize("name", ["stacked.pbtxt", "stacked.json", "stacked.binpb"])
def test_the_librarys_files_are_recognised_and_clean(name: str) -> None:
    data = (JAX / name).read_bytes()
    encoding = encodings.detect(name, data).name
    assert recognise(name, data, encoding).message_type == "EmbeddingSpecProto"
    document = load_bytes(data, name, encoding, "EmbeddingSpecProto")
    assert not document.problems and document.message is not None
    result = CliRunner().invoke(main, ["check", str(JAX / name)])
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "All checks passed (1 file checked).\n",
        "",
    )


@pytest.mark.parametrize("path", JAX_EXAMPLES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_jax_examples_are_taken_for_jax_specs(path: Path) -> None:
    data = path.read_bytes()
    assert recognise(path.name, data, "text").message_type == "EmbeddingSpecProto"
    assert sniff.text_type(data.decode()) == "EmbeddingSpecProto"


def test_binary_is_sniffed_without_a_name_to_go_by() -> None:
    data = (JAX / "stacked.binpb").read_bytes()
    assert sniff.binary_type("stacked", data) == "EmbeddingSpecProto"
    # A stack with no tables reads as a TensorFlow config's table descriptor: not sniffed.
    assert sniff.binary_type("x", b"\n\x05\n\x03abc") == "TPUEmbeddingConfiguration"


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: str(p.relative_to(REPO)))
def test_no_other_file_is_taken_for_a_jax_spec(path: Path) -> None:
    data = path.read_bytes()
    encoding = encodings.detect(path.name, data).name
    assert recognise(path.name, data, encoding).message_type != "EmbeddingSpecProto"
    if encoding == "binary":
        assert sniff.binary_type(path.name, data) != "EmbeddingSpecProto"
    elif encoding == "text":
        assert sniff.text_type(data.decode("utf-8", errors="replace")) != "EmbeddingSpecProto"


def test_explain_shows_each_stack() -> None:
    result = CliRunner().invoke(main, ["explain", str(JAX / "stacked.json")])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"{JAX / 'stacked.json'} (JAX SparseCore stacks: 2 stacks, 3 tables, 4 features)\n"
        "\n"
        'stack "video_user": 6,080 rows x 16 on 8 SparseCores, 384 samples; at most 256 ids '
        "(256 unique) per partition\n"
        "\n"
        "  table  rows x dim  padded     row offset  rotation  combiner  optimizer  features\n"
        "  -----  ----------  ---------  ----------  --------  --------  ---------  "
        "--------------\n"
        "  video  1000 x 16   1024 x 16  0           0         -         -          "
        "watched, liked\n"
        "  user   5000 x 12   5056 x 16  128         2         -         -          viewer\n"
        "\n"
        "  feature  table  input shape  output shape  row  col   shift\n"
        "  -------  -----  -----------  ------------  ---  ----  -----\n"
        "  watched  video  [128, 4]     [128, 16]     0    0     0\n"
        "  liked    video  [128, 1]     [128, 16]     128  0     0\n"
        "  viewer   user   [128, 1]     [128, 12]     256  1024  2\n"
        "\n"
        'stack "ads": 320 rows x 64 on 8 SparseCores, 128 samples; at most 256 ids (256 unique) '
        "per partition\n"
        "\n"
        "  table  rows x dim  padded    row offset  rotation  combiner  optimizer  features\n"
        "  -----  ----------  --------  ----------  --------  --------  ---------  --------\n"
        "  ads    300 x 64    320 x 64  0           0         -         -          ad\n"
        "\n"
        "  feature  table  input shape  output shape  row  col  shift\n"
        "  -------  -----  -----------  ------------  ---  ---  -----\n"
        "  ad       ads    [128, 2]     [128, 64]     0    0    0\n"
    )


def test_explain_shows_0_2_0s_optimizer_combiner_and_limit(tmp_path: Path) -> None:
    path = tmp_path / "s.pbtxt"
    path.write_text(
        'stacked_table_specs { stack_name: "a" activation_mem_bytes_limit: 2097152 '
        'table_specs { table_name: "a" combiner: "mean" optimizer { type: ADAGRAD '
        "learning_rate: 0.1 } } }\n"
    )
    result = CliRunner().invoke(main, ["explain", str(path)])
    assert result.exit_code == 1 and "TE681" in result.stderr  # no num_sparsecores: said first
    lines = result.stdout.splitlines()
    assert lines[2].endswith("per partition, activation limit 2,097,152 bytes")
    assert lines[6].split() == [
        "a",
        "0",
        "x",
        "0",
        "0",
        "x",
        "0",
        "0",
        "0",
        "mean",
        "adagrad,",
        "lr",
        "0.1",
        "-",
    ]
    # --memory counts the recorded optimizer's slot variable (tests/test_jax_memory.py has more).
    result = CliRunner().invoke(main, ["explain", "--memory", str(path)])
    assert result.exit_code == 1 and "TE681" in result.stderr  # said first
    assert "2 (parameters, accumulator)" in result.stdout.splitlines()[5]


@pytest.mark.parametrize("source", ["stacked.pbtxt", "stacked.json", "stacked.binpb"])
@pytest.mark.parametrize("to", ["text", "json", "binary", "yaml"])
def test_convert_round_trips_among_the_encodings(source: str, to: str, tmp_path: Path) -> None:
    binary = (JAX / "stacked.binpb").read_bytes()
    suffix = {"text": "pbtxt", "json": "json", "binary": "binpb", "yaml": "yaml"}[to]
    out = tmp_path / f"out.{suffix}"
    result = CliRunner().invoke(main, ["convert", "--to", to, str(JAX / source), "-o", str(out)])
    assert (result.exit_code, result.stderr) == (0, "")
    data = out.read_bytes()
    if to == "text":
        assert data.decode().startswith(HEADER)
    again = ["convert", "--to", "binary", str(out), "-o", str(tmp_path / "b")]
    back = CliRunner().invoke(main, again)
    assert (back.exit_code, back.stderr) == (0, "")
    assert (tmp_path / "b").read_bytes() == binary


def test_yaml_is_written_by_libyaml_as_pure_python_pyyaml_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PyYAML's pure-Python emitter took half a minute on 10,000 stacks; libyaml's writes the
    # same text (issue 28, P1). With the pure-Python one refused, convert still writes it.
    import yaml
    import yaml.emitter

    if not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("PyYAML without libyaml")
    source = str(JAX / "stacked.binpb")
    expected = CliRunner().invoke(main, ["convert", "--to", "yaml", source])
    assert expected.exit_code == 0

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the pure-Python YAML emitter")

    monkeypatch.setattr(yaml.emitter.Emitter, "emit", refused)
    result = CliRunner().invoke(main, ["convert", "--to", "yaml", source])
    assert (result.exit_code, result.stdout) == (0, expected.stdout)
    monkeypatch.undo()
    assert expected.stdout == yaml.safe_dump(
        yaml.safe_load(expected.stdout), sort_keys=False, allow_unicode=True, width=100
    )
