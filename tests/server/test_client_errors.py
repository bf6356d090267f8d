"""The one line a client message pygls cannot read becomes in the log (server/client_errors)."""

from __future__ import annotations

import logging

from tpuemb_cli.server.client_errors import OneLine, _summary


def test_a_plain_traceback_gives_its_error() -> None:
    text = "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nKeyError: 'id'\n"
    assert _summary(text) == "KeyError: 'id'"


def test_nothing_to_go_by() -> None:
    assert _summary("") == "no details"
    assert _summary("something odd") == "something odd"


def test_other_records_pass_unchanged() -> None:
    record = logging.LogRecord("pygls", logging.ERROR, "x", 1, "Failed to %s", ("x",), None)
    assert OneLine().filter(record) and record.getMessage() == "Failed to x"


def test_the_deserialize_record_is_rewritten() -> None:
    traceback = (
        "  + Exception Group Traceback (most recent call last):\n"
        "  | cattrs.errors.ClassValidationError: While structuring Thing (1 sub-exception)\n"
        "    | TypeError: bad\n"
    )
    record = logging.LogRecord(
        "pygls", logging.ERROR, "x", 1, "Unable to deserialize message\n%s", (traceback,), None
    )
    assert OneLine().filter(record)
    assert record.getMessage() == (
        "tpuemb server: a client message could not be read (Thing: TypeError: bad)"
    )
