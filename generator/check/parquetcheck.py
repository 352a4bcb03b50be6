"""A folder's Parquet copies of its main rows and held-out tasks (`data/`) against the JSONL files they come from.

Why: the card's main and holdout configs read these files, not the JSONL, so a stale, missing or foreign file
would load other rows than the folder's. The files must be exactly one per shard and split of the main config
plus the holdout file when stats.json's options say `views: true` (none otherwise); each must carry the config's
Arrow schema, hold the ids of its JSONL source in order (a shard's rows of that split, `tasks_holdout.jsonl`'s
tasks), and every main row must be in the split the validation rule gives it. The values themselves are the
writer's: made from the same rows in the same worker, checksummed by it; the JSONL rows are the ones the row scan
checks in full. `Checker` lets the files be checked a shard's at a time, in worker processes or through a local
copy of a remote folder's (`shardfiles`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from generator.catalog import validation
from generator.check.rowscan import Located, Problem, json_objects
from generator.dataset import Dataset
from generator.layout import HOLDOUT_CONFIG, HOLDOUT_FILE, HOLDOUT_PARQUET, parquet_name, shard_name
from generator.write.views import SPLITS


class Checker:
    """One folder's `data/` check in two parts: the set of files (`listing`), then each file against its JSONL
    source (`file`, in any order: a folder on remote storage is checked a shard at a time through a local copy)."""

    def __init__(self, dataset: Dataset, shards: int, stats: dict | None):
        """`shards`: how many JSONL shards the folder has; shard i's copies are paired with batch i by number (as
        the view files are), so a missing batch is the layout's finding, never a "stale copy" of the next one."""
        self.written = ((stats or {}).get("generator") or {}).get("views") is True
        self.dataset = dataset
        self.want: dict[str, tuple[str, str | None]] = {}       # Parquet file -> (its JSONL source, split)
        if self.written:
            main = dataset.main_config.name
            self.want = {parquet_name(main, s, i, shards=shards): (shard_name(i, shards=shards), s)
                         for i in range(shards) for s in SPLITS}
            self.want[HOLDOUT_PARQUET] = (HOLDOUT_FILE, None)

    def source(self, rel: str) -> str:
        """The JSONL file (relative path) that `rel` is a copy of."""
        return self.want[rel][0]

    def listing(self, have: Iterable[str]) -> Located:
        have = set(have)
        for rel in sorted(have - set(self.want)):
            yield rel, None, Problem("parquet_files", "not a Parquet file of this folder (one per shard and split, "
                                     f"and {HOLDOUT_PARQUET}" + ("" if self.written else "; generated with --no-views")
                                     + ")")
        for rel in sorted(set(self.want) - have):
            yield rel, None, Problem("parquet_files", f"missing: the Parquet copy of {Path(self.want[rel][0]).name}")

    def file(self, folder: Path, rel: str) -> Located:
        source, split = folder / self.want[rel][0], self.want[rel][1]
        if not source.is_file():
            return                       # the folder's layout findings tell
        config = self.dataset.main_config if split else self.dataset.config(HOLDOUT_CONFIG)
        id_field = self.dataset.id_field if split else "task_id"
        try:
            yield from _file_problems(folder / rel, rel, config.features.arrow_schema, id_field, source, split)
        except (pa.ArrowException, OSError) as exc:
            yield rel, None, Problem("parquet_files", f"not a readable Parquet file: {exc}")


def _file_problems(path: Path, rel: str, schema: pa.Schema, id_field: str, source: Path, split: str | None
                   ) -> Located:
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
