"""What a file is by its place in a generated folder (merged view, holdout, stats, shard) and so which schema it
answers to, and which paths may be read at all: the facts the folder validator and `--split` share.
"""
from __future__ import annotations

import errno
import stat
from pathlib import Path

from generator.check.errors import InputError
from generator.layout import HOLDOUT_FILE, SHARD_DIR, STATS_FILE
from generator.dataset import HOLDOUT
from generator.registry import DATASETS

MERGED = {d.merged_file: d.schema for d in DATASETS.values()}   # merged view -> its row schema
FIXED = {HOLDOUT_FILE: HOLDOUT.schema}
STATS = STATS_FILE
SHARDS = SHARD_DIR
ROW_COUNT_KEYS = {d.schema: d.count_flag for d in DATASETS.values()}   # stats.json key counting the folder's rows
MAX_MESSAGE = 300           # characters of a finding's message: a 20 MB value is quoted by its start


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` with control characters (and undecodable file-name bytes) escaped, cut to `limit` characters: every
    finding stays one `PATH:LINE: kind: message` line of bounded size."""
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text):,} characters)"
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown(path: Path) -> str:
    return one_line(str(path), limit=4096)


def path_kind(path: Path) -> str:
    """"folder" or "file"; InputError for what is neither (a FIFO would block the reader forever, a device never
    ends), a symlink loop, or nothing at all."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{shown(path)}: symlink loop") from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise InputError(f"{shown(path)}: no such file or folder") from None
        raise InputError(f"{shown(path)}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return "file"
    what = "FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
    raise InputError(f"{shown(path)}: a {what}, not a regular file; refusing to read it")
