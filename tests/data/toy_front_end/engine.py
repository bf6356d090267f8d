"""How the engine lints a toyemb config: the toy rules, with paths from its root."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine.runner import Emit, Engine


def lint_toy(engine: Engine, config: Any, emit: Emit, expected: Any, facts: Any) -> None:
    for rule in engine.rules("toy"):
        check = rule.check("toy")
        assert check is not None
        for violation in engine.checked(rule, check, config):
            emit(rule, (), violation)
