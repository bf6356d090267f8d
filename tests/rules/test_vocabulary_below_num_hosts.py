from tests.helpers import CLEAN, lint, located, of
from tpuemb_cli.model.findings import Severity


def _rows_on_hosts(rows: int, hosts: int) -> str:
    return CLEAN.replace("vocabulary_size: 1000", f"vocabulary_size: {rows}").replace(
        "num_hosts: 1", f"num_hosts: {hosts}"
    )


def test_ten_rows_on_thirty_two_hosts_is_refused_as_tensorflows_ops_refuse_it() -> None:
    text = _rows_on_hosts(10, 32).replace("num_tensor_cores: 8", "num_tensor_cores: 128")
    assert located(text, "TE404") == [("table_descriptor[0].vocabulary_size", 3, 3)]
    (finding,) = of(lint(text), "TE404")
    assert finding.severity is Severity.ERROR
    # TensorFlow's own words (tests/test_tf_memory.py runs its op on the same table).
    assert finding.message == (
        'table 0 ("video") has 10 rows for 32 hosts, so 22 hosts have no row of it: TensorFlow\'s '
        "load and retrieve ops refuse it (InvalidArgumentError: All embedding shards must be "
        "non-empty, shard ID: 10 is empty, vocabulary size: 10, number of shards: 32). "
        "TensorFlow's Python API pads a table to one row a host when it writes the config; a "
        "config file is read as written"
    )
    assert finding.fix == "set `vocabulary_size: 32`, as TensorFlow's Python API would"


def test_three_rows_four_hosts() -> None:
    assert located(_rows_on_hosts(3, 4), "TE404") == [("table_descriptor[0].vocabulary_size", 3, 3)]


def test_near_miss_equal() -> None:
    assert located(_rows_on_hosts(4, 4), "TE404") == []
