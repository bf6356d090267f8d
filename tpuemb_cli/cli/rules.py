"""``tpuemb rules`` and ``tpuemb rule CODE``: the catalog, and one rule's documentation."""

from __future__ import annotations

import json
from typing import Any

import click

from tpuemb_cli.cli.main import Command

_FORMAT = click.option(
    "--output-format",
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: as ruff's `rule --output-format json` writes rules, with tpuemb's fields.",
)


def _described(rule: Any, explanation: bool) -> dict[str, Any]:
    from tpuemb_cli.rules import RULESET_VERSION

    described: dict[str, Any] = {
        "code": rule.code,
        "name": rule.name,
        "family": rule.module.rsplit(".", 2)[-2],  # rules/<family>/<rule>.py
        "severity": str(rule.severity),
        "fix": rule.fixable,
        "summary": rule.summary,
        "ruleset_version": RULESET_VERSION,
    }
    if explanation:
        described["explanation"] = rule.doc.strip()
    return described


@click.command("rules", cls=Command)
@_FORMAT
def list_command(output_format: str) -> None:
    """List every rule: code, name, default severity and what it checks."""
    from tpuemb_cli.rules import all_rules

    rules = all_rules()
    if output_format == "json":
        click.echo(json.dumps([_described(rule, False) for rule in rules], indent=2))
        return
    width = max(len(rule.name) for rule in rules)
    click.echo(f"{'CODE':<6} {'NAME':<{width}} {'SEVERITY':<8} {'FIX':<6} SUMMARY")
    for rule in rules:
        click.echo(
            f"{rule.code:<6} {rule.name:<{width}} {rule.severity!s:<8} {rule.fixable:<6} "
            f"{rule.summary}"
        )


@click.command("rule", cls=Command)
@click.argument("key")
@_FORMAT
def show_command(key: str, output_format: str) -> None:
    """Print the documentation of one rule, by code (TE101) or name (negative-dynamic-tag)."""
    from tpuemb_cli.rules import find, load

    entry = find(key)
    if entry is None:
        raise click.BadParameter(f"no rule {key!r}; `tpuemb rules` lists them", param_hint="KEY")
    rule = load(entry.code)
    if output_format == "json":
        click.echo(json.dumps(_described(rule, True), indent=2))
        return
    click.echo(f"# {rule.code} {rule.name} ({rule.severity})\n")
    click.echo(rule.doc.strip())
