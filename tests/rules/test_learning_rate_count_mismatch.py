from tests.helpers import graph, graph_findings, node


def test_too_many_and_too_few() -> None:
    g = graph("tpu_embedding_xla_send_recv")
    node(g, "send").attr["NumLearningRateTags"].i = 5
    ((path, message),) = graph_findings(g, "TE802")
    assert path == "node[16].attr.NumLearningRateTags"
    assert "feeds 5 learning rates" in message and "2 distinct dynamic tags" in message
    g = graph("tpu_embedding_send_recv")
    node(g, "send").attr["NN"].i = 0
    assert [p for p, _ in graph_findings(g, "TE802")] == ["node[7].attr.NN"]


def test_near_miss() -> None:
    assert graph_findings(graph("tpu_embedding_send_recv"), "TE802") == []
