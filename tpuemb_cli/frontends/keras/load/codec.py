"""Keras 3's ``.keras`` archive: its ``config.json`` read as a ``KerasModel`` (the model's
Keras-RS ``DistributedEmbedding`` layers), positions in that member: ``m.keras!config.json:1:523``.
Read only (``frontends/keras/load/archive``: bounded, nothing extracted or executed); never written.
"""

from __future__ import annotations

from google.protobuf.message import Message

from tpuemb_cli.frontends.keras.load.archive import CONFIG, is_zip, members_of_file, read_archive
from tpuemb_cli.load.document import Document
from tpuemb_cli.load.encodings import ConversionError
from tpuemb_cli.load.source import utf8

__all__ = ["load", "members_of_file", "render", "sniff"]


def sniff(data: bytes) -> bool:
    """A zip archive."""
    return is_zip(data)


def load(data: bytes, name: str, message_type: str | None) -> Document:
    from tpuemb_cli.frontends.keras.load.config import MESSAGE_TYPE, load_text
    from tpuemb_cli.load.problems import LoadProblem

    archive = read_archive(data)
    if archive.config is None:
        problem = LoadProblem(
            "invalid-syntax", f"not a readable .keras archive: {archive.error}", fatal=True
        )
        return Document(name, "keras", MESSAGE_TYPE, None, None, [problem])
    member = f"{name}!{CONFIG}"
    try:
        text = utf8(archive.config)
    except UnicodeDecodeError as error:
        problem = LoadProblem(
            "invalid-syntax",
            f"{CONFIG} is not UTF-8 text: byte at offset {error.start}",
            fatal=True,
        )
        return Document(member, "keras", MESSAGE_TYPE, None, None, [problem], member=CONFIG)
    return load_text(text, member, "keras", archive.keras_version)._replace(member=CONFIG)


def render(message: Message) -> bytes:
    raise ConversionError(
        "tpuemb reads .keras archives but does not write them (Keras saves models); convert to "
        "text, JSON or YAML"
    )
