"""A shard's Parquet files: per split of the main config (`data/<config>/<split>-NNN.parquet`) and per view
config and split (`views/<config>/<config>-<split>-NNN.parquet`), one zstd Parquet file of those rows
(`generator.write.parquet`).

Why Parquet per shard: `load_dataset(folder, config)` then reads typed columns with no JSON parsing (every config
of the card through one reader), and streaming gets one shard per file. The files are made in the worker that
made the shard's rows (from those rows, never re-read), so their bytes depend only on the rows: the same whatever
`--num-proc`. The JSONL shard stays the seed layout's raw file.

Why the views are split too: a view row is a piece of one main row (a step of a session, a turn of an episode),
so a view made from every row would hand a model trained on it the validation families' tasks. Each view's
`train` file holds only the view rows of the shard's `train` rows, its `validation` file those of the validation
rows (`generator.catalog.validation`), like the main config's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from generator import tokens
from generator.catalog import validation
from generator.dataset import Dataset, View
from generator.layout import parquet_name, view_name
from generator.write.parquet import to_parquet

SPLITS = (validation.TRAIN, validation.SPLIT)   # the main config's and every view's splits; a file of each per shard

WINDOW_TOKENS = 32_768        # the default token budget of a view row (--window-tokens)


@dataclass(frozen=True)
class ParquetFiles:
    """The writer's `shard_files`: the Parquet files of shard `index` of a run of `shards` shards (names, then
    bytes from its rows)."""

    dataset: Dataset
    shards: int
    window_tokens: int = WINDOW_TOKENS

    def names(self, index: int) -> list[str]:
        main = self.dataset.main_config.name
        return ([parquet_name(main, s, index, shards=self.shards) for s in SPLITS]
                + [view_name(v.name, s, index, shards=self.shards) for v in self.dataset.views for s in SPLITS])

    def __call__(self, index: int, rows: list[dict]) -> dict[str, bytes]:
        main = self.dataset.main_config
        by_split = {s: [r for r in rows if validation.split_of(r) == s] for s in SPLITS}
        files = {parquet_name(main.name, s, index, shards=self.shards): to_parquet(main.features, by_split[s])
                 for s in SPLITS}
        for v in self.dataset.views:
            for s in SPLITS:
                files[view_name(v.name, s, index, shards=self.shards)] = to_parquet(
                    v.features, view_rows(v, by_split[s], self.window_tokens),
                    size=lambda row: tokens.sizes([row])[0][0])
        return files


def view_rows(view: View, rows: Iterable[dict], window_tokens: int) -> Iterator[dict]:
    """The view's rows of `rows`, in order, made one main row at a time."""
    for row in rows:
        yield from view.rows_fn(row, window_tokens=window_tokens)
