"""The merged `sessions.jsonl` / `episodes.jsonl` on the Hub without a second copy in the stage.

The merged file is the shards concatenated (the seed's layout). Staged, even as a hard link to the folder's file,
it made the stage hold its inode as well as the shards': 1.94x the unique data on disk. So it is not staged. The
plan and the push take the folder's own merged file, once it is proven to be the STAGED shards (the ones the
validator passed) read one after another: the same size and the same sha256. So the bytes sent under its name are
the validated shards' bytes, and the sha256 the plan shows is theirs; a stale merged file is refused, not sent.

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

from pathlib import Path

from generator.dataset import Dataset
from generator.hub.client import LocalFile, sha256_of
from generator.hub.stage import StageError
from generator.layout import SHARD_PATTERN, by_shard_index


def merged_file(folder: Path, stage: Path, dataset: Dataset) -> LocalFile:
    """The folder's merged file as the plan and the push see it: its size and sha256, which must be those of the
    staged shards concatenated (in shard order); StageError, one line, when they are not."""
    shards = by_shard_index(stage.glob(SHARD_PATTERN))
    size, sha256 = sha256_of(shards)
    source = folder / dataset.merged_file
    try:
        own = sha256_of([source])
    except OSError as exc:
        raise StageError(f"{source}: cannot read the merged file ({exc.strerror or exc}); pass --no-merged to "
                         "leave it out") from None
    if own != (size, sha256):
        raise StageError(f"{source}: not the {len(shards)} staged shards ({SHARD_PATTERN}) concatenated: a stale "
                         f"merged file (`kernelstrain validate {folder}` names the line); regenerate the folder, or "
                         "pass --no-merged (nothing sent)")
    return LocalFile(dataset.merged_file, size, sha256, source)
