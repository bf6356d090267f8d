"""A realistic ML repository, built by the tests in a scratch folder: TPU embedding documents under
configs/ (with mistakes whose findings are known exactly, clean ones, a generated sweep), and what
else such a repository holds -- web, editor, CI, container, Kubernetes and Helm files, other
projects' textprotos, and what TensorFlow 2.21 wrote (tests/data/tf-made/make_repo_artifacts.py):
a SavedModel, a checkpoint, a frozen GraphDef, a TFRecord file."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

from google.protobuf import text_format

from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

from .documents import BINARY_DOCUMENTS, CONFIGS_OTHERS, TEXT_DOCUMENTS
from .others import OTHERS

TF_MADE = Path(__file__).parent.parent / "data" / "tf-made" / "ranker"
# Where TensorFlow's files go in the tree.
TF_FILES = {
    "saved_model/saved_model.pb": "models/ranker/1/saved_model.pb",
    "saved_model/fingerprint.pb": "models/ranker/1/fingerprint.pb",
    "saved_model/variables/variables.index": "models/ranker/1/variables/variables.index",
    "saved_model/variables/variables.data-00000-of-00001": (
        "models/ranker/1/variables/variables.data-00000-of-00001"
    ),
    "ckpt/checkpoint": "training/ckpt/checkpoint",
    "ckpt/ckpt-1.index": "training/ckpt/ckpt-1.index",
    "ckpt/ckpt-1.data-00000-of-00001": "training/ckpt/ckpt-1.data-00000-of-00001",
    "frozen_graph.pb": "models/ranker_frozen.pb",
    "train-00000-of-00001.tfrecord": "data/train-00000-of-00001.tfrecord",
}


def build(root: Path) -> None:
    """Writes the repository into the existing folder ``root``."""
    for name, text in {**OTHERS, **TEXT_DOCUMENTS, **CONFIGS_OTHERS}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, text in BINARY_DOCUMENTS.items():
        config = text_format.Parse(text, TPUEmbeddingConfiguration())
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(config.SerializeToString())
    runpy.run_path(str(root / "configs" / "gen.py"), run_name="__main__")
    for source, target in TF_FILES.items():
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TF_MADE / source, root / target)


# What `tpuemb check .` finds at the root: (file, line, column, rule); binary findings have no
# position.
FINDINGS = {
    ("configs/export/tpu_embedding.pb", None, None, "TE104"),
    ("configs/export/tpu_embedding.pb", None, None, "TE501"),
    ("configs/optimizers/item_adam.pbtxt", 5, 1, "TE303"),
    ("configs/optimizers/item_adam.pbtxt", 17, 3, "TE203"),
    ("configs/ranker/tpu_embedding.pbtxt", 25, 7, "TE202"),
    ("configs/ranker/tpu_embedding.pbtxt", 34, 1, "TE406"),
    ("configs/ranker/tpu_embedding.pbtxt", 63, 3, "TE407"),
    ("configs/retrieval/two_tower.json", 14, 11, "TE207"),
    ("configs/retrieval/two_tower.json", 20, 7, "TE402"),
    ("configs/specs/ranker.spec.yaml", 15, 5, "TE704"),
    ("configs/specs/ranker.spec.yaml", 20, 23, "TE711"),
    ("configs/specs/ranker.spec.yaml", 24, 18, "TE703"),
}
