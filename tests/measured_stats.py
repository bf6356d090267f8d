"""Statistics files for the statistics rules' tests (TE611-TE613): written with tpuemb's own
writer (which tests/test_fdo_stats_oracle.py holds to the library's clients), one value a
partition, for tests/data/jax/stacked.pbtxt's stacks `video_user` and `ads` (8 SparseCores)."""

from __future__ import annotations

from pathlib import Path

from tpuemb_cli.load.fdo import StackStats, write_fdo_stats


def stats(folder: Path, **stacks: tuple[int, int]) -> Path:
    """A folder of one NPZ file holding, for each stack, (max ids, max unique ids) in its
    fullest partition (the others 1)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {
        name: StackStats(
            ((ids, *[min(ids, 1)] * 7),), ((unique, *[min(unique, 1)] * 7),), ((ids * 8,),), (0,)
        )
        for name, (ids, unique) in stacks.items()
    }
    write_fdo_stats(folder, written, kind="npz")
    return folder
