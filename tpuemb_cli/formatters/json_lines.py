"""JSON Lines: one JSON object per finding per line, with the keys of the JSON report's findings
(for ``tpuemb diff``, of its changes).

Nothing else is printed (no summary), so every line parses on its own.
"""

from __future__ import annotations

import json

from tpuemb_cli.formatters import Report
from tpuemb_cli.formatters.json_format import change_dict, finding_dict


def format_report(report: Report, color: bool) -> str:
    # A diff's lines have the keys of its JSON report's changes, every line the same keys.
    as_dict = change_dict if report.command == "diff" else finding_dict
    return "".join(
        json.dumps(as_dict(finding), ensure_ascii=False) + "\n" for finding in report.findings
    )
