"""A TPU as users name it: a chip (``v5p``) or an accelerator type (``v5p-128``), and the slice
sizes each chip comes in. ``parse`` is the one reader of these names: ``--tpu``, ``tpu`` in the
settings (file and language server), the API and a spec's ``topology.accelerator`` all call it.

An accelerator type is a prefix and a count, and the count is not the same thing on every chip
(Google Cloud's pages; ``docs/memory.md`` cites them):

- v3 and v4 count TensorCores ("TensorCore-based configuration ... v4-128 specifies a
  configuration with TPU v4s and 128 TensorCores", Cloud TPU's types and topologies page), as
  does v5p ("use the --accelerator-type argument to specify the number of TensorCores", the v5p
  page): a ``v5p-128`` has 64 chips.
- v5e (``v5litepod-N``) and v6e (``v6e-N``) count chips: one TensorCore a chip.

The sizes that exist: v4's are the topologies ``AxBxC`` with ``A <= B <= C``, all three at most
4 or all multiples of 4 (the types and topologies page), up to the 4,096-chip pod; v5p's by the same
rule up to the 6,144-chip largest slice (its page lists only the most common shapes, all of which
the rule gives); v5e's the 2D shapes the v5e page lists (1 to 256 chips), which v6e's
256-chip pod shares. A size no page gives is refused with the nearest one that exists, so that
advice and checks only ever name slices one can rent. v2 and TPU7x are named by chip only: no
page tpuemb found lists their accelerator types' sizes.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tpuemb_cli.model.chips import BY_NAME, CHIPS, Chip
from tpuemb_cli.model.words import plural

TYPES_PAGE = "https://cloud.google.com/tpu/docs/types-topologies"
V3_PAGE = "https://cloud.google.com/tpu/docs/v3"
V5E_PAGE = "https://cloud.google.com/tpu/docs/v5e"
V5P_PAGE = "https://cloud.google.com/tpu/docs/v5p"
V6E_PAGE = "https://cloud.google.com/tpu/docs/v6e"

# Longer names are not read: they are not TPUs, and difflib's cost grows with their length.
MAX_NAME = 64


def _v4_chip_counts(pod: int) -> tuple[int, ...]:
    """Chips of the v4 topologies AxBxC: A <= B <= C, all at most 4 or all multiples of 4,
    in whole hosts of 4 chips, up to ``pod`` chips."""
    counts = {a * b * c for a in range(1, 5) for b in range(a, 5) for c in range(b, 5)}
    for a in range(4, pod + 1, 4):
        for b in range(a, pod // a + 1, 4):
            for c in range(b, pod // (a * b) + 1, 4):
                counts.add(a * b * c)
    return tuple(sorted(count for count in counts if count % 4 == 0))


class Naming(NamedTuple):
    """How a chip's accelerator types are written: ``prefix-count``."""

    prefix: str
    unit: str  # what the count counts: "TensorCores" or "chips"
    per_chip: int  # units a chip: 2 TensorCores, or 1 chip
    sizes: tuple[int, ...]  # the counts that exist, ascending
    source: str


NAMING: dict[str, Naming] = {
    "v3": Naming("v3", "TensorCores", 2, (8, 32, 64, 128, 256, 512, 1024, 2048), V3_PAGE),
    "v4": Naming(
        "v4", "TensorCores", 2, tuple(2 * chips for chips in _v4_chip_counts(4096)), TYPES_PAGE
    ),
    "v5e": Naming("v5litepod", "chips", 1, (1, 4, 8, 16, 32, 64, 128, 256), V5E_PAGE),
    # The v5p page lists "the most common" shapes only (2x2x1 ... 16x16x24); its slices are 3D
    # like v4's, so v5p-32 (2x2x4) and the other shapes of v4's rule exist too, up to the
    # 6,144-chip single-slice maximum the page states.
    "v5p": Naming(
        "v5p", "TensorCores", 2, tuple(2 * chips for chips in _v4_chip_counts(6144)), V5P_PAGE
    ),
    "v6e": Naming("v6e", "chips", 1, (1, 4, 8, 16, 32, 64, 128, 256), V6E_PAGE),
}
# Other names people write for a chip, in ``_key`` spelling.
ALIASES = {"ironwood": "tpu7x", "trillium": "v6e", "7x": "tpu7x", "v5lite": "v5e"}


class UnknownTpu(ValueError):
    """A name that is no chip and no accelerator type tpuemb knows; the message says what is."""


