"""A folder's Parquet copies of its main rows and held-out tasks (`data/`) against the JSONL files they come from.

Why: the card's main and holdout configs read these files, not the JSONL, so a stale, missing or foreign file
would load other rows than the folder's. The files must be exactly one per shard and split of the main config
plus the holdout file when stats.json's options say `views: true` (none otherwise); each must carry the config's
Arrow schema, hold the ids of its JSONL source in order (a shard's rows of that split, `tasks_holdout.jsonl`'s
tasks), and every main row must be in the split the validation rule gives it. The values themselves are the
writer's: made from the same rows in the same worker, checksummed by it; the JSONL rows are the ones the row scan
checks in full.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from generator.catalog import validation
from generator.check.rowscan import Problem, json_objects
from generator.dataset import Dataset
from generator.layout import HOLDOUT_CONFIG, HOLDOUT_FILE, HOLDOUT_PARQUET, PARQUET_DIR, parquet_name
from generator.write.views import SPLITS


def check(folder: Path, dataset: Dataset, shards: tuple[Path, ...], stats: dict | None
          ) -> Iterator[tuple[str, int | None, Problem]]:
    """(path relative to folder, row number or None, problem) for every problem of the folder's `data/` files."""
    written = ((stats or {}).get("generator") or {}).get("views") is True
    main = dataset.main_config
    sources: dict[str, tuple[Path, str | None]] = {}
    if written:
        sources = {parquet_name(main.name, s, i): (shard, s) for i, shard in enumerate(shards) for s in SPLITS}
        sources[HOLDOUT_PARQUET] = (folder / HOLDOUT_FILE, None)
    have = {p.relative_to(folder).as_posix() for p in (folder / PARQUET_DIR).rglob("*") if p.is_file()}
    for rel in sorted(have - set(sources)):
        yield rel, None, Problem("parquet_files", "not a Parquet file of this folder (one per shard and split, and "
                                 f"{HOLDOUT_PARQUET}" + ("" if written else "; generated with --no-views") + ")")
    for rel in sorted(set(sources) - have):
        yield rel, None, Problem("parquet_files", f"missing: the Parquet copy of {sources[rel][0].name}")
    for rel in sorted(set(sources) & have):
        source, split = sources[rel]
        if not source.is_file():
            continue                     # the folder's layout findings tell
        config = main if split else dataset.config(HOLDOUT_CONFIG)
        id_field = dataset.id_field if split else "task_id"
        try:
            yield from _file_problems(folder / rel, rel, config.features.arrow_schema, id_field, source, split)
        except (pa.ArrowException, OSError) as exc:
            yield rel, None, Problem("parquet_files", f"not a readable Parquet file: {exc}")


def _file_problems(path: Path, rel: str, schema: pa.Schema, id_field: str, source: Path, split: str | None
                   ) -> Iterator[tuple[str, int | None, Problem]]:
    reader = pq.ParquetFile(path)
    if not reader.schema_arrow.remove_metadata().equals(schema.remove_metadata()):
        yield rel, None, Problem("parquet_files", "columns or types differ from the config's features")
        return
    columns = [id_field, "op", "gpu"] if split else [id_field]
    got = reader.read(columns=columns).to_pylist()
    want = [row[id_field] for row in _rows(source, id_field) if split is None or validation.split_of(row) == split]
    if [r[id_field] for r in got] != want:
        yield rel, None, Problem("parquet_files", f"{len(got)} rows whose ids are not those of {source.name}'s "
                                 f"{split or 'tasks'} ({len(want)} rows, in order): a stale copy")
    for n, row in enumerate(got, 1):
        if split and validation.split_of(row) != split:
            yield rel, n, Problem("parquet_files", f"{row[id_field]} is a {validation.split_of(row)} row "
                                  f"(rule {validation.VERSION}) in the {split} split")
            return


def _rows(source: Path, id_field: str) -> Iterator[dict]:
    """The JSONL source's rows that parse and carry an id, an op and a gpu (the row scan reports the others)."""
    return (row for row in json_objects(source) if all(isinstance(row.get(k), str) for k in (id_field, "op", "gpu")))
