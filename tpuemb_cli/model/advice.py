"""What would make a config's tables fit: the smallest real slice of the chip on which the fullest
core holds at most a budget of bytes.

The fullest core's bytes on ``n`` cores are ``sum over tables of ceil(vocabulary / n) x weight``
(weight: ``dimension x state arrays x 4``, ``model.memory``'s arithmetic). That never grows with
``n``, so the answer is a bisection over the chip's slice sizes -- the accelerator types that exist
(``model.accelerators``), a few dozen at most -- never over every integer: the advice is a slice
one can rent and a count an int32 holds. Each step is exact and cheap: the tables are sorted by
vocabulary once, with prefix sums of their weights, so on ``n`` cores every table of at most ``n``
rows (one row a core) is one subtraction, and only the larger tables are divided.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import NamedTuple

from tpuemb_cli.model.accelerators import Accelerator, slices
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import Memory
from tpuemb_cli.model.optimizers import FLOAT_BYTES
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration


class Demand:
    """The allocated tables of a config, ready to be weighed on any number of cores."""

    def __init__(self, memory: Memory, config: TPUEmbeddingConfiguration) -> None:
        tables = config.table_descriptor
        # Tables of one vocabulary size are one term: their weights add up.
        weights: dict[int, int] = {}
        for table in memory.tables:
            vocabulary = tables[table.table_index].vocabulary_size
            weight = table.dimension * len(table.arrays) * FLOAT_BYTES
            weights[vocabulary] = weights.get(vocabulary, 0) + weight
        self._vocabularies = sorted(weights)
        self._weights = [weights[vocabulary] for vocabulary in self._vocabularies]
        self._prefix = [0, *accumulate(self._weights)]
        self._known: dict[int, int] = {}

    def __bool__(self) -> bool:
        return bool(self._vocabularies)

    def per_core(self, cores: int) -> int:
        """Bytes on the fullest of ``cores`` cores (``cores`` >= 1)."""
        known = self._known.get(cores)
        if known is not None:
            return known
        small = bisect_right(self._vocabularies, cores)  # one row a core each
        total = self._prefix[small] + sum(
            -(-vocabulary // cores) * weight
            for vocabulary, weight in zip(
                self._vocabularies[small:], self._weights[small:], strict=True
            )
        )
        self._known[cores] = total
        return total


class Advice(NamedTuple):
    """The smallest slice that fits (None: none does), and the largest one tried."""

    fits: Accelerator | None
    largest: Accelerator | None  # None when tpuemb knows no slice of the chip


def smallest_slice(demand: Demand, chip: Chip, budget: int) -> Advice:
    """The smallest slice of ``chip`` on which the fullest core holds at most ``budget`` bytes."""
    sized = sorted(
        (found for found in slices(chip) if found.devices),
        key=lambda found: (found.devices or 0, found.size or 0),
    )
    if not sized or not demand:
        return Advice(None, sized[-1] if sized else None)
    if demand.per_core(sized[-1].devices or 1) > budget:
        return Advice(None, sized[-1])
    low, high = 0, len(sized) - 1
    while low < high:
        middle = (low + high) // 2
        if demand.per_core(sized[middle].devices or 1) <= budget:
            high = middle
        else:
            low = middle + 1
    return Advice(sized[low], sized[-1])
