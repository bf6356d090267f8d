from tests.helpers import graph, graph_findings, node


def test_zero_required() -> None:
    g = graph("conditional_accumulator")
    tensor = node(g, "num_required").attr["value"].tensor
    del tensor.int_val[:]
    tensor.int_val.append(0)
    ((path, message),) = graph_findings(g, "TE812")
    assert path == "node[4].attr.value"
    assert "requires 0 gradients" in message


def test_near_miss() -> None:
    assert graph_findings(graph("conditional_accumulator"), "TE812") == []
