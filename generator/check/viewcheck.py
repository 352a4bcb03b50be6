"""A folder's training-view files (`views/<config>/<config>_NNN.parquet`) against its shards and stats.json.

Why here and not in the row scan: view files are Parquet, not JSONL. Each is read one row group at a time
(memory bounded by a group, as the JSONL scan is by a chunk), every row checked against its config's schema;
the set of files must be exactly one per shard and view config when stats.json's options say `views: true`
(none otherwise), and a config's row
count must be the one stats.json recorded (`tokens.<config>.rows`) and never above what the main rows can give
(`View.source_count`: total steps, results). A view with a rule (`View.rule`: steps' rewards recomputed from the
trace, transitions' against the episode's results) is paired with its shard's rows, read a line at a time beside
the view file (view rows follow their main rows' order), so a row that its source does not give is named.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa

from generator.check.rowscan import Problem, json_objects
from generator.check.schemas import compiled
from generator.dataset import Dataset, View
from generator.layout import VIEW_DIR, shard_name, view_name
from generator.write.parquet import read_rows

MAX_ROW_FINDINGS = 20      # per file: a file whose every row is wrong is told by its first rows


def check(folder: Path, dataset: Dataset, shards: int, stats: dict | None) -> Iterator[tuple[str, int | None, Problem]]:
    """(path relative to folder, row number or None, problem) for every problem of the folder's view files."""
    options = (stats or {}).get("generator") or {}
    written = options.get("views") is True       # recorded by the generator; a folder made before views has none
    want = {view_name(v.name, i): (v, i) for v in dataset.views if written for i in range(shards)}
    have = {p.relative_to(folder).as_posix() for p in (folder / VIEW_DIR).rglob("*") if p.is_file()}
    for rel in sorted(have - set(want)):
        yield rel, None, Problem("view_files", "not a view file of this folder (one per shard and view config"
                                 + ("" if written else "; generated with --no-views") + ")")
    for rel in sorted(set(want) - have):
        yield rel, None, Problem("view_files", f"missing: the {want[rel][0].name} rows of {rel.rsplit('_', 1)[-1]}")
    counts = dict.fromkeys((v.name for v in dataset.views if written), 0)
    for rel in sorted(set(want) & have):
        view, shard = want[rel]
        rules = compiled(view.schema)
        source = _Source(view, dataset.id_field, folder, shard) if view.rule else None
        told = 0
        try:
            for n, row in enumerate(read_rows(str(folder / rel)), 1):
                counts[view.name] += 1
                if rules.is_valid(row):
                    found = source.add(n, row) if source else ()
                else:
                    where, message = (rules.errors(row) or [("/", "does not match")])[0]
                    found = [(n, Problem("schema", f"{where}: {message[:200]} (schema {view.schema})"))]
                for line, problem in found:
                    told += 1
                    if told <= MAX_ROW_FINDINGS:
                        yield rel, line, problem
            for line, problem in source.finish() if source else ():
                told += 1
                if told <= MAX_ROW_FINDINGS:
                    yield rel, line, problem
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


class _Source:
    """Pairs one view file's schema-valid rows, in file order, with the rows of the shard they were made from
    (read a line at a time, in step with the view file: memory bounded by one main row and its view rows) and
    runs the view's rule on each main row's group of view rows."""

    def __init__(self, view: View, id_field: str, folder: Path, shard: int):
        self.rule, self.id_field, self.shard = view.rule, id_field, shard_name(shard)
        self.path = folder / self.shard
        self.rows = json_objects(self.path)
        self.group: list[tuple[int, dict]] = []      # (row number, view row) of one main row

    def add(self, n: int, row: dict) -> list[tuple[int, Problem]]:
        done = self.finish() if self.group and row[self.id_field] != self.group[0][1][self.id_field] else []
        self.group.append((n, row))
        return done

    def finish(self) -> list[tuple[int, Problem]]:
        """The rule's findings on the group held (its main row found by id, further down the shard)."""
        group, self.group = self.group, []
        if not group:
            return []
        key = group[0][1][self.id_field]
        main = next((r for r in self.rows if r.get(self.id_field) == key), None)
        if main is None:              # out of the shard's order (the writer never does it): search it again
            self.rows = json_objects(self.path)
            main = next((r for r in self.rows if r.get(self.id_field) == key), None)
        if main is None:
            return [(group[0][0], Problem("view_source", f"{self.id_field} {key} is not in {self.shard}"))]
        try:
            return [(group[k][0], Problem("view_source", f"{self.id_field} {key} ({self.shard}): {message}"))
                    for k, message in self.rule(main, [row for _n, row in group])]
        except (KeyError, IndexError, TypeError):
            return []           # a main row its schema rejects: the shard's own findings say why
