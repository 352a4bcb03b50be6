"""The file layout of a generated dataset folder (the seed's), shared by the writer, the validator, the builders
and the uploader: one place to read what lives where."""
from __future__ import annotations

import re

SHARD_DIR = "batches"               # batches/batch_NNN.jsonl: the main config's files (NNN: `index_width` digits)
SHARD_SIZE = 100                    # rows per shard, unless a run says otherwise (--shard-size)
SHARD_PATTERN = f"{SHARD_DIR}/*.jsonl"
HOLDOUT_FILE = "tasks_holdout.jsonl"
HOLDOUT_CONFIG = "holdout"
STATS_FILE = "stats.json"
QA_DIR = "qa_reports"
CARD_FILE = "README.md"
VIEW_DIR = "views"                  # views/<config>/<config>-<split>-NNN.parquet: per shard, view config and split
PLOT_DIR = "plots"                  # plots/<name>.png: the card's plots, drawn from stats.json


def index_width(shards: int) -> int:
    """Digits of every shard index in the file names of a run of `shards` shards: the last index's, at least 3.

    One width for the whole run makes the names sort by text in index order, the order fsspec's glob (so
    `datasets.load_dataset`), `ls` and `sorted` list them in (batch_1000 would sort between batch_100 and
    batch_101); at least 3 keeps the names of runs of up to 1,000 shards the ones they always were."""
    return max(3, len(str(shards - 1)))


def _index_text(index: int, shards: int) -> str:
    """Shard `index`'s number as every file name of a run of `shards` shards writes it."""
    return f"{index:0{index_width(shards)}d}"


SHARD_FILE = re.compile(r"batch_(\d+)\.jsonl")     # a shard's file name (`shard_label`), its index digits


def shard_label(index: int, *, shards: int) -> str:
    """Shard `index`'s name without folder or suffix (its JSONL file's and QA report's stem)."""
    return f"batch_{_index_text(index, shards)}"


def shard_name(index: int, *, shards: int) -> str:
    return f"{SHARD_DIR}/{shard_label(index, shards=shards)}.jsonl"


def qa_name(index: int, *, shards: int) -> str:
    """Shard `index`'s QA report (the mechanical checks of its rows)."""
    return f"{QA_DIR}/{shard_label(index, shards=shards)}.json"


def num_shards(rows: int, shard_size: int = SHARD_SIZE) -> int:
    return -(-rows // shard_size)


def shard_range(shard: int, rows: int, shard_size: int = SHARD_SIZE) -> range:
    """Row indices of shard `shard` in a run of `rows` rows, `shard_size` per shard (a row's content depends on
    its index only: the shard size changes the files, not the rows)."""
    return range(shard * shard_size, min((shard + 1) * shard_size, rows))


def view_pattern(config: str, split: str | None = None) -> str:
    """The files of view `config`'s `split` (None: of every split)."""
    return f"{VIEW_DIR}/{config}/{config}-{split or '*'}-*.parquet"


def view_name(config: str, split: str, index: int, *, shards: int) -> str:
    """Shard `index`'s file of view `config`'s `split`: the view rows of the shard's rows of that split (the
    config in the file name too: checksums are kept by file name)."""
    return f"{VIEW_DIR}/{config}/{config}-{split}-{_index_text(index, shards)}.parquet"


PARQUET_DIR = "data"                # data/<config>/<split>-NNN.parquet: the main config's and holdout's Parquet files
HOLDOUT_PARQUET = f"{PARQUET_DIR}/{HOLDOUT_CONFIG}/test-000.parquet"


def parquet_name(config: str, split: str, index: int, *, shards: int) -> str:
    """Shard `index`'s Parquet file of the main config's `split` (every shard has one per split, maybe empty)."""
    return f"{PARQUET_DIR}/{config}/{split}-{_index_text(index, shards)}.parquet"


def parquet_pattern(config: str, split: str) -> str:
    return f"{PARQUET_DIR}/{config}/{split}-*.parquet"
