"""What `upload` stages, and how: exactly the files the dataset layout defines, hard-linked from the folder.

Allowlist, not a walk: a generated folder is the generator's, so any other file in it (a `.env` holding a token,
a script, a `.bak`, a symlink to something elsewhere) is a mistake to fix, never something to publish. Such
files make staging refuse the folder (one line naming them) rather than skip them: a skipped file is easy to
miss in a log, a refusal is not. The generator's own bookkeeping (`.kernelstrain*`) is the only thing skipped.
Only regular files inside the folder are staged, never through a symlink (a linked file or folder is refused).

Files are hard links to the folder's (the same inode: no bytes written, a link counts once on disk), with a
copy only where the stage is on another file system; the card is written fresh (from stats.json). The merged
`sessions.jsonl` / `episodes.jsonl` is allowed in the folder but never staged: its bytes are the shards' again, so
the push takes it from the folder once proven equal to the staged shards (`generator.hub.merged`).
"""
from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from generator.dataset import Dataset
from generator.layout import (CARD_FILE, HOLDOUT_CONFIG, HOLDOUT_FILE, PARQUET_DIR, PLOT_DIR, QA_DIR, SHARD_DIR,
                              STATS_FILE, VIEW_DIR)

BOOKKEEPING = ".kernelstrain"       # .kernelstrain.json, .kernelstrain.sums/: the writer's, never published
SHOWN = 5                           # stray paths named in the one-line refusal


class StageError(Exception):
    """The folder holds files the layout does not define (or symlinks); nothing was staged."""


def layout_patterns(dataset: Dataset) -> re.Pattern:
    """One regex matching every path (relative, POSIX) the layout stages for `dataset`: the card and the merged
    file excepted."""
    main = re.escape(dataset.main_config.name)
    views = "|".join(re.escape(v.name) for v in dataset.views) or "(?!)"
    names = [
        rf"{SHARD_DIR}/batch_\d{{3,}}\.jsonl",
        rf"{PARQUET_DIR}/{main}/(train|validation)-\d{{3,}}\.parquet",
        rf"{PARQUET_DIR}/{HOLDOUT_CONFIG}/test-\d{{3,}}\.parquet",
        rf"{VIEW_DIR}/(?P<view>{views})/(?P=view)-(train|validation)-\d{{3,}}\.parquet",
        re.escape(HOLDOUT_FILE), re.escape(STATS_FILE),
        rf"{QA_DIR}/batch_\d{{3,}}\.json",
        rf"{PLOT_DIR}/[A-Za-z0-9][A-Za-z0-9_.-]*\.png",
    ]
    return re.compile("|".join(f"(?:{n})" for n in names))


def select(folder: Path, dataset: Dataset) -> list[str]:
    """The folder's files to stage (sorted relative paths); StageError naming what else is there."""
    allowed = layout_patterns(dataset)
    keep, strays = [], []
    for root, dirs, files in os.walk(folder):
        base = Path(root).relative_to(folder)
        for name in sorted(dirs):
            if os.path.islink(os.path.join(root, name)):
                strays.append(f"{(base / name).as_posix()} (a symlink)")
        top = base == Path(".")
        dirs[:] = sorted(d for d in dirs if not (top and d.startswith(BOOKKEEPING))
                         and not os.path.islink(os.path.join(root, d)))
        for name in sorted(files):
            rel = (base / name).as_posix()
            if (top and name.startswith(BOOKKEEPING)) or rel == CARD_FILE:
                continue
            mode = os.lstat(os.path.join(root, name)).st_mode
            if stat.S_ISLNK(mode):
                strays.append(f"{rel} (a symlink)")
            elif not stat.S_ISREG(mode):
                strays.append(f"{rel} (not a regular file)")
            elif allowed.fullmatch(rel):
                keep.append(rel)
            elif rel != dataset.merged_file:
                strays.append(rel)
    if strays:
        more = f" and {len(strays) - SHOWN} more" if len(strays) > SHOWN else ""
        raise StageError(f"{folder}: {len(strays)} file(s) the dataset layout does not define: "
                         f"{', '.join(sorted(strays)[:SHOWN])}{more}; remove them (nothing staged or sent)")
    return sorted(keep)


@dataclass(frozen=True)
class Staged:
    files: int
    linked: int              # hard links to the folder's files: no bytes of their own on disk
    copied_bytes: int        # bytes written (the card, schemas, copies across file systems)


def link_or_copy(src: Path, dst: Path) -> bool:
    """Hard-link `src` at `dst` (True), or copy it where a link cannot be made (another file system: False)."""
    try:
        os.link(src, dst, follow_symlinks=False)
        return True
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        shutil.copyfile(src, dst, follow_symlinks=False)
        return False


def stage(folder: Path, work: Path, rels: list[str], written: dict[str, bytes]) -> Staged:
    """Link `rels` from `folder` into `work` (an empty folder) and write `written` (path -> bytes) there."""
    linked = copied = 0
    for rel in rels:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        if link_or_copy(folder / rel, work / rel):
            linked += 1
        else:
            copied += (folder / rel).stat().st_size
    for rel, data in written.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(data)
        copied += len(data)
    return Staged(len(rels) + len(written), linked, copied)


def disk_bytes(root: Path) -> int:
    """The bytes of the files under `root`, each inode once: what the stage holds on disk (a hard link counts once;
    the folder's own files, linked, are part of it, the merged file is not)."""
    sizes = {}
    for path in root.rglob("*"):
        st = path.lstat()
        if stat.S_ISREG(st.st_mode):
            sizes[(st.st_dev, st.st_ino)] = st.st_size
    return sum(sizes.values())
