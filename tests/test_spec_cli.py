"""`tpuemb compile` and `tpuemb explain`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main

from .helpers import CONFIGS, DATA, OPTIMS, SPEC

SPECS = DATA / "specs"


def test_compile_to_each_format(tmp_path: Path) -> None:
    runner = CliRunner()
    for to, suffix in (("binary", ".pb"), ("text", ".pbtxt")):
        out = tmp_path / f"config{suffix}"
        result = runner.invoke(
            main,
            ["compile", str(SPECS / "dict_feature_config_order.yaml"), "--to", to, "-o", str(out)],
        )
        assert (result.exit_code, result.stderr) == (0, "")
        expected = CONFIGS / f"dict_feature_config_order{suffix}"
        assert out.read_bytes() == expected.read_bytes()
    text = runner.invoke(main, ["compile", str(SPECS / "single_table_sgd.yaml")])
    assert text.stdout == (CONFIGS / "single_table_sgd.pbtxt").read_text()


def test_compile_refuses_a_spec_with_errors(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(SPEC.replace("dim: 16", "dim: 0"))
    out = tmp_path / "out.pbtxt"
    result = CliRunner().invoke(main, ["compile", str(spec), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert f"{spec}:5:5: TE701 [error]" in result.stderr
    assert result.stderr.endswith(f"tpuemb: error: {spec}: not compiled: the spec has errors\n")


def test_compile_text_and_json_specs(tmp_path: Path) -> None:
    spec = tmp_path / "spec.pbtxt"
    spec.write_text(
        "# proto-message: tpuemb.spec.EmbeddingSpec\n"
        "optimizer { sgd {} learning_rate { constant: 0.1 } }\n"
        'tables { name: "video" vocabulary_size: 1000 dim: 16 }\n'
        'features { name: "watched" table: "video" }\n'
        "topology { num_hosts: 1 cores_per_host: 8 per_replica_batch_size: 16 }\n"
    )
    result = CliRunner().invoke(main, ["compile", str(spec), "--to", "binary"])
    assert result.stdout_bytes == (CONFIGS / "single_table_sgd.pb").read_bytes()


def test_explain_a_spec() -> None:
    result = CliRunner().invoke(main, ["explain", str(SPECS / "shared_callable_lr.yaml")])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].endswith("(compiled as TensorFlow would)")
    assert lines[2].split()[:4] == ["table", "rows", "x", "dim"]
    rows = {line.split()[0]: line for line in lines[4:8]}
    assert "tag 0 (lr_warmup)" in rows["a"] and "tag 0 (lr_warmup)" in rows["b"]
    assert "tag 1 (lr_decay)" in rows["c"] and " 0.25 " in rows["d"]
    assert lines[-1] == "mode training, 1 host, 8 cores"


def test_explain_a_config_with_clipping_and_decay() -> None:
    result = CliRunner().invoke(main, ["explain", str(CONFIGS / "quantization_clipping_decay.pb")])
    row = result.stdout.splitlines()[4]
    assert row.split()[:4] == ["q", "100", "x", "4"]
    assert "[-1.0, 1.0]" in row and "[-inf, 5.0]" in row and "0.01 x lr" in row
    assert "enabled" in row


ROOT = Path(__file__).parent.parent


def explain(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["explain", *args])
    return result.exit_code, result.stdout, result.stderr


def test_explain_an_optimizer_shows_its_settings_and_no_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An OptimizationParameters file belongs to no table and has no topology: none is made up.
    monkeypatch.chdir(ROOT)
    assert explain("examples/adam_optimizer.pbtxt") == (
        0,
        "examples/adam_optimizer.pbtxt (OptimizationParameters: one table's optimizer)\n"
        "\n"
        "optimizer      adam (beta1 0.9, beta2 0.999, epsilon 1e-07, use_non_lazy_adam true, "
        "use_sum_inside_sqrt true)\n"
        "learning rate  none (0)\n"
        "weight clip    -\n"
        "gradient clip  -\n"
        "weight decay   -\n"
        "accumulation   enabled\n"
        "packing        unspecified\n",
        "",
    )


def test_explain_an_optimizer_with_every_setting(tmp_path: Path) -> None:
    path = tmp_path / "opt.pbtxt"
    path.write_text(
        "# proto-message: OptimizationParameters\n"
        "adagrad_momentum { momentum: 0.5 use_nesterov: true }\n"
        "learning_rate { dynamic { tag: 1 } }\n"
        "clipping_limits { upper { value: 3 } }\n"
        "gradient_clipping_limits { lower { value: -2 } upper { value: 2 } }\n"
        "weight_decay_factor: 0.01\n"
        "multiply_weight_decay_factor_by_learning_rate: true\n"
        "simulated_quantization { enabled: true num_buckets: 2"
        " clipping_limits { lower { value: -1 } } }\n"
        "gradient_accumulation_status: 7\n"
        "low_dimensional_packing_status: DISABLED\n"
        "hot_id_replication_configuration { status: MIGRATION_ONLY }\n"
    )
    # Unset algorithm parameters are shown as the zeros TensorFlow reads; an enum number
    # TensorFlow does not declare is shown as the number.
    assert explain(str(path))[:2] == (
        1,  # its errors said first (issue 38)
        f"{path} (OptimizationParameters: one table's optimizer)\n"
        "\n"
        "optimizer           adagrad_momentum (momentum 0.5, use_nesterov true, exponent 0.0, "
        "beta2 0.0, epsilon 0.0)\n"
        "learning rate       tag 1\n"
        "weight clip         [-inf, 3.0]\n"
        "gradient clip       [-2.0, 2.0]\n"
        "weight decay        0.01 x lr\n"
        "accumulation        7\n"
        "packing             disabled\n"
        "quantization        enabled, 2 buckets, range [-1.0, inf]\n"
        "hot id replication  migration_only\n",
    )


def test_explain_an_optimizer_without_an_algorithm(tmp_path: Path) -> None:
    # What TensorFlow's CustomOptimizer writes; the deprecated FTRL flag shows only when set.
    path = tmp_path / "opt.pbtxt"
    path.write_text("gradient_accumulation_status: DISABLED\n")
    code, out, err = explain(str(path), "--type", "OptimizationParameters")
    assert (code, err) == (0, "")
    assert out.splitlines()[2] == "optimizer      none (no algorithm is set)"
    code, out, err = explain(str(OPTIMS / "ftrl_default.pbtxt"))
    assert out.splitlines()[2] == (
        "optimizer      ftrl (l1 0.0, l2 0.0, lr_power -0.5, beta 0.0, multiply_linear_by_lr false)"
    )


def test_explain_lists_features_whose_table_id_names_no_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    assert explain("examples/mistakes/common_mistakes.pbtxt")[:2] == (
        1,  # the mistakes said first (issue 38)
        "examples/mistakes/common_mistakes.pbtxt\n"
        "\n"
        "table  rows x dim      optimizer  learning rate  weight clip  gradient clip  weight decay"
        "  accumulation  packing      features\n"
        "-----  --------------  ---------  -------------  -----------  -------------  ------------"
        "  ------------  -----------  --------------\n"
        "video  2,000,000 x 64  adagrad    tag 0          -            [10.0, -10.0]  -           "
        "  enabled       unspecified  watched_videos\n"
        "query  500,000 x 32    adam       tag 2          -            -              -           "
        "  enabled       unspecified  -\n"
        "\n"
        'feature 1 ("query_terms"): table_id 2 -- no such table\n'
        "\n"
        "mode training, 2 hosts, 16 cores\n",
    )


def test_explain_lists_an_unnamed_feature_with_a_negative_table_id(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_text(
        'table_descriptor { name: "t" vocabulary_size: 4 dimension: 2 }\n'
        'feature_descriptor { name: "a" table_id: 0 input_shape: 8 }\n'
        "feature_descriptor { table_id: -1 input_shape: 8 }\n"
    )
    code, out, _ = explain(str(path))
    assert code == 1  # TE407 said first (issue 38)
    assert out.splitlines()[4:] == [
        "t      4 x 2       none       -              -            -              -             "
        "-             -        a",
        "",
        "feature 1: table_id -1 -- no such table",
        "",
        "mode unspecified, 0 hosts, 0 cores",
    ]


def test_explain_refuses_a_spec_with_errors(tmp_path: Path) -> None:
    # TensorFlow would not build it (and `compile` does not): a compiled table would be made up.
    spec = tmp_path / "bad.yaml"
    spec.write_text(SPEC.replace("table: video", "table: nope"))
    code, out, err = explain(str(spec))
    assert (code, out) == (1, "")
    assert err == (
        f"{spec}:7:21: TE703 [error] feature \"watched\" uses table 'nope', which the spec does "
        "not define\n"
        "Found 1 error in 1 file (1 file checked).\n"
        f"tpuemb: error: {spec}: not explained: the spec has errors\n"
    )


def test_explain_says_what_it_does_not_explain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    graph = "tests/data/tf-2.21/graphs/tpu_embedding_send_recv.pbtxt"
    assert explain(graph) == (
        2,
        "",
        f"tpuemb: error: {graph}: a GraphDef: explain shows a config, a spec, an optimizer, JAX "
        "stacks or a Keras-RS model; `tpuemb check` lints a graph's TPU embedding ops and their "
        "configs\n",
    )
    # A file that is no TPU embedding document is told so, not explained as an empty config.
    manifest = "tests/data/tf-2.21/graphs/manifest.json"
    code, out, err = explain(manifest)
    assert (code, out) == (1, "")
    assert err.startswith(
        f"tpuemb: error: {manifest}: not a TPU embedding document: its top-level fields are "
    )
    assert err.endswith(
        "; pass --type if it is one (tpuemb reads: TPUEmbeddingConfiguration, "
        "OptimizationParameters, EmbeddingSpec, GraphDef, SavedModel, SparseCoreTableLayouts, "
        "EmbeddingSpecProto, KerasModel, TorchRecSpec)\n"
    )


@pytest.mark.parametrize("command", [["explain"], ["convert", "--to", "json"], ["compile"]])
def test_one_file_commands_refuse_a_directory(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not whichever file in it sorts first (explain examples/ explained adam_optimizer.pbtxt).
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, [command[0], "examples/", *command[1:]])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "tpuemb: error: examples/: is a directory; name one file in it\n"


def test_explain_says_a_configs_errors_first_and_exits_1(tmp_path: Path) -> None:
    # Issue 38: `vocabulary_sise` and `dimenson` were explained as a 0 x 0 table, exit 0, and
    # `--memory --tpu v5e` said "fits" without a word of the errors.
    path = tmp_path / "broken.pbtxt"
    path.write_text(
        'table_descriptor { name: "video" vocabulary_sise: 100 dimenson: 8\n'
        "  optimization_parameters { adagrad {} learning_rate { constant: 0.1 } } }\n"
        "feature_descriptor { table_id: 0 input_shape: 4 }\n"
        "mode: TRAINING num_hosts: 1 num_tensor_cores: 8\n"
    )
    for args in ((), ("--memory", "--tpu", "v5e")):
        code, _, err = explain(*args, str(path))
        assert code == 1
        assert err.splitlines() == [
            f"{path}:1:34: TE002 [error] TableDescriptor has no field `vocabulary_sise`; did you "
            "mean `vocabulary_size`?",
            f"{path}:1:55: TE002 [error] TableDescriptor has no field `dimenson`; did you mean "
            "`dimension`?",
            "Found 2 errors in 1 file (1 file checked).",
            f"tpuemb: {path}: explained as read, with the errors above",
        ]
    # A clean config: nothing on stderr, exit 0, as ever.
    assert explain(str(ROOT / "examples" / "recommender.pbtxt"))[::2] == (0, "")
