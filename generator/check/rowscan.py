"""Per-line checks of a stretch of a JSONL file: everything that needs only the line itself.

`jsonl_lint` (bytes and JSON), the compiled schema, strict number types and the dataset's semantic rules. Work
comes as `Chunk`s, line-aligned byte ranges of a file, so one big file can be spread over processes and the
results merged in order (`crossfile` then applies the rules that span rows and files). A scan keeps no rows:
memory stays flat whatever the file size.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, NamedTuple

import orjson

from generator.check import arrowsafe, jsonl_lint, semantic
from generator.check.schemas import ID_FIELDS, compiled

READ_BUFFER = 2 << 20


class Problem(NamedTuple):
    kind: str
    message: str


Located = Iterator[tuple[str, "int | None", Problem]]   # a derived file's findings: (relative path, row or None, problem)


class Record(NamedTuple):
    """What the cross-file rules need from one parsed row (small; the row itself is dropped)."""

    schema: str | None
    row_id: str | None
    key: tuple | None                  # (op, impl, gpu, dtype, shape items)
    types: tuple | None                # schemaless rows: ((field, JSON type or None for null), ...)


@dataclass(frozen=True)
class Chunk:
    path: Path
    start: int
    end: int              # byte offset after the chunk's last line
    schema: str | None    # None: sniffed from the first parsed row


@dataclass
class Scan:
    """One chunk's outcome; `rows` is filled only by `scan_chunk` (line numbers are local, from 1)."""

    chunk: Chunk
    lines: int = 0
    seen: set = field(default_factory=set)            # nullable number paths holding a number somewhere
    rows: list = field(default_factory=list)          # (line, problems, record) for every line that has either
    resume: int | None = None                         # scan_chunk stopped holding rows: the rest starts here


