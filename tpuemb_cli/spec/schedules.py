"""Named learning-rate schedules for the callables of live objects (``spec_from_tf``,
``spec_from_jax``): told apart by identity, as TensorFlow tags them and jax-tpu-embedding hashes
its optimizers -- two equal callables are two schedules."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec


class Schedules:
    """Gives each callable a name, added to ``spec.schedules`` the first time it is seen: the
    callable's ``__name__`` (``lambda`` for a lambda), with ``_2``, ``_3``... when it is taken."""

    def __init__(self, spec: EmbeddingSpec) -> None:
        self.spec = spec
        # By id, holding the callable so that its id is not reused while the spec is built.
        self._named: dict[int, tuple[Any, str]] = {}
        self._taken: set[str] = set()

    def name_of(self, function: Any) -> str:
        known = self._named.get(id(function))
        if known is not None:
            return known[1]
        base = getattr(function, "__name__", None) or type(function).__name__
        base = "lambda" if base == "<lambda>" else base
        name, suffix = base, 2
        while name in self._taken:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self._named[id(function)] = (function, name)
        self._taken.add(name)
        self.spec.schedules.add(name=name, description=repr(function)[:200])
        return name
