"""The merged `sessions.jsonl` / `episodes.jsonl` on the Hub without a second copy in the stage.

The merged file is the shards concatenated (the seed's layout). Staged, even as a hard link to the folder's file,
it made the stage hold its inode as well as the shards': 1.94x the unique data on disk. So it is not staged. The
plan and the push take the folder's own merged file, once it is proven to be the STAGED shards (the ones the
validator passed) read one after another: the same size, and each shard's byte range of it the same sha256 as the
shard (hashed once, for the plan too). So the bytes sent under its name are the validated shards' bytes; a stale
merged file is refused, not sent, and the push re-checks every file's sha256 against the plan.

Why the folder's file by path, and not a file object that reads the staged shards one after another: huggingface_hub
2.4 sends a file object (`io.BufferedIOBase`) over plain HTTP LFS, never Xet, and does so for every file of a commit
that holds one (`_commit_api._upload_files`: "Uploading files as a binary IO buffer is not supported by Xet Storage.
Falling back to HTTP upload."; huggingface/huggingface_hub#4331); hf_xet 1.8 can stream
(`XetUploadCommit.start_upload_stream`) but huggingface_hub does not use it. A path goes through Xet, whose
content-defined chunks (64 KB target, 8-128 KB: https://huggingface.co/docs/xet/deduplication) are the shards'
chunks again except where a chunk spans the join of two shards: the merged file costs about that many new chunks
on the wire, not its size.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from generator.dataset import Dataset
from generator.hub.client import LocalFile
from generator.hub.stage import StageError
from generator.layout import SHARD_PATTERN

CHUNK = 8 << 20


def merged_file(folder: Path, shards: list[LocalFile], dataset: Dataset) -> LocalFile:
    """The folder's merged file as the plan and the push see it, once proven to be the staged `shards` (already
    hashed for the plan) concatenated in shard order: the same size, then each shard's byte range of it the same
    sha256 as that shard. One read of the merged file gives those and its own sha256; StageError, one line, when it
    is not the shards."""
    source = folder / dataset.merged_file
    shards = sorted(shards, key=lambda f: f.path)      # index order: the validator passed the names (one width)
    stale = (f"{source}: not the {len(shards)} staged shards ({SHARD_PATTERN}) concatenated: a stale merged file "
             f"(`kernelstrain validate {folder}` names the line); regenerate the folder, or pass --no-merged "
             "(nothing sent)")
    total = sum(f.size for f in shards)
    try:
        if source.stat().st_size != total:
            raise StageError(stale)
        whole = hashlib.sha256()
        with open(source, "rb") as f:
            for shard in shards:
                part, left = hashlib.sha256(), shard.size
                while left:
                    chunk = f.read(min(CHUNK, left))
                    if not chunk:
                        raise StageError(stale)          # shorter than it was a moment ago
                    part.update(chunk)
                    whole.update(chunk)
                    left -= len(chunk)
                if part.hexdigest() != shard.sha256:
                    raise StageError(stale)
    except OSError as exc:
        raise StageError(f"{source}: cannot read the merged file ({exc.strerror or exc}); pass --no-merged to "
                         "leave it out") from None
    return LocalFile(dataset.merged_file, total, whole.hexdigest(), source)