def chunks_of(path: Path, schema: str | None, target_bytes: int | None) -> list[Chunk]:
    """`path` cut into line-aligned chunks of about `target_bytes` (None: the whole file)."""
    size = path.stat().st_size
    cuts = [0]
    if target_bytes and size > 2 * target_bytes:
        with open(path, "rb") as stream:
            for approx in range(target_bytes, size - target_bytes // 2, target_bytes):
                if approx <= cuts[-1]:
                    continue
                stream.seek(approx - 1)
                stream.readline()                     # to the end of the line that covers approx - 1
                if stream.tell() >= size:
                    break
                cuts.append(stream.tell())
    cuts.append(size)
    return [Chunk(path, a, b, schema) for a, b in zip(cuts, cuts[1:])]


def _lines(stream, remaining: int, size: int = READ_BUFFER) -> Iterator[tuple[bytearray, int, int]]:
    """(buffer, start, end) for each line of the next `remaining` bytes: the line (with its newline, the file's last
    maybe without) is buffer[start:end], left in place (a copy of every line costs as much as a tenth of parsing
    it) and valid until the next line is asked for. `readline` on lines of hundreds of KB costs as much as parsing
    them, so the stream is read into one buffer, with the unfinished line moved to its front first (a new block per
    read costs a copy of every block and fresh pages); a line longer than the buffer gets a bigger one.
    Memory: one buffer of `size` bytes, or of up to twice the longest line (it doubles to fit)."""
    buffer = bytearray(size)
    held = 0                                  # buffer[:held] is the start of a line
    while remaining > 0:
        if held == len(buffer):               # a new buffer: views of the old one may still be held
            buffer = buffer + bytes(len(buffer))
        got = stream.readinto(memoryview(buffer)[held:held + remaining])
        if not got:
            break
        remaining -= got
        filled, start = held + got, 0
        end = buffer.find(b"\n", held, filled)
        while end >= 0:
            yield buffer, start, end + 1
            start = end + 1
            end = buffer.find(b"\n", start, filled)
        held = filled - start
        if start:                             # else the unfinished line is already at the front
            buffer[:held] = buffer[start:filled]
    if held:
        yield buffer, 0, held


def scan_lines(scan: Scan, semantic_rules: bool) -> Iterator[tuple[int, memoryview, list[Problem], Record | None]]:
    """Yield (local line number, raw line, problems, record) for every line of the chunk; the raw line is a
    read-only view of its bytes, valid until the next line is asked for."""
    chunk = scan.chunk
    check = _RowCheck(chunk.schema, semantic_rules, scan.seen)
    lineno = 0
    with open(chunk.path, "rb", buffering=0) as stream:
        stream.seek(chunk.start)
        for data, start, end in _lines(stream, chunk.end - chunk.start):
            lineno += 1
            line = memoryview(data).toreadonly()[start:end]
            row, lint = jsonl_lint.parse(line, data, start)
            problems = [Problem(*p) for p in lint] if lint else []
            if line[-1] != 10:  # b"\n": only the file's last line can lack it
                problems.append(Problem(*jsonl_lint.NO_FINAL_NEWLINE))
            yield lineno, line, problems, None if row is None else check(row, problems)
    scan.lines = lineno


MAX_HELD = 5_000     # lines with problems a worker returns per chunk; the caller scans the rest of such a chunk


def scan_chunk(chunk: Chunk, semantic_rules: bool) -> Scan:
    """The chunk at once, keeping only lines with problems or a record (for a worker process). It stops after
    MAX_HELD lines with problems, with `resume` set to the byte offset of the next line: a file of millions of
    broken lines never sits in memory (here or pickled to the parent) as millions of findings."""
    scan = Scan(chunk)
    offset = chunk.start
    held = 0
    for lineno, line, problems, record in scan_lines(scan, semantic_rules):
        offset += len(line)
        if problems or record:
            scan.rows.append((lineno, problems, record))
            held += bool(problems)
            if held >= MAX_HELD and offset < chunk.end:
                scan.lines, scan.resume = lineno, offset
                break
    return scan


def sniff_schema(row: dict) -> str | None:
    """The schema a row belongs to, from its id field (a batch file's name does not say)."""
    return next((name for name, id_field in ID_FIELDS.items() if id_field in row), None)


SNIFF_LINES = 64


def schema_of_file(path: Path) -> str | None:
    """The schema named by the id field of the file's first object row (among its first SNIFF_LINES lines), for a
    file whose name and place do not say: decided once per file, before any chunk is scanned, so every row
    (the first ones too) is held to it; None when that row names none."""
    with open(path, "rb", buffering=0) as stream:
        for n, (data, start, end) in enumerate(_lines(stream, os.fstat(stream.fileno()).st_size)):
            if n >= SNIFF_LINES:
                break
            try:
                row = orjson.loads(memoryview(data)[start:end])
            except orjson.JSONDecodeError:
                continue
            if type(row) is dict:
                return sniff_schema(row)
    return None


def task_key(row: dict) -> tuple | None:
    """(op, impl, gpu, dtype, shape): the uniqueness key of a task; None when the row lacks a part of it."""
    try:
        key = row["op"], row["impl"], row["gpu"], row["dtype"], tuple(sorted(row["shape"].items()))
        hash(key)          # a list or object in `shape` (the schema reports it) cannot key the cross-file rules
        return key
    except (KeyError, AttributeError, TypeError):
        return None


class _RowCheck:
    """Everything one parsed row is held to, with the schema's compiled rules and the semantic rules looked up once
    per scan rather than per row. The schema is the chunk's (decided per file by the validator); without one,
    rows get only the line checks and the cross-file type rules."""

    def __init__(self, schema: str | None, semantic_rules: bool, seen: set):
        self.schema = None
        self.semantic_rules = semantic_rules
        self.seen = seen
        if schema:
            self._use(schema)

    def _use(self, schema: str) -> None:
        self.schema = schema
        self.rules = compiled(schema)
        self.semantic = semantic.rules_for(schema) if self.semantic_rules else None
        self.id_field = ID_FIELDS.get(schema, "")
        self.json_columns = arrowsafe.json_paths(schema) if schema in ID_FIELDS else frozenset()

    def __call__(self, row: dict, problems: list) -> Record:
        if self.schema is None:
            return Record(None, None, None, tuple((k, _type_name(v)) for k, v in row.items()))
        rules = self.rules
        valid = rules.is_valid(row)
        if not valid:
            problems += [Problem("schema", f"{where}: {msg}") for where, msg in rules.errors(row)]
        for where, msg in rules.number_problems(row, self.seen):
            problems.append(Problem("number_type", f"{where}: {msg}"))
        for where, msg in arrowsafe.number_problems(row, self.json_columns):
            problems.append(Problem("number_range", f"{where}: {msg}"))
        if valid and self.semantic is not None:
            problems += [Problem("semantic", msg) for msg in semantic.run(self.semantic, row)]
        row_id = row.get(self.id_field)
        return Record(self.schema, row_id if isinstance(row_id, str) else None, task_key(row), None)


def _type_name(value) -> str | None:
    """JSON type, with int and float apart (Arrow tells them apart); None for null."""
    if value is None:
        return None
    return {int: "int", float: "float"}.get(type(value)) or jsonl_lint.json_type(value)


def json_objects(path: Path) -> Iterator[dict]:
    """The lines of a JSONL file that parse as JSON objects, one at a time (the row scan reports the others; a
    missing file has none): what the rules that compare a derived file with its source read."""
    try:
        with open(path, "rb") as stream:
            for line in stream:
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(row, dict):
                    yield row
    except FileNotFoundError:
        return
