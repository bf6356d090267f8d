"""Which new table is which old one, whatever the checkpoint will make of it.

A checkpoint pairs tables by name. What the user means is another question, and the answer is
what makes a message useful ("renamed? `user` will not be restored into `users`"):

- a table named in both configs is itself;
- tables named by position (``table_<i>``, TensorFlow's name for a table without one) are
  matched by the features that look them up, then by their order and shape (an inserted table
  shifts every name after it);
- of what is left, an old and a new name with the same shape and optimizer, and no other
  candidate, is a rename (features shared by both confirm one where there are several).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

from tpuemb_cli.compat.sides import Table

Signature = tuple[int, int, str | None]


def signature(table: Table) -> Signature:
    return (table.dim, table.rows if table.rows is not None else table.vocabulary, table.optimizer)


def identities(old: Sequence[Table], new: Sequence[Table]) -> dict[int, int]:
    """new table index -> index of the old table it is; a new table absent is new."""
    pairs: dict[int, int] = {}
    _unnamed(old, new, pairs)
    taken = set(pairs.values())
    old_by_name = {t.name: t for t in old if not t.unnamed and t.position not in taken}
    for table in new:
        if table.unnamed or table.position in pairs:
            continue
        match = old_by_name.get(table.name)
        if match is not None:
            pairs[table.position] = match.position
    _renames(old, new, pairs)
    return pairs


def _unnamed(old: Sequence[Table], new: Sequence[Table], pairs: dict[int, int]) -> None:
    old_unnamed = [t for t in old if t.unnamed]
    new_unnamed = [t for t in new if t.unnamed]
    if not old_unnamed or not new_unnamed:
        return
    # By features: the old table most of a new table's features looked up, if it is the only
    # one that many did.
    feature_table = {name: t.position for t in old_unnamed for name in t.features}
    voted: set[int] = set()
    for table in new_unnamed:
        votes = Counter(feature_table[f] for f in table.features if f in feature_table)
        ranked = votes.most_common(2)
        if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
            continue
        if ranked[0][0] not in voted:
            pairs[table.position] = ranked[0][0]
            voted.add(ranked[0][0])
    # The rest by order and shape: the longest runs of equal shapes, as a diff aligns lines.
    taken = set(pairs.values())
    rest_old = [t for t in old_unnamed if t.position not in taken]
    rest_new = [t for t in new_unnamed if t.position not in pairs]
    matcher = difflib.SequenceMatcher(
        None, [signature(t) for t in rest_old], [signature(t) for t in rest_new], autojunk=False
    )
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            pairs[rest_new[block.b + offset].position] = rest_old[block.a + offset].position


def _renames(old: Sequence[Table], new: Sequence[Table], pairs: dict[int, int]) -> None:
    """Pairs each new name with the one old name gone of its shape and optimizer. Indexed by
    signature and by feature, so that renaming every one of N tables costs N look-ups, not N x N
    comparisons."""
    taken = set(pairs.values())
    new_names = {t.name for t in new}
    # The old tables whose names are gone, by signature (by position within one), and by the
    # features that looked them up.
    gone: dict[Signature, dict[int, Table]] = {}
    by_feature: dict[str, list[Table]] = {}
    for table in old:
        if table.position in taken or table.unnamed or table.name in new_names:
            continue
        gone.setdefault(signature(table), {})[table.position] = table
        for feature in table.features:
            by_feature.setdefault(feature, []).append(table)
    came = [t for t in new if t.position not in pairs and not t.unnamed]
    # How many new tables of each signature are not paired yet (each one itself included).
    unpaired = Counter(signature(t) for t in came)
    for table in came:
        key = signature(table)
        same = gone.get(key)
        if not same:
            continue
        if len(same) > 1:
            # Several candidates: the one that shares a feature with it, if only one does.
            shared = {
                t.position
                for feature in table.features
                for t in by_feature.get(feature, ())
                if t.position in same
            }
            if len(shared) != 1:
                continue
            match = same[next(iter(shared))]
        else:
            match = next(iter(same.values()))
        if unpaired[key] > 1 and not set(match.features) & set(table.features):
            continue  # two new tables could be the one renamed: no guess
        pairs[table.position] = match.position
        del same[match.position]
        unpaired[key] -= 1
