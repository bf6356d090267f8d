"""How the engine lints a TorchRecSpec: the TorchRec rules, on the stacks torchrec makes of it
(computed once for every rule); with statistics given (``--stats``), its stacks' limits against
them; with a TPU named, its memory on each device.

``lint_torchrec`` is called by the engine (``Engine.run``) with the message, where findings go,
a compiled spec's expectations (none here) and a spec's facts (none: a TorchRecSpec has its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine.runner import Emit, Engine


def lint_torchrec(engine: Engine, spec: Any, emit: Emit, expected: Any, facts: Any) -> None:
    from tpuemb_cli.frontends.torchrec.rules.lib.facts import facts_of

    found = facts_of(spec)
    for rule in engine.rules("torchrec"):
        check = rule.check("torchrec")
        assert check is not None
        for violation in engine.checked(rule, check, spec, found):
            emit(rule, (), violation)
    if engine.settings.stats is not None and engine.rules("stats"):
        from tpuemb_cli.frontends.torchrec.rules.lib.measured import measured_torchrec

        measured = measured_torchrec(spec, found, engine.settings)
        if measured is not None:
            engine.measured(measured, emit)
    tpu = engine.accelerator()
    if tpu is not None and engine.rules("memory"):
        from tpuemb_cli.frontends.torchrec.rules.lib.fit import fit_of

        fit = fit_of(found, tpu.chip)
        if fit is not None:
            engine.fit(spec, fit, emit)
