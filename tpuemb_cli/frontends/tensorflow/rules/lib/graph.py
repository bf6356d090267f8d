"""A read-only view of a TensorFlow graph for the graph rules: every node with its field path,
in the top-level graph and in each library function, and name lookups within each scope."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from tpuemb_cli.model.paths import FieldPath


class Node(NamedTuple):
    node: Any  # a NodeDef
    path: FieldPath  # where it is: node[3], or library.function[0].node_def[2]
    scope: Scope

    @property
    def label(self) -> str:
        """``node `send` (XlaSendTPUEmbeddingGradients)``, with the function when in one."""
        where = f" in function `{self.scope.function}`" if self.scope.function else ""
        return f"node `{self.node.name}` ({self.node.op}){where}"

    def attr(self, name: str) -> Any | None:
        return self.node.attr.get(name)


class Scope:
    """The nodes of the top-level graph, or of one library function."""

    def __init__(self, function: str | None) -> None:
        self.function = function
        self.nodes: list[Node] = []
        self.by_name: dict[str, Node] = {}

    def producer(self, node: Node, position: int) -> Node | None:
        """The node feeding input ``position`` of ``node`` (None for a function argument)."""
        text = node.node.input[position]
        return self.by_name.get(text.lstrip("^").split(":", 1)[0])


class GraphView:
    def __init__(self, graph: Any, prefix: FieldPath = ()) -> None:
        self.scopes: list[Scope] = []
        top = Scope(None)
        for index, node in enumerate(graph.node):
            self._add(top, node, prefix + ("node", index))
        self.scopes.append(top)
        for f_index, function in enumerate(graph.library.function):
            scope = Scope(function.signature.name)
            for n_index, node in enumerate(function.node_def):
                self._add(
                    scope, node, prefix + ("library", "function", f_index, "node_def", n_index)
                )
            self.scopes.append(scope)

    @staticmethod
    def _add(scope: Scope, node: Any, path: FieldPath) -> None:
        entry = Node(node, path, scope)
        scope.nodes.append(entry)
        scope.by_name[node.name] = entry

    def nodes(self, *ops: str) -> Iterator[Node]:
        for scope in self.scopes:
            for node in scope.nodes:
                if not ops or node.node.op in ops:
                    yield node
