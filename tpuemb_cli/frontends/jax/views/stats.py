"""What ``tpuemb stats`` prints of each stack's statistics (`spec.stats.plan.StackResult`): a text
report, or a JSON document under the library's key names (``RENDERERS``, one row a format)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tpuemb_cli.frontends.jax.spec.stats.plan import Devices, StackResult
from tpuemb_cli.model.words import count, plural, printable

JSON_VERSION = 1


class StatsReport(NamedTuple):
    spec: str  # the spec's name, as given
    devices: Devices
    stacks: tuple[StackResult, ...]
    notes: tuple[str, ...] = ()  # what the reading said (rows no SparseCore reads, ...)


def _share(part: int, whole: int) -> str:
    return f"{part * 100 / whole:.1f}%" if whole else "-"


def _stack_text(stack: StackResult) -> list[str]:
    ids, unique = max(stack.max_ids, default=0), max(stack.max_unique_ids, default=0)
    id_limit, unique_limit = stack.limits
    need = stack.required_buffer_per_device
    buffer = stack.coo_buffer_size_per_device
    lines = [
        f"stack {stack.name}: {plural(stack.ids, 'id')} read",
        f"  max ids a partition         {count(ids):>12}  "
        f"(max_ids_per_partition {count(id_limit)})",
        f"  max unique ids a partition  {count(unique):>12}  "
        f"(max_unique_ids_per_partition {count(unique_limit)})",
        f"  required buffer a device    {count(need):>12}  "
        f"(the COO buffer: {count(buffer)}, {_share(need, buffer)} of it used)",
    ]
    if stack.over_limits:
        lines.append(
            f"  past the limits: with allow_id_dropping, {plural(stack.id_drop_counters, 'id')} "
            "dropped; without it, the preprocessing aborts (Observed max ids per partition ... is "
            "greater than the set max ids per partition)"
        )
    elif stack.id_drop_counters:
        lines.append(
            f"  {plural(stack.id_drop_counters, 'id')} dropped: past the suggested COO buffer"
        )
    else:
        lines.append("  no id dropped at these limits")
    if stack.unread_rows:
        lines.append(
            f"  {plural(stack.unread_rows, 'sample row')} read by no SparseCore (a feature's rows "
            "past the last whole slice of local devices x SparseCores)"
        )
    return lines


def render_text(report: StatsReport) -> str:
    d = report.devices
    lines = [
        f"{report.spec}: the statistics jax-tpu-embedding's preprocessing computes, on "
        f"{plural(d.local_devices, 'local device')} of {d.global_devices}, "
        f"{plural(d.per_device, 'SparseCore')} a device ({d.num_scs} partitions)",
        "",
    ]
    for stack in report.stacks:
        lines += _stack_text(stack) + [""]
    lines += list(report.notes)
    # The spec's name, stack and feature names are the user's: a newline or an escape sequence
    # in one is shown escaped, as check and explain show it, and cannot forge a line.
    return "\n".join(printable(line) for line in lines).rstrip("\n") + "\n"


def _stack_json(stack: StackResult) -> dict[str, Any]:
    return {
        "max_ids": list(stack.max_ids),
        "max_unique_ids": list(stack.max_unique_ids),
        "required_buffer_size": list(stack.required_buffer_size),
        "id_drop_counters": stack.id_drop_counters,
        "max_ids_per_partition": stack.limits[0],
        "max_unique_ids_per_partition": stack.limits[1],
        "required_buffer_size_per_device": stack.required_buffer_per_device,
        "coo_buffer_size_per_device": stack.coo_buffer_size_per_device,
        "aborts_without_id_dropping": stack.over_limits,
        "ids": stack.ids,
        "unread_rows": stack.unread_rows,
    }


def render_json(report: StatsReport) -> str:
    d = report.devices
    document = {
        "version": JSON_VERSION,
        "spec": report.spec,
        "global_device_count": d.global_devices,
        "local_device_count": d.local_devices,
        "num_sc_per_device": d.per_device,
        "stacks": {stack.name: _stack_json(stack) for stack in report.stacks},
        "notes": list(report.notes),
    }
    return json.dumps(document, indent=2) + "\n"


RENDERERS: dict[str, Callable[[StatsReport], str]] = {"text": render_text, "json": render_json}


def formats() -> Sequence[str]:
    return tuple(RENDERERS)
