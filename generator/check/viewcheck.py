"""A folder's training-view files (`views/<config>/<config>_NNN.parquet`) against its shards and stats.json.

Why here and not in the row scan: view files are Parquet, not JSONL. Each is read one row group at a time
(memory bounded by a group, as the JSONL scan is by a chunk), every row checked against its config's schema;
the set of files must be exactly one per shard and view config when stats.json's options say `views: true`
(none otherwise), and a config's row
count must be the one stats.json recorded (`tokens.<config>.rows`) and never above what the main rows can give
(`View.source_count`: total steps, results).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa

from generator.check.rowscan import Problem
from generator.check.schemas import compiled
from generator.dataset import Dataset
from generator.layout import VIEW_DIR, view_name
from generator.write.parquet import read_rows

MAX_ROW_FINDINGS = 20      # per file: a file whose every row is wrong is told by its first rows


def check(folder: Path, dataset: Dataset, shards: int, stats: dict | None) -> Iterator[tuple[str, int | None, Problem]]:
    """(path relative to folder, row number or None, problem) for every problem of the folder's view files."""
    options = (stats or {}).get("generator") or {}
    written = options.get("views") is True       # recorded by the generator; a folder made before views has none
    want = {view_name(v.name, i): v for v in dataset.views if written for i in range(shards)}
    have = {p.relative_to(folder).as_posix() for p in (folder / VIEW_DIR).rglob("*") if p.is_file()}
    for rel in sorted(have - set(want)):
        yield rel, None, Problem("view_files", "not a view file of this folder (one per shard and view config"
                                 + ("" if written else "; generated with --no-views") + ")")
    for rel in sorted(set(want) - have):
        yield rel, None, Problem("view_files", f"missing: the {want[rel].name} rows of {rel.rsplit('_', 1)[-1]}")
    counts = dict.fromkeys((v.name for v in dataset.views if written), 0)
    for rel in sorted(set(want) & have):
        view = want[rel]
        rules = compiled(view.schema)
        told = 0
        try:
            for n, row in enumerate(read_rows(str(folder / rel)), 1):
                counts[view.name] += 1
                if told < MAX_ROW_FINDINGS and not rules.is_valid(row):
                    where, message = (rules.errors(row) or [("/", "does not match")])[0]
                    told += 1
                    yield rel, n, Problem("schema", f"{where}: {message[:200]} (schema {view.schema})")
        except (pa.ArrowException, OSError) as exc:
            yield rel, None, Problem("view_files", f"not a readable Parquet file: {exc}")
    if stats is not None:
        yield from _count_problems(dataset, counts, stats)


def _count_problems(dataset: Dataset, counts: dict[str, int], stats: dict) -> Iterator[tuple[str, None, Problem]]:
    recorded = stats.get("tokens") or {}
    for view in dataset.views:
        if view.name not in counts:
            continue
        n, where = counts[view.name], f"{VIEW_DIR}/{view.name}"
        stated = (recorded.get(view.name) or {}).get("rows")
        if stated != n:
            yield where, None, Problem("view_count", f"{n} rows but stats.json records {stated!r} "
                                                     f"(tokens.{view.name}.rows)")
        try:
            most = view.source_count(stats) if view.source_count else None
        except (KeyError, TypeError, AttributeError):
            most = None        # stats.json's own schema findings tell what is wrong there
        if most is not None and n > most:
            yield where, None, Problem("view_count", f"{n} rows, more than the {most} the main rows give")
