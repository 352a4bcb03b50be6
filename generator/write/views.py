"""The training views' files: per shard and view config, one zstd Parquet file of the view's rows.

Why Parquet per shard: `load_dataset(folder, "<view>")` then reads typed columns with no JSON parsing, and
streaming gets one shard per file. The file is made in the worker that made the shard's rows (from those rows,
never re-read), with the view's Features' Arrow schema (its metadata carries the features, so `datasets` restores
them) and fixed writer options, so its bytes depend only on the rows: the same whatever `--num-proc`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from generator import tokens
from generator.dataset import Dataset, View
from generator.layout import view_name

WINDOW_TOKENS = 32_768        # the default token budget of a view row (--window-tokens)


def to_parquet(view: View, rows: Iterable[dict]) -> bytes:
    """The Parquet bytes of a view's rows: zstd, row groups of at most MAX_GROUP_ROWS rows and about
    MAX_GROUP_BYTES of text, written group by group (only one group's rows are held), no statistics or page
    index."""
    from generator.write.parquet import MAX_GROUP_BYTES, MAX_GROUP_ROWS   # imports `datasets`, as features do

    schema = view.features.arrow_schema
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, schema, compression="zstd", write_statistics=False, write_page_index=False,
                          store_schema=True) as writer:
        group: list[dict] = []
        size = 0
        for row in rows:
            group.append(row)
            size += tokens.sizes([row])[0][0]
            if len(group) == MAX_GROUP_ROWS or size >= MAX_GROUP_BYTES:
                writer.write_table(pa.Table.from_pylist(group, schema=schema))
                group, size = [], 0
        if group:                  # no rows at all: a valid file with the schema and no row group
            writer.write_table(pa.Table.from_pylist(group, schema=schema))
    return sink.getvalue().to_pybytes()


def read_rows(source) -> Iterator[dict]:
    """A view file's rows, one row group at a time (memory bounded by a group, never the file)."""
    reader = pq.ParquetFile(source)
    for group in range(reader.num_row_groups):
        yield from reader.read_row_group(group).to_pylist()


@dataclass(frozen=True)
class ViewFiles:
    """The writer's `shard_files`: the view files of shard `index` (names, then bytes from its rows)."""

    dataset: Dataset
    window_tokens: int = WINDOW_TOKENS

    def names(self, index: int) -> list[str]:
        return [view_name(v.name, index) for v in self.dataset.views]

    def __call__(self, index: int, rows: list[dict]) -> dict[str, bytes]:
        return {view_name(v.name, index): to_parquet(v, view_rows(v, rows, self.window_tokens))
                for v in self.dataset.views}


def view_rows(view: View, rows: Iterable[dict], window_tokens: int) -> Iterator[dict]:
    """The view's rows of `rows`, in order, made one main row at a time."""
    for row in rows:
        yield from view.rows_fn(row, window_tokens=window_tokens)
