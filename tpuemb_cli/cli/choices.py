"""A click choice whose values are a registry's names, read when the command line is parsed: a
format or encoding registered at run time is offered, and no list of names is kept here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click

# click.Choice is generic from click 8.2 on; 8.1 (which we support) cannot subscript it.
if TYPE_CHECKING:
    _Choice = click.Choice[str]
else:
    _Choice = click.Choice


class RegistryChoice(_Choice):
    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        super().__init__([])

    @property  # type: ignore[override, unused-ignore]  # click 8.5 declares its own type
    def choices(self) -> Sequence[str]:
        return self._names()

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        pass  # click sets it in __init__; the registry is the list


def encodings() -> RegistryChoice:
    from tpuemb_cli.load import encodings as registry

    return RegistryChoice(registry.writable_names)


def formats() -> RegistryChoice:
    from tpuemb_cli import formatters

    return RegistryChoice(formatters.names)


def memory_formats() -> RegistryChoice:
    from tpuemb_cli.views import memory_formats as registry

    return RegistryChoice(registry.names)
