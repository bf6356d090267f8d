"""spec_from_tf on TensorFlow's own objects: for each case of cases.py, the spec built from the
live objects compiles to the bytes TensorFlow wrote. Needs TensorFlow (`make test-tf` installs it);
skipped without it."""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import pytest

from tpuemb_cli.spec.compiler import compile_spec
from tpuemb_cli.tf import lint_tf, spec_from_tf

from .helpers import CONFIGS

pytest.importorskip("tensorflow")


def _cases() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("tf_cases", str(CONFIGS / "cases.py.txt"))
    spec = importlib.util.spec_from_loader("tf_cases", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


CASES = sorted(p.stem for p in CONFIGS.glob("*.pb"))


def _arguments(case: dict[str, Any]) -> dict[str, Any]:
    return {
        "num_hosts": case["hosts"],
        "cores_per_host": case["cores"],
        "num_cores_per_replica": case.get("num_cores_per_replica"),
        "per_replica_batch_size": case.get("batch"),
        "per_replica_input_shapes": case.get("input_shapes"),
        "pipeline_execution_with_tensor_core": case.get(
            "pipeline_execution_with_tensor_core", False
        ),
    }


@pytest.mark.parametrize("name", CASES)
def test_spec_from_live_objects_compiles_to_tensorflows_bytes(name: str) -> None:
    case = getattr(_cases(), f"case_{name}")()
    spec = spec_from_tf(case["feature_config"], case["optimizer"], **_arguments(case))
    compiled = compile_spec(spec).config.SerializeToString(deterministic=True)
    assert compiled == (CONFIGS / f"{name}.pb").read_bytes()


def test_lint_tf_reports_what_tensorflow_accepts() -> None:
    import tensorflow as tf

    u = tf.tpu.experimental.embedding
    table = u.TableConfig(
        vocabulary_size=100, dim=4, name="t", optimizer=u.FTRL(0.1, learning_rate_power=0.5)
    )
    findings = lint_tf(
        u.FeatureConfig(table=table), None, num_hosts=1, cores_per_host=8, per_replica_batch_size=8
    )
    assert [(f.rule, f.field) for f in findings] == [
        ("TE207", "tables[0].optimizer.ftrl.learning_rate_power")
    ]


def test_works_where_tensorflow_itself_cannot_build_the_config() -> None:
    import google.protobuf
    import tensorflow as tf

    u = tf.tpu.experimental.embedding
    table = u.TableConfig(vocabulary_size=10, dim=2, name="t", optimizer=u.SGD(0.1))
    if int(google.protobuf.__version__.split(".")[0]) >= 7:
        # TensorFlow 2.21 assigns a bool to an enum field, which protobuf 7.34+ refuses.
        from tensorflow.core.protobuf.tpu import optimization_parameters_pb2

        with pytest.raises(TypeError):
            table.optimizer._set_optimization_parameters(
                optimization_parameters_pb2.OptimizationParameters()
            )
    spec = spec_from_tf(
        u.FeatureConfig(table=table), None, num_hosts=1, cores_per_host=8, per_replica_batch_size=4
    )
    assert compile_spec(spec).config.table_descriptor[0].name == "t"


def test_sparse_accumulator_fixture_is_what_tensorflow_builds_and_it_aborts() -> None:
    # The fixture tpuemb's TE811 test lints: TensorFlow builds the same graph, and running it
    # kills the process (SIGABRT, `float expected, got uint64`), which tpuemb now reports.
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import tensorflow as tf

    script = Path(__file__).parent / "data" / "tf-made" / "make_sparse_accumulator.py"
    loader = importlib.machinery.SourceFileLoader("make_sparse_accumulator", str(script))
    spec = importlib.util.spec_from_loader("make_sparse_accumulator", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    built = module.build().as_graph_def()
    committed = tf.compat.v1.GraphDef.FromString(
        script.with_name("sparse_accumulator_uint64.pb").read_bytes()
    )
    assert [(n.name, n.op, sorted(n.input)) for n in built.node] == [
        (n.name, n.op, sorted(n.input)) for n in committed.node
    ]
    run = subprocess.run(
        [sys.executable, str(script), "--run"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == -signal.SIGABRT
    assert "float expected, got uint64" in run.stderr
