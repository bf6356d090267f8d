"""toyemb: a made-up embedding library, and its file format ``.toyemb`` -- the front-end the
architecture's walk-through adds (docs/architecture.md, "Adding a front-end")."""

from __future__ import annotations

from tpuemb_cli.frontends import FileFormat, FrontEnd, Option
from tpuemb_cli.model.message_type import MessageType

FRONT_END = FrontEnd(
    name="toy",
    title="toyemb",
    kinds=("toy",),
    engine="tpuemb_cli.frontends.toy.engine",
    views="tpuemb_cli.frontends.toy.views",
    options=(
        Option(
            "toy-dtype",
            ("float32", "bfloat16"),
            "float32",
            "The dtype toyemb stores its tables in (what explain --memory counts).",
        ),
    ),
    types=(
        MessageType(
            "ToyConfig",
            "tpuemb_cli.frontends.toy.pb",
            "toy",
            packages=("tpuemb.toy",),
            explain_refusal="",
        ),
    ),
    formats=(
        FileFormat(
            "toyemb",
            (".toyemb",),
            "tpuemb_cli.frontends.toy.load",
            no_fixes="toyemb files get no fixes",
            writable=False,
        ),
    ),
    rules="tpuemb_cli.frontends.toy.rules",
    compat="tpuemb_cli.frontends.toy.compat",
)
