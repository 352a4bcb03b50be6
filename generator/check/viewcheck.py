"""A folder's training-view files (`views/<config>/<config>-<split>-NNN.parquet`) against its shards and stats.json.

Why here and not in the row scan: view files are Parquet, not JSONL. Each is read one row group at a time
(memory bounded by a group, as the JSONL scan is by a chunk), every row checked against its config's schema;
the set of files must be exactly one per shard, view config and split when stats.json's options say
`views: true` (none otherwise), and a config's row count must be the one stats.json recorded
(`tokens.<config>.rows`, and per split `splits.views.<config>.<split>`) and never above what the main rows can
give (`View.source_count`: total steps, results). Every view file is paired with its shard's rows, read a line at
a time beside it (view rows follow their main rows' order): a view row must come from a main row of the shard
(`view_source`), of the file's split by the validation rule (`view_split`: a train view row made from a
validation-family row would show a model the validation tasks), and, for a view with a rule (`View.rule`: steps'
rewards and prompts against the trace, transitions' against the episode's results and the agent's chat,
agent_turns' windows against the agent's chat), be what that main row gives.

`Checker` holds one folder's check in parts, so that its files can be checked a shard's at a time in worker
processes and, for a folder on remote storage, through a local copy of that shard's files (`shardfiles`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import pyarrow as pa

from generator.catalog import validation
from generator.check.rowscan import Located, Problem, json_objects
from generator.check.schemas import compiled
from generator.dataset import Dataset, View
from generator.layout import VIEW_DIR, shard_name, view_name
from generator.write.parquet import read_rows
from generator.write.views import SPLITS

MAX_ROW_FINDINGS = 20      # per file: a file whose every row is wrong is told by its first rows


class Checker:
    """One folder's view check in three parts: the set of files (`listing`), each file against its shard
    (`file`, in any order, counting rows), then the counts against stats.json (`totals`)."""

    def __init__(self, dataset: Dataset, shards: int, stats: dict | None):
        options = (stats or {}).get("generator") or {}
        self.written = options.get("views") is True    # recorded by the generator; a folder made before views has none
        self.dataset, self.stats = dataset, stats
        self.want = {view_name(v.name, s, i, shards=shards): (v, s, shard_name(i, shards=shards))
                     for v in dataset.views if self.written for s in SPLITS for i in range(shards)}
        self.counts = {(v.name, s): 0 for v in dataset.views if self.written for s in SPLITS}

    def source(self, rel: str) -> str:
        """The shard (relative path) whose rows view file `rel` is made from."""
        return self.want[rel][2]

    def listing(self, have: Iterable[str]) -> Located:
        """Files under views/ that are not the folder's, and the folder's that are missing."""
        have = set(have)
        for rel in sorted(have - set(self.want)):
            yield rel, None, Problem("view_files", "not a view file of this folder (one per shard, view config and "
                                     "split" + ("" if self.written else "; generated with --no-views") + ")")
        for rel in sorted(set(self.want) - have):
            view, split, shard = self.want[rel]
            yield rel, None, Problem("view_files", f"missing: the {view.name} rows of {shard}'s {split} rows")

    def file(self, folder: Path, rel: str) -> Located:
        """One view file (`folder / rel`) row by row, against its shard (`folder / self.source(rel)`)."""
        view, split, shard = self.want[rel]
        rules = compiled(view.schema)
        source = (_Source(view, split, self.dataset.id_field, folder, shard)
                  if (folder / shard).is_file() else None)    # a missing shard is the layout's finding
        told = 0
        try:
            for n, row in enumerate(read_rows(str(folder / rel)), 1):
                self.counts[view.name, split] += 1
                if rules.is_valid(row):
                    found = source.add(n, row) if source else []
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

    def totals(self) -> Located:
        """Each view's rows, in all and per split, against stats.json (when it parsed)."""
        if self.stats is None:
            return
        for view in self.dataset.views:
            if (view.name, SPLITS[0]) not in self.counts:
                continue
            where = f"{VIEW_DIR}/{view.name}"
            n = sum(self.counts[view.name, s] for s in SPLITS)
            stated = _at(self.stats, "tokens", view.name, "rows")
            if stated != n:
                yield where, None, Problem("view_count", f"{n} rows but stats.json records {stated!r} "
                                                         f"(tokens.{view.name}.rows)")
            for split in SPLITS:
                stated = _at(self.stats, "splits", "views", view.name, split)
                if stated != self.counts[view.name, split]:
                    yield where, None, Problem("view_count", f"{self.counts[view.name, split]} {split} rows but "
                                                             f"stats.json records {stated!r} "
                                                             f"(splits.views.{view.name}.{split})")
            try:
                most = view.source_count(self.stats) if view.source_count else None
            except (KeyError, TypeError, AttributeError):
                most = None        # stats.json's own schema findings tell what is wrong there
            if most is not None and n > most:
                yield where, None, Problem("view_count", f"{n} rows, more than the {most} the main rows give")


def _at(document, *keys):
    """document[k1][k2]..., or None where a level is missing or not a mapping (stats.json's own schema findings
    tell why)."""
    for key in keys:
        if not isinstance(document, dict):
            return None
        document = document.get(key)
    return document


class _Source:
    """Pairs one view file's schema-valid rows, in file order, with the rows of the shard they were made from
    (read a line at a time, in step with the view file: memory bounded by one main row and its view rows), checks
    that each main row is of the file's split and runs the view's rule on its group of view rows."""

    def __init__(self, view: View, split: str, id_field: str, folder: Path, shard: str):
        self.rule, self.split, self.id_field, self.shard = view.rule, split, id_field, shard      # relative path
        self.path = folder / self.shard
        self.rows = json_objects(self.path)
        self.group: list[tuple[int, dict]] = []      # (row number, view row) of one main row

    def add(self, n: int, row: dict) -> list[tuple[int, Problem]]:
        done = self.finish() if self.group and row[self.id_field] != self.group[0][1][self.id_field] else []
        self.group.append((n, row))
        return done

    def finish(self) -> list[tuple[int, Problem]]:
        """The findings on the group held (its main row found by id, further down the shard)."""
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
            split = validation.split_of(main)
        except (KeyError, TypeError):
            return []                 # a main row its schema rejects: the shard's own findings say why
        found = [] if split == self.split else [
            (n, Problem("view_split", f"{self.id_field} {key} ({self.shard}) is a {split} row (({main['op']}, "
                                      f"{main['gpu']}) by validation rule {validation.VERSION}): its view rows "
                                      f"belong in the {split} split, not {self.split}")) for n, _row in group]
        if self.rule is None:
            return found
        try:
            return found + [(group[k][0], Problem("view_source", f"{self.id_field} {key} ({self.shard}): {message}"))
                            for k, message in self.rule(main, [row for _n, row in group])]
        except (KeyError, IndexError, TypeError):
            return found            # a main row its schema rejects: the shard's own findings say why
