"""Parquet shards the Hub viewer can read: one per JSONL batch, small row groups, `Json` columns kept.

The viewer reads Parquet row group by row group and gives up on groups that are too big, so every group holds
at most MAX_GROUP_ROWS rows and about MAX_GROUP_BYTES of uncompressed data. `shape` / `params` are written as
Parquet JSON columns with the features in the file metadata, so they load back as dicts.
"""
from __future__ import annotations

import os
from pathlib import Path

import orjson
import pyarrow.parquet as pq
from datasets import Dataset, Features

PARQUET_DIR = "data"
MAX_GROUP_ROWS = 100
MAX_GROUP_BYTES = 100 * 1000 * 1000


def shard_pattern(config: str, split: str) -> str:
    """The glob (relative to the repo root) that the card's `configs` use for a config's Parquet shards."""
    return f"{PARQUET_DIR}/{config}/{split}-*.parquet"


def group_rows(row_bytes: list[int]) -> int:
    """Rows per row group: <= MAX_GROUP_ROWS and, on the average row, <= MAX_GROUP_BYTES."""
    average = max(1, sum(row_bytes) // max(1, len(row_bytes)))
    return max(1, min(MAX_GROUP_ROWS, MAX_GROUP_BYTES // average))


def write_parquet_shards(sources: list[Path], out_root: Path, config: str, split: str, features: Features) -> list[Path]:
    """Convert each JSONL source into `data/<config>/<split>-NNNNN-of-MMMMM.parquet` under out_root."""
    out_dir = out_root / PARQUET_DIR / config
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for i, source in enumerate(sources):
        lines = source.read_bytes().splitlines()  # validated before staging: one JSON object per line
        rows = [orjson.loads(line) for line in lines]
        sizes = [len(line) for line in lines]
        target = out_dir / f"{split}-{i:05d}-of-{len(sources):05d}.parquet"
        tmp = target.with_name(target.name + ".tmp")
        # the table carries the features in its schema metadata, so readers get Json columns back as dicts
        table = Dataset.from_list(rows, features=features).data.table
        pq.write_table(table, tmp, row_group_size=group_rows(sizes))
        os.replace(tmp, target)
        written.append(target)
    return written
