"""A walked pickle's value measured as a tree: the memo lets one value stand in many places, so
this is what bounds the value a reader of it may walk."""

from __future__ import annotations

from tpuemb_cli.load.pickles import limits
from tpuemb_cli.load.pickles.records import Object, PersistentId, PickleError


def _children(value: object) -> list[object]:
    if isinstance(value, dict):
        return [item for pair in value.items() for item in pair]
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if isinstance(value, Object):
        found: list[object] = [value.callable, value.args, value.state]
        if value.kwargs is not None:
            found.append(value.kwargs)
        found.extend(value.appended)
        found.extend(item for pair in value.set_items for item in pair)
        return found
    if isinstance(value, PersistentId):
        return [value.pid]
    return []


def measure(root: object, name: str) -> None:
    """Refuse a value that is inside itself, or written out as a tree would have more than
    ``MAX_NODES`` nodes or nest deeper than ``MAX_DEPTH``; each shared value is measured once."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (nodes, depth) of a finished value
    open_ids: set[int] = set()
    # (value, children not yet finished, running nodes, running depth)
    work: list[tuple[object, list[object], int, int]] = []

    def enter(value: object, kids: list[object]) -> None:
        if id(value) in open_ids:
            raise PickleError(f"{name}: a container or object inside itself; refused")
        if len(work) >= limits.MAX_DEPTH:
            raise PickleError(f"{name}: nested more than {limits.MAX_DEPTH} levels deep; refused")
        open_ids.add(id(value))
        work.append((value, kids, 1, 0))

    first = _children(root)
    if first:
        enter(root, first)
    while work:
        value, kids, nodes, depth = work[-1]
        while kids:
            kid = kids.pop()
            done = sizes.get(id(kid))
            if done is not None:
                nodes, depth = nodes + done[0], max(depth, done[1])
                if len(work) + done[1] > limits.MAX_DEPTH:
                    raise PickleError(
                        f"{name}: nested more than {limits.MAX_DEPTH} levels deep; refused"
                    )
            else:
                grandchildren = _children(kid)
                if grandchildren:
                    work[-1] = (value, kids, nodes, depth)
                    enter(kid, grandchildren)
                    break
                nodes += 1
            if nodes > limits.MAX_NODES:
                raise PickleError(
                    f"{name}: more than {limits.MAX_NODES:,} values when written out (the memo "
                    "repeats values: a 'billion laughs' pickle?); refused"
                )
        else:
            work.pop()
            open_ids.discard(id(value))
            sizes[id(value)] = (nodes, depth + 1)
            if work:
                parent, rest, total, deepest = work[-1]
                total += nodes
                if total > limits.MAX_NODES:
                    raise PickleError(
                        f"{name}: more than {limits.MAX_NODES:,} values when written out (the memo "
                        "repeats values: a 'billion laughs' pickle?); refused"
                    )
                work[-1] = (parent, rest, total, max(deepest, depth + 1))
