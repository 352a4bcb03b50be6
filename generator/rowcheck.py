"""One pass over a JSONL file: every line's problems, plus the rules that span rows and files.

Per line: `jsonl_lint` (bytes and JSON), the compiled schema, strict number types, the dataset's semantic rules.
Across lines and files (state in `Checker`): duplicate ids, held-out tasks that are also training tasks, and
field types that change between files in ways Arrow cannot cast (hf_datasets_5x_findings.md section 4): a
nullable number that is null in every row of one file, or, for rows without a schema, any top-level field
whose JSON type differs from the first row that had it. Both `validate` and `--split` consume `check_file`.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from generator import jsonl_lint, semantic
from generator.schemas import ID_FIELDS, compiled, json_path

TRAINING_SCHEMAS = ("session", "episode")


@dataclass(frozen=True)
class Problem:
    kind: str
    message: str


def task_key(row: dict) -> tuple | None:
    """(op, impl, gpu, dtype, shape): the uniqueness key of a task; None when the row lacks a part of it."""
    try:
        return row["op"], row["impl"], row["gpu"], row["dtype"], tuple(sorted(row["shape"].items()))
    except (KeyError, AttributeError, TypeError):
        return None


def sniff_schema(row: dict) -> str | None:
    """The schema a row belongs to, from its id field (a batch file's name does not say)."""
    return next((name for name, field in ID_FIELDS.items() if field in row), None)


def _type_name(value) -> str:
    """JSON type, with int and float apart (Arrow tells them apart)."""
    return {int: "int", float: "float"}.get(type(value)) or jsonl_lint.json_type(value)


class Checker:
    """Cross-file state of one validation run; `check_file` yields (line, raw bytes, problems) per line."""

    def __init__(self, *, semantic_rules: bool = True, on_bytes: Callable[[int], None] | None = None):
        self.semantic_rules = semantic_rules
        self.on_bytes = on_bytes
        self.ids: dict[tuple[str, str], tuple[str, int]] = {}
        self.train_keys: dict[tuple, tuple[str, int]] = {}
        self.top_types: dict[str, tuple[str, str, int]] = {}
        self.untyped_fields: dict[str, set[tuple]] = {}     # file -> top-level fields of its schemaless rows
        self.null_only: dict[tuple[str, tuple], list[str]] = defaultdict(list)
        self.with_numbers: dict[tuple[str, tuple], list[str]] = defaultdict(list)
        self.file_problems: list[tuple[str, Problem]] = []
        self.lines = 0

    def check_file(self, path: Path, schema: str | None = None) -> Iterator[tuple[int, bytes, list[Problem]]]:
        """Stream `path` (binary, line by line, memory flat); `schema` None = sniff it from the first row.

        Problems that belong to the file rather than a line are kept for `finish`."""
        shown = str(path)
        seen_numbers: set[tuple] = set()
        rows = lineno = 0
        with open(path, "rb", buffering=1 << 20) as stream:
            for lineno, line in enumerate(jsonl_lint.iter_lines(stream), 1):
                if self.on_bytes:
                    self.on_bytes(len(line))
                row, lint = jsonl_lint.parse(line)
                problems = [Problem(p.kind, p.message) for p in lint]
                if line[-1:] != b"\n":  # readline returns that only for the file's last line
                    problems.append(Problem(*jsonl_lint.NO_FINAL_NEWLINE))
                if row is not None:
                    schema = schema or sniff_schema(row)
                    rows += 1
                    self._row(row, schema, shown, lineno, problems, seen_numbers)
                yield lineno, line, problems
        self.lines += lineno
        if not lineno:
            self.file_problems.append((shown, Problem("empty_file", "the file has no lines")))
        if rows:
            nullable = compiled(schema).nullable_paths if schema else self.untyped_fields.pop(shown, set())
            for path_ in nullable:
                (self.with_numbers if path_ in seen_numbers else self.null_only)[(schema, path_)].append(shown)

    def _row(self, row: dict, schema: str | None, shown: str, lineno: int, problems: list, seen: set) -> None:
        if schema is None:
            self._top_level_types(row, shown, lineno, problems, seen)
            return
        rules = compiled(schema)
        valid = rules.is_valid(row)
        if not valid:
            problems += [Problem("schema", f"{where}: {msg}") for where, msg in rules.errors(row)]
        problems += [Problem("number_type", f"{where}: {msg}") for where, msg in rules.number_problems(row, seen)]
        if valid and self.semantic_rules:
            problems += [Problem("semantic", msg) for msg in semantic.check(schema, row)]
        self._ids(row, schema, shown, lineno, problems)
        self._task_keys(row, schema, shown, lineno, problems)

    def _ids(self, row: dict, schema: str, shown: str, lineno: int, problems: list) -> None:
        field = ID_FIELDS.get(schema)
        value = row.get(field) if field else None
        if not isinstance(value, str):
            return
        first = self.ids.setdefault((schema, value), (shown, lineno))
        if first != (shown, lineno):
            problems.append(Problem("duplicate_id", f"{field} {value!r} already at {first[0]}:{first[1]}"))

    def _task_keys(self, row: dict, schema: str, shown: str, lineno: int, problems: list) -> None:
        key = task_key(row)
        if key is None:
            return
        if schema in TRAINING_SCHEMAS:
            self.train_keys.setdefault(key, (shown, lineno))
        elif schema == "task" and key in self.train_keys:
            where = self.train_keys[key]
            problems.append(Problem("holdout_overlap", f"held-out task {_key_text(key)} is also a training "
                                                       f"task at {where[0]}:{where[1]}"))

    def _top_level_types(self, row: dict, shown: str, lineno: int, problems: list, seen: set) -> None:
        fields = self.untyped_fields.setdefault(shown, set())
        for field, value in row.items():
            fields.add((field,))
            if value is None:
                continue
            seen.add((field,))
            kind = _type_name(value)
            first = self.top_types.setdefault(field, (kind, shown, lineno))
            if first[0] != kind:
                problems.append(Problem("type_change", f"{field}: {kind} here, {first[0]} at {first[1]}:{first[2]} "
                                                       "(Arrow cannot cast between them)"))

    def finish(self) -> list[tuple[str, Problem]]:
        """File-level problems: empty files, and those known only after every file: a nullable field null in all
        of one file's rows while another file has numbers there (Arrow types that file's column null)."""
        out = list(self.file_problems)
        for key, files in sorted(self.null_only.items()):
            numbers = self.with_numbers.get(key)
            if numbers:
                field = json_path(key[1])
                out += [(f, Problem("type_change", f"{field} is null in every row here but not in {numbers[0]}; "
                                                   "without declared features Arrow types this file's column null "
                                                   "and the cast fails")) for f in files]
        return out


def _key_text(key: tuple) -> str:
    op, impl, gpu, dtype, shape = key
    return f"({op}, {impl}, {gpu}, {dtype}, {','.join(f'{k}={v}' for k, v in shape)})"
