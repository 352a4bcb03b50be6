"""Rules that span rows and files, applied in file order to the records the per-line scan leaves.

Duplicate ids; held-out tasks that are also training tasks (training files are checked first); and field types
that change between rows or files in ways Arrow cannot cast (hf_datasets_5x_findings.md section 4): a nullable
number that is null in every row of one file while another file has numbers, and, for rows without a schema,
any top-level field whose JSON type differs from where it was first seen (int vs float, object vs array, ...).
"""
from __future__ import annotations

from collections import defaultdict

from generator.check.rowscan import Problem, Record
from generator.check.schemas import ID_FIELDS, compiled, json_path
from generator.dataset import HOLDOUT
from generator.registry import training_schemas

TRAINING_SCHEMAS = training_schemas()


class CrossFile:
    def __init__(self):
        self.ids: dict[tuple[str, str], tuple[str, int]] = {}
        self.train_keys: dict[tuple, tuple[str, int]] = {}
        self.first_types: dict[str, tuple[str, str, int]] = {}
        self.null_only: dict[tuple, list[str]] = defaultdict(list)
        self.with_values: dict[tuple, list[str]] = defaultdict(list)
        self.file_problems: list[tuple[str, Problem]] = []
        self._untyped: dict[str, tuple[set, set]] = {}    # file -> (fields seen, fields seen non-null)

    def row(self, path: str, line: int, record: Record, problems: list[Problem]) -> None:
        """Add to `problems` what this row breaks given every row before it."""
        if record.types is not None:
            self._types(path, line, record.types, problems)
            return
        if record.row_id is not None:
            first = self.ids.setdefault((record.schema, record.row_id), (path, line))
            if first != (path, line):
                field = ID_FIELDS[record.schema]
                problems.append(Problem("duplicate_id", f"{field} {record.row_id!r} already at {first[0]}:{first[1]}"))
        if record.key is None:
            return
        if record.schema in TRAINING_SCHEMAS:
            self.train_keys.setdefault(record.key, (path, line))
        elif record.schema == HOLDOUT.schema and record.key in self.train_keys:
            where = self.train_keys[record.key]
            problems.append(Problem("holdout_overlap", f"held-out task {key_text(record.key)} is also a training "
                                                       f"task at {where[0]}:{where[1]}"))

    def end_file(self, path: str, schema: str | None, lines: int, rows: int, seen_numbers: set) -> None:
        """Close a file: remember which nullable fields held values in it."""
        if not lines:
            self.file_problems.append((path, Problem("empty_file", "the file has no lines")))
        fields, non_null = self._untyped.pop(path, (set(), set()))
        if schema is not None and rows:
            fields, non_null = compiled(schema).nullable_paths, seen_numbers
        for field in fields:
            (self.with_values if field in non_null else self.null_only)[(schema, field)].append(path)

    def finish(self) -> list[tuple[str, Problem]]:
        """File-level problems: empty files; a field null in all of one file's rows but not in another file
        (without declared features Arrow types that file's column `null` and cannot cast it)."""
        out = list(self.file_problems)
        for key, files in sorted(self.null_only.items(), key=lambda item: (str(item[0][0]), item[0][1])):
            others = self.with_values.get(key)
            if others:
                field = json_path(key[1])
                out += [(f, Problem("type_change", f"{field} is null in every row here but not in {others[0]}; "
                                                   "without declared features Arrow types this file's column null "
                                                   "and the cast fails")) for f in files]
        return out

    def _types(self, path: str, line: int, types: tuple, problems: list[Problem]) -> None:
        fields, non_null = self._untyped.setdefault(path, (set(), set()))
        for name, kind in types:
            fields.add((name,))
            if kind is None:
                continue
            non_null.add((name,))
            first = self.first_types.setdefault(name, (kind, path, line))
            if first[0] != kind:
                problems.append(Problem("type_change", f"{name}: {kind} here, {first[0]} at {first[1]}:{first[2]} "
                                                       "(Arrow cannot cast between them)"))


def key_text(key: tuple) -> str:
    op, impl, gpu, dtype, shape = key
    return f"({op}, {impl}, {gpu}, {dtype}, {','.join(f'{k}={v}' for k, v in shape)})"