class Accelerator(NamedTuple):
    """A chip, and the slice's size when an accelerator type named one."""

    chip: Chip
    size: int | None = None  # the accelerator type's count, in its naming's unit

    @property
    def name(self) -> str:
        """As tpuemb writes it: ``v5p``, ``v5p-128``, ``v5litepod-16``."""
        if self.size is None:
            return self.chip.name
        return f"{NAMING[self.chip.name].prefix}-{self.size}"

    @property
    def chips(self) -> int | None:
        """Chips in the slice, or None when only the chip was named."""
        if self.size is None:
            return None
        return self.size // NAMING[self.chip.name].per_chip

    @property
    def devices(self) -> int | None:
        """TPU devices in the slice -- TensorFlow's ``num_tensor_cores`` -- or None."""
        chips, per_chip = self.chips, self.chip.devices_per_chip
        return None if chips is None or per_chip is None else chips * per_chip

    def describe(self) -> str:
        """``v5p-128 (64 chips, 64 TensorFlow cores)``, or the chip's name."""
        if self.size is None:
            return self.name
        return f"{self.name} ({plural(self.chips or 0, 'chip')}, " + (
            f"{plural(self.devices, 'TensorFlow core')})" if self.devices is not None else ")"
        )


def _key(name: str) -> str:
    """``name`` (a chip's name as ``_CHIP`` reads it) in the chip table's spelling: lower case,
    a ``tpu`` prefix dropped before a version: ``TPU v5p``, ``tpu-v5p`` and ``V5P`` are all
    ``v5p``; an alias (``trillium``) is the chip it names."""
    key = name.lower()
    for prefix in ("tpu ", "tpu-", "tpu_"):
        key = key.removeprefix(prefix)
    if key.startswith("tpu") and key[3:] in BY_NAME:
        key = key[3:]
    return ALIASES.get(key, key)


def _chip_named(name: str) -> Chip | None:
    return BY_NAME.get(_key(name)) if _CHIP.fullmatch(name) else None


# The grammar, and nothing near it (issue 36, point 14): ASCII letters (any case) and digits, a
# chip's name after an optional ``TPU`` and one space, dash or underscore; an accelerator type is
# a prefix, one dash and a count in ASCII digits without a leading zero. ``str.isdigit`` and
# ``int`` also take other scripts' digits (``v5p-١٢٨``) and ``isdigit`` superscripts (which
# ``int`` then refuses), and a looser split read ``v5p--128`` and ``v5p-`` as v5p-128 and v5p.
_CHIP = re.compile(r"(?:[Tt][Pp][Uu][ _-]?)?[A-Za-z0-9]+", re.ASCII)
_TYPE = re.compile(r"((?:[Tt][Pp][Uu][ _-]?)?[A-Za-z0-9]+)-([1-9][0-9]*)", re.ASCII)
FORMS = (
    "a chip (v2, v3, v4, v5e, v5p, v6e, tpu7x; `TPU v5p` and any case too) or an accelerator "
    "type: its prefix, one dash and a count in ASCII digits with no leading zero (v4-32, "
    "v5p-128, v5litepod-16, v6e-256)"
)


def slices(chip: Chip) -> tuple[Accelerator, ...]:
    """Every accelerator type of ``chip`` that exists, smallest first (none for v2, TPU7x)."""
    naming = NAMING.get(chip.name)
    return tuple(Accelerator(chip, size) for size in naming.sizes) if naming else ()


def _known_names(count: str) -> list[str]:
    """What a mistyped name may have meant: every chip, and every prefix with ``count``."""
    names = [chip.name for chip in CHIPS]
    names += [f"{naming.prefix}-{count}" for naming in NAMING.values()] if count else []
    return names


def _unknown(text: str, count: str) -> UnknownTpu:
    from tpuemb_cli.model.nearest import did_you_mean, nearest

    shown = text if len(text) <= MAX_NAME else text[:MAX_NAME] + "..."
    close = nearest(text, _known_names(count)) if len(text) <= MAX_NAME else None
    listed = ", ".join(chip.name for chip in CHIPS)
    return UnknownTpu(
        f"unknown TPU {shown!r}"
        + (
            did_you_mean(close)
            if close
            else f" (chips: {listed}; or an accelerator type such as v5p-128)"
        )
    )


