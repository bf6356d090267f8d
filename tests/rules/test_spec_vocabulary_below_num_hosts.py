from types import SimpleNamespace
from typing import Any

from tests.helpers import SPEC, lint, of, spec_located
from tpuemb_cli.model.findings import Severity
from tpuemb_cli.spec.compiler import compile_spec
from tpuemb_cli.tf import lint_tf, spec_from_tf

SMALL = SPEC.replace("vocabulary_size: 1000", "vocabulary_size: 10").replace(
    "num_hosts: 1", "num_hosts: 32"
)


def test_a_spec_table_below_the_host_count_is_padded_as_tensorflows_python_api_pads_it() -> None:
    assert spec_located(SMALL, "TE709") == [("tables[0].vocabulary_size", 4, 5)]
    findings = lint(SMALL, fmt="yaml")
    (finding,) = of(findings, "TE709")
    assert finding.severity is Severity.WARNING
    assert finding.message == (
        'table "video" has 10 rows for 32 hosts: TensorFlow\'s Python API (TPUEmbedding, '
        "through TableConfig._set_table_descriptor) writes vocabulary_size 32 into the config, "
        "one row a host, as `tpuemb compile` does; the variables keep 10 rows"
    )
    # The compiled config is the padded one, so the config rule (an error) has nothing to say.
    assert of(findings, "TE404") == []


def test_live_objects_get_the_same_warning() -> None:
    class SGD:
        learning_rate = 0.1

    table = SimpleNamespace(
        name="video", vocabulary_size=10, dim=4, combiner="mean", optimizer=None
    )
    feature = SimpleNamespace(table=table, name="f", max_sequence_length=0, output_shape=[16])
    arguments: dict[str, Any] = {"num_hosts": 32, "cores_per_host": 4}
    findings = lint_tf([feature], SGD(), **arguments)
    assert [(f.rule, f.field, f.severity) for f in findings] == [
        ("TE709", "tables[0].vocabulary_size", Severity.WARNING)
    ]
    compiled = compile_spec(spec_from_tf([feature], SGD(), **arguments)).config
    assert compiled.table_descriptor[0].vocabulary_size == 32


def test_near_misses() -> None:
    equal = SPEC.replace("vocabulary_size: 1000", "vocabulary_size: 32").replace(
        "num_hosts: 1", "num_hosts: 32"
    )
    assert spec_located(equal, "TE709") == []
    # TPUEmbeddingV2 writes no TPUEmbeddingConfiguration: nothing pads to the hosts there.
    sparsecore = (
        SMALL.replace("table: video}", "table: video, output_shape: [16]}").replace(
            "batch_size: 16}", "batch_size: 16, sparse_cores_per_chip: 4}"
        )
        + "sparse_core: {}\n"
    )
    assert spec_located(sparsecore, "TE709") == []
