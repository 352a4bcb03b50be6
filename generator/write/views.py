"""The training views' files: per shard and view config, one zstd Parquet file of the view's rows.

Why Parquet per shard: `load_dataset(folder, "<view>")` then reads typed columns with no JSON parsing, and
streaming gets one shard per file. The file is made in the worker that made the shard's rows (from those rows,
never re-read), with the view's Features' Arrow schema (its metadata carries the features, so `datasets` restores
them) and fixed writer options, so its bytes depend only on the rows: the same whatever `--num-proc`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from generator.dataset import Dataset, View
from generator.layout import view_name

WINDOW_TOKENS = 32_768        # the default token budget of a view row (--window-tokens)


def to_parquet(view: View, rows: list[dict]) -> bytes:
    """The Parquet bytes of a view's rows: zstd, row groups of at most 100 rows and ~100 MB, no page index or
    other writer-dependent extras."""
    from generator.write.parquet import group_rows     # imports `datasets`: the validator reads views without it

    table = pa.Table.from_pylist(rows, schema=view.features.arrow_schema)
    sink = pa.BufferOutputStream()
    sizes = [len(orjson.dumps(r)) for r in rows]
    pq.write_table(table, sink, row_group_size=group_rows(sizes), compression="zstd", write_statistics=False,
                   write_page_index=False, store_schema=True)
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


def view_rows(view: View, rows: list[dict], window_tokens: int) -> list[dict]:
    return [out for row in rows for out in view.rows_fn(row, window_tokens=window_tokens)]
