"""The one Parquet writer of a generated folder: the main config's and holdout's files (`data/`) and the training
views' (`views/`), all loaded by `load_dataset(folder, config)` through the card's one (Parquet) reader.

Why these options: zstd (the JSONL's text compresses ~60x); row groups of at most MAX_GROUP_ROWS rows and about
MAX_GROUP_BYTES of uncompressed data, because the Hub viewer reads a file row group by row group and gives up on
big ones; the page index written (its offset index lets readers seek to a page), no statistics (the min/max
of kernel-source strings made the files 16 % bigger, for no filter anyone runs on them). `Json` features (`shape`, `params`) are stored as
Parquet JSON columns holding `orjson.dumps` of the value, with the features in the schema metadata, so `datasets`
gives back the very dicts the JSONL rows hold. Rows are written group by group (one group held at a time), and the
bytes depend only on the rows and the features: the same whatever `--num-proc`.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

MAX_GROUP_ROWS = 100
MAX_GROUP_BYTES = 100 * 1000 * 1000


def json_size(row: dict) -> int:
    """A row's uncompressed size, as its JSONL line: what a row group's byte bound counts by default."""
    return len(orjson.dumps(row))


def _encoder(feature) -> Callable | None:
    """A function that turns a value of `feature` into its Arrow-ready form (`Json` parts as JSON text), or None
    when the value is ready as it is."""
    from datasets import Json, List

    if isinstance(feature, Json):
        return lambda v: None if v is None else orjson.dumps(v).decode()
    if isinstance(feature, List):
        inner = _encoder(feature.feature)
        return None if inner is None else (lambda v: None if v is None else [inner(x) for x in v])
    if isinstance(feature, dict):
        parts = {k: f for k, f in ((k, _encoder(f)) for k, f in feature.items()) if f is not None}
        if not parts:
            return None
        return lambda v: None if v is None else {**v, **{k: f(v[k]) for k, f in parts.items() if k in v}}
    return None


def _storage(t: pa.DataType) -> pa.DataType:
    """`t` with JSON columns as plain strings: Arrow builds nested extension types only by a cast."""
    if isinstance(t, pa.JsonType):
        return pa.string()
    if pa.types.is_list(t):
        return pa.list_(_storage(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_storage(f.type)) for f in t])
    return t


def to_parquet(features, rows: Iterable[dict], size: Callable[[dict], int] = json_size) -> bytes:
    """The Parquet bytes of `rows` (an iterable, consumed once) with `features`' Arrow schema; `size(row)` is what
    a row counts against MAX_GROUP_BYTES. No rows: a valid file with the schema and no row group."""
    schema = features.arrow_schema
    storage = pa.schema([f.with_type(_storage(f.type)) for f in schema], metadata=schema.metadata)
    encode = _encoder(dict(features))
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, schema, compression="zstd", write_statistics=False, write_page_index=True,
                          store_schema=True) as writer:
        group: list[dict] = []
        total = 0
        for row in rows:
            group.append(encode(row) if encode else row)
            total += size(row)
            if len(group) == MAX_GROUP_ROWS or total >= MAX_GROUP_BYTES:
                writer.write_table(pa.Table.from_pylist(group, schema=storage).cast(schema))
                group, total = [], 0
        if group:
            writer.write_table(pa.Table.from_pylist(group, schema=storage).cast(schema))
    return sink.getvalue().to_pybytes()


def read_rows(source) -> Iterator[dict]:
    """A Parquet file's rows as stored (JSON columns as text), one row group at a time (memory bounded by a
    group, never the file)."""
    reader = pq.ParquetFile(source)
    for group in range(reader.num_row_groups):
        yield from reader.read_row_group(group).to_pylist()