def _sized(chip: Chip, prefix: str, digits: str, text: str) -> Accelerator:
    naming = NAMING.get(chip.name)
    if naming is None:
        raise UnknownTpu(
            f"{text!r}: tpuemb knows no {chip.name} accelerator types (no Google Cloud page it "
            f"found lists their sizes); name the chip, {chip.name!r}, and set num_tensor_cores"
        )
    if _key(prefix) != _key(naming.prefix):
        # `v5e-16`: the chip is right, its accelerator types are written otherwise.
        raise UnknownTpu(
            f"unknown TPU {text!r}: {chip.name} accelerator types are written "
            f"{naming.prefix}-N{did_you_mean_type(naming, digits)}"
        )
    count = int(digits)
    if count not in naming.sizes:
        sizes = ", ".join(f"{naming.prefix}-{size}" for size in naming.sizes[:12])
        more = ", ..." if len(naming.sizes) > 12 else ""
        raise UnknownTpu(
            f"unknown TPU {text!r}: no {chip.name} slice has {digits} {naming.unit} (the "
            f"count counts {naming.unit}); {chip.name} slices: {sizes}{more}"
            f"{did_you_mean_type(naming, digits)}"
        )
    return Accelerator(chip, size=count)


def did_you_mean_type(naming: Naming, digits: str) -> str:
    """``; did you mean `v5p-128`?`` with the size nearest ``digits``, if it is a number."""
    from tpuemb_cli.model.nearest import did_you_mean

    if not digits.isdigit() or len(digits) > 12:
        return ""
    wanted = int(digits)
    nearest_size = min(naming.sizes, key=lambda size: (abs(size - wanted), size))
    return did_you_mean(f"{naming.prefix}-{nearest_size}")


def parse(text: str) -> Accelerator:
    """The TPU ``text`` names: a chip (``v5p``, ``TPU v5p``, ``trillium``) or an accelerator
    type (``v5p-128``, ``v5litepod-16``, ``v6e-256``). Raises UnknownTpu, whose message has a
    suggestion when one is close."""
    name = text
    if len(name) > MAX_NAME:
        raise _unknown(name, "")
    chip = _chip_named(name)
    if chip is not None:
        return Accelerator(chip)
    typed = _TYPE.fullmatch(name)
    if typed is not None:
        prefix, digits = typed.groups()
        by_prefix = {_key(n.prefix): BY_NAME[c] for c, n in NAMING.items()}
        sized = by_prefix.get(_key(prefix)) or _chip_named(prefix)
        if sized is not None:
            return _sized(sized, prefix, digits, name)
        raise _unknown(name, digits)
    if _CHIP.fullmatch(name) is None:
        raise _malformed(name)
    raise _unknown(name, "")


def _malformed(name: str) -> UnknownTpu:
    """A name outside the grammar (``v5p--128``, ``v5p-``, ``v5p-0128``, `` v5p``): it names
    the forms, and the nearest TPU when one is close."""
    from tpuemb_cli.model.nearest import did_you_mean, nearest

    digits = re.sub(r"[^0-9]", "", name.rpartition("-")[2], flags=re.ASCII).lstrip("0")
    close = nearest(name.strip(), _known_names(digits))
    return UnknownTpu(
        f"TPU {name!r} is not written as a TPU is named: {FORMS}" + (did_you_mean(close) or "")
    )


def sweep(text: str) -> tuple[Accelerator, ...]:
    """The TPUs a list names, for ``explain --memory``'s sweep: comma-separated chips (each
    every slice size it comes in, or the chip alone when tpuemb knows none: v2, TPU7x) and
    accelerator types (each itself); ``all`` for every chip; ``v5p-*`` (alone too) for one
    chip's slices. In the order named, each once.
    Raises UnknownTpu naming the first item that is no TPU."""
    # Spaces after the commas are a list's layout; nothing else is stripped (a name with
    # another character around it is no TPU, as --tpu alone says).
    names = [name.strip(" ") for name in text.split(",")]
    if any(not name for name in names):
        raise UnknownTpu(f"{text!r}: an empty name in the list (TPUs are separated by commas)")
    found: list[Accelerator] = []
    for name in names:
        if name.lower() == "all":
            chips: list[Accelerator] = [Accelerator(chip) for chip in CHIPS]
        else:
            chips = [parse(name.removesuffix("-*"))]
            if name.endswith("-*") and chips[0].size is not None:
                raise UnknownTpu(f"{name!r}: `-*` follows a chip's name (v5p-*), not a slice's")
        for named in chips:
            expanded = slices(named.chip) if named.size is None else ()
            for accelerator in expanded or (named,):
                if accelerator not in found:
                    found.append(accelerator)
    return tuple(found)
