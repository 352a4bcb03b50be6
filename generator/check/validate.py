"""`python -m generator validate`: check JSONL files and generated dataset folders, line-exact, before anyone
loads or publishes them. Library entry point `validate_paths` (used by the writers and upload.py).

A folder is checked as a whole: every data file against its schema (chosen by file name, or sniffed from the
rows of `batches/*.jsonl`), the merged view against the byte concatenation of the shards, `stats.json` against
its schema and the folder's counts, the card's YAML against the files (`cardcheck`), and the cross-file rules
of `crossfile`. `--split` separates a file's good lines from its bad ones.
Exit status: 0 all valid, 1 problems found, 2 usage or I/O error (also a FIFO, device, socket or symlink loop
given or found in a folder), 130 interrupted.
"""
from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import signal
import sys
from collections import Counter, deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

import orjson

from generator.check import schemas, semantic as semantic_rules
from generator.check import shardfiles
from generator.check.cardcheck import card_problems
from generator.check.crossfile import CrossFile
from generator.check.errors import InputError
from generator.check.roles import (FIXED, MERGED, ROW_COUNT_KEYS, SHARDS, STATS, one_line as _one_line,
                                   path_kind, shown as _shown)
from generator.check.rowscan import Chunk, Problem, Scan, chunks_of, scan_chunk, scan_lines, schema_of_file
from generator.check.schemas import ID_FIELDS
from generator.check.split import split_file
from generator.layout import HOLDOUT_CONFIG, PARQUET_DIR, SHARD_FILE, VIEW_DIR, index_width
from generator.dataset import HOLDOUT, STATS_SCHEMA
from generator.registry import by_schema, training_schemas
from generator.write.writer import default_workers

# holdout rows are checked against training rows, stats.json against the row counts of both
ORDER = {**dict.fromkeys(training_schemas(), 0), None: 1, HOLDOUT.schema: 2, STATS_SCHEMA: 3}
CHUNK_BYTES = 64 << 20          # unit of work (and of progress) within a file
MIN_CHUNK_BYTES = 8 << 20       # in a pool: about four chunks per process, none smaller than this
PARALLEL_MIN_BYTES = 32 << 20   # below this a process pool costs more than it saves


@dataclass(frozen=True)
class Finding:
    path: str
    line: int | None
    kind: str
    message: str     # starts with the kind, so printing only the message still names the class

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


@dataclass
class Report:
    """The outcome; `findings` holds them unless `validate_paths` streamed them to `on_finding` (then only the
    counts are kept: memory stays flat however many lines are broken)."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    lines: int = 0
    stopped: bool = False        # max_errors reached: later lines and files were not checked
    problems: int = 0
    counts: Counter = field(default_factory=Counter)
    sink: Callable[[Finding], None] | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, finding: Finding) -> None:
        self.problems += 1
        self.counts[finding.kind] += 1
        if self.sink is None:
            self.findings.append(finding)
        else:
            self.sink(finding)

    def summary(self) -> str:
        head = f"{self.files} file(s), {self.lines:,} line(s): "
        if self.ok:
            return head + "valid"
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.counts.items()))
        tail = " (stopped at --max-errors)" if self.stopped else ""
        return head + f"{self.problems} problem(s): {kinds}{tail}"

    def totals(self) -> dict:
        return {"ok": self.ok, "files": self.files, "lines": self.lines, "stopped": self.stopped,
                "counts": dict(sorted(self.counts.items()))}

    def to_json(self) -> dict:
        return {**self.totals(), "findings": [asdict(f) for f in self.findings]}


class _Stop(Exception):
    pass


@dataclass(frozen=True)
class _Target:
    path: Path
    schema: str | None
    role: str = "rows"               # rows | merged (compare with shards) | document (one JSON value)
    shards: tuple[Path, ...] = ()
    chunks: tuple[Chunk, ...] = ()   # rows: the file cut into units of work
    row_schema: str | None = None    # stats.json: the schema of the folder's rows (which count it states)


def validate_paths(paths, *, schema: str | None = None, semantic: bool = True, max_errors: int | None = None,
                   progress: bool | None = None, jobs: int = 1,
                   on_finding: Callable[[Finding], None] | None = None) -> Report:
    """Check files and folders; `schema` forces the schema of JSONL files given directly (not of folders).

    `jobs` > 1 spreads the per-line work of large inputs over processes; findings and their order are the same.
    A folder's Parquet files are read in spawned worker processes (`jobs` at a time) once it has more than a few
    shards (`shardfiles`): a script that calls this needs the `if __name__ == "__main__":` guard.
    `on_finding` receives each finding as it is found, instead of `Report.findings` keeping them.
    Raises InputError for a missing or unreadable path or an unknown schema name."""
    if schema is not None and schema not in schemas.NAMES:
        raise InputError(f"unknown schema {schema!r}; expected one of {', '.join(schemas.NAMES)}")
    report = Report(sink=on_finding)
    try:
        targets = _plan(paths, schema, report)
        total = sum(t.path.stat().st_size for t in targets)
        scan_jobs = jobs if total >= PARALLEL_MIN_BYTES else 1
        size = CHUNK_BYTES if scan_jobs == 1 else min(CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // (4 * scan_jobs)))
        targets = [replace(t, chunks=tuple(chunks_of(t.path, t.schema, size))) if t.role == "rows" else t
                   for t in targets]
    except OSError as exc:
        raise InputError(f"{exc.filename or ''}: {exc.strerror or exc}") from exc
    bar = _progress_bar(total, progress)
    results = _scans([c for t in targets for c in t.chunks], semantic, scan_jobs)

    def add(path: str, line: int | None, problem: Problem) -> None:
        report.add(Finding(path, line or None, problem.kind, f"{problem.kind}: {_one_line(problem.message)}"))
        if max_errors is not None and report.problems >= max_errors:
            raise _Stop

    cross = CrossFile()
    rows: dict[Path, int] = {}
    try:
        for target in targets:
            report.files += 1
            if target.role == "rows":
                lines, rows[target.path] = _check_rows(target, results, cross, add, bar, semantic)
                report.lines += lines
            elif target.role == "views":
                _check_views(target, add, jobs)
            else:
                _check_other(target, rows, add)
                if bar:
                    bar.update(target.path.stat().st_size)
        for path, problem in cross.finish():
            add(path, None, problem)
    except _Stop:
        report.stopped = True
    except OSError as exc:
        raise InputError(f"{exc.filename or ''}: {exc.strerror or exc}") from exc
    finally:
        results.close()
        if bar:
            bar.close()
    return report


def _plan(paths, schema: str | None, report: Report) -> list[_Target]:
    targets: list[_Target] = []
    for raw in paths:
        path = Path(raw)
        if path_kind(path) == "folder":
            targets += _plan_folder(path, report)
        elif path.name == STATS and schema is None:
            targets.append(_Target(path, STATS_SCHEMA, "document"))
        else:
            chosen = schema or FIXED.get(path.name) or MERGED.get(path.name) or _shard_schema(path)
            targets.append(_Target(path, chosen or _unknown_schema(path, report)))
    targets.sort(key=lambda t: ORDER.get(t.schema, 1))
    return targets




def _shard_schema(path: Path) -> str | None:
    """A file in a folder's `batches/` answers to its folder's row schema."""
    return _folder_schema(path.parent.parent) if path.parent.name == SHARDS else schema_of_file(path)


def _folder_schema(folder: Path) -> str | None:
    """The row schema of a generated folder: its merged view's name, else the count stats.json states, else its
    first shard's rows."""
    merged = [schema for name, schema in MERGED.items() if (folder / name).is_file()]
    if len(merged) == 1:
        return merged[0]
    try:
        stats = orjson.loads(_read_bounded(folder / STATS, MAX_DOCUMENT_BYTES)) if (folder / STATS).is_file() else None
        stated = [schema for schema, key in ROW_COUNT_KEYS.items() if isinstance(stats, dict) and key in stats]
        if len(stated) == 1:
            return stated[0]
    except (OSError, orjson.JSONDecodeError):
        pass
    shards = sorted((folder / SHARDS).glob("*.jsonl"))
    return schema_of_file(shards[0]) if shards and path_kind(shards[0]) == "file" else None


def _unknown_schema(path: Path, report: Report) -> None:
    report.add(Finding(_shown(path), None, "schema", "schema: cannot tell which schema the rows answer "
                                   f"to (no {'/'.join(ID_FIELDS.values())} in the first row): pass --schema"))


def _scans(chunks: list[Chunk], semantic: bool, jobs: int):
    """(scan, iterator of (local line, problems, record)) per chunk, in order; in this process or a pool."""
    if jobs <= 1 or len(chunks) < 2:
        for chunk in chunks:
            scan = Scan(chunk)
            yield scan, ((n, p, r) for n, _line, p, r in scan_lines(scan, semantic))
        return
    for name in schemas.NAMES:   # compile before forking, so workers inherit instead of recompiling
        schemas.compiled(name)
        if semantic:
            semantic_rules.rules_for(name)
    pool = ProcessPoolExecutor(min(jobs, len(chunks)), mp_context=_mp_context(), initializer=signal.signal,
                               initargs=(signal.SIGINT, signal.SIG_IGN))     # Ctrl-C: one message, from the parent
    ahead = iter(chunks)      # at most two chunks a process in flight: finished scans wait in memory for their turn
    pending = deque(pool.submit(scan_chunk, c, semantic) for c in itertools.islice(ahead, 2 * jobs))
    try:
        while pending:
            scan = pending.popleft().result()
            for chunk in itertools.islice(ahead, 1):
                pending.append(pool.submit(scan_chunk, chunk, semantic))
            yield scan, iter(scan.rows)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _mp_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _check_rows(target: _Target, results, cross: CrossFile, add, bar, semantic: bool) -> tuple[int, int]:
    """Merge the scans of one file's chunks in order: global line numbers, cross-file rules; (lines, rows)."""
    shown = _shown(target.path)
    offset = rows = 0
    seen: set = set()
    for chunk in target.chunks:
        scan, items = next(results)
        parts = [(scan, items)]
        if scan.resume is not None:       # a worker held its limit of lines: the rest of the chunk is read here
            rest = Scan(replace(chunk, start=scan.resume))
            parts.append((rest, ((n, p, r) for n, _line, p, r in scan_lines(rest, semantic))))
        for part, part_items in parts:
            for number, problems, record in part_items:
                line = offset + number
                if record is not None:
                    rows += 1
                    cross.row(shown, line, record, problems)
                for problem in problems:
                    add(shown, line, problem)
            offset += part.lines
            seen |= part.seen
        if bar:
            bar.update(chunk.end - chunk.start)
    cross.end_file(shown, target.schema, offset, rows, seen)
    return offset, rows


def _plan_folder(folder: Path, report: Report) -> list[_Target]:
    """What a generated folder holds (DESIGN.md layout) and which schema each file answers to: decided once for
    the folder, never per file or chunk."""
    shards = tuple(sorted((folder / SHARDS).glob("*.jsonl")))   # by name: what datasets, ls and users read
    for path in shards + tuple(sorted(folder.glob("*.jsonl"))) + (folder / STATS,) * (folder / STATS).exists():
        path_kind(path)
    merged = [name for name in MERGED if (folder / name).is_file()]
    findings = []
    if len(merged) > 1:
        findings.append(("layout", f"both {' and '.join(merged)}: a folder holds one dataset"))
    if not shards:
        findings.append(("layout", f"no shards: expected {SHARDS}/*.jsonl"))
    if misnamed := _shard_width_problem(shards):
        findings.append(("layout", misnamed))
    if (folder / f"{folder.name}.py").exists():
        findings.append(("layout", f"{folder.name}.py: datasets refuses a folder holding <folder name>.py"))
    row_schema = _folder_schema(folder) if len(merged) <= 1 else None
    if shards and row_schema is None:
        findings.append(("schema", f"cannot tell the rows' schema: no {' or '.join(MERGED)} and the first row of "
                                   f"{shards[0].name} has no {'/'.join(ID_FIELDS.values())}"))

    dataset = by_schema(row_schema)

    def schema_of(path: Path) -> str | None:
        """The row schema of a data file a card config reads: JSONL shards and files by name, Parquet files by
        their config's folder (`data/<config>/`, `views/<config>/`)."""
        if path.parent.name == SHARDS:
            return row_schema
        if path.suffix == ".parquet" and dataset is not None and path.parent.parent.name in (PARQUET_DIR, VIEW_DIR):
            name = path.parent.name
            return HOLDOUT.schema if name == HOLDOUT_CONFIG else next(
                (c.schema for c in dataset.configs if c.name == name), None)
        return FIXED.get(path.name) or MERGED.get(path.name)

    findings += [("card", msg) for msg in card_problems(folder, schema_of, SHARDS, MERGED)]
    for kind, msg in findings:
        report.add(Finding(_shown(folder), None, kind, f"{kind}: {_one_line(msg)}"))
    targets = [_Target(p, row_schema) for p in shards]
    for name in merged:
        path = folder / name
        targets.append(_Target(path, MERGED[name], "merged", shards) if shards else _Target(path, MERGED[name]))
    for path in sorted(folder.glob("*.jsonl")):
        if path.name not in MERGED:
            targets.append(_Target(path, FIXED.get(path.name) or schema_of_file(path)))
    if (folder / STATS).is_file():
        targets.append(_Target(folder / STATS, STATS_SCHEMA, "document", shards, row_schema=row_schema))
    if dataset is not None and (dataset.views or (folder / VIEW_DIR).exists() or (folder / PARQUET_DIR).exists()):
        targets.append(_Target(folder, None, "views", shards, row_schema=row_schema))
    return targets


def _run_shards(shards: tuple[Path, ...]) -> int:
    """The shard count of the run that wrote these shard files: their number, or more where the highest index says
    so (a deleted shard must not change the width every other name is checked against; the missing one is the
    stats check's finding)."""
    indices = [int(m[1]) for p in shards if (m := SHARD_FILE.fullmatch(p.name))]
    return max(len(shards), 1 + max(indices, default=-1))


def _shard_width_problem(shards: tuple[Path, ...]) -> str | None:
    """The shard names that do not pad their index to the width of the run's shard count (`layout.index_width`),
    in one line: names of mixed widths sort by text out of index order (batch_1000 between batch_100 and
    batch_101), and text is the order `datasets.load_dataset` (fsspec's glob), `ls` and this validator read them in."""
    count = _run_shards(shards)
    width = index_width(count)
    off = [p.name for p in shards if (m := SHARD_FILE.fullmatch(p.name)) and len(m[1]) != width]
    if not off:
        return None
    return (f"{len(off):,} of the {len(shards):,} shard names do not pad their index to {width} digits, the width of "
            f"a run of {count:,} shards (first: {off[0]}): one width for every name is what makes them sort "
            "by text in index order, the order datasets.load_dataset reads the shards in")


def _check_views(target: _Target, add, jobs: int) -> None:
    """The folder's Parquet files (`shardfiles`): the views, against the stats.json they are counted in (when it
    parses), and the main rows' and holdout's copies."""
    folder = target.path
    try:
        stats = orjson.loads(_read_bounded(folder / STATS, MAX_DOCUMENT_BYTES))
    except (OSError, InputError, orjson.JSONDecodeError):
        stats = None                 # the stats.json target reports why
    stats = stats if isinstance(stats, dict) else None
    dataset = by_schema(target.row_schema)
    for rel, line, problem in shardfiles.local(folder, dataset.name, _run_shards(target.shards), stats, jobs):
        add(_shown(folder / rel), line, problem)


def _check_other(target: _Target, rows: dict[Path, int], add) -> None:
    shown = _shown(target.path)
    if target.role == "merged":
        problem = _merged_difference(target.path, target.shards)
        if problem:
            add(shown, problem[0], Problem("merged_view", problem[1]))
        return
    doc, problems = _check_document(target.path, target.schema or STATS_SCHEMA)
    if not problems and target.role == "document" and target.path.parent.joinpath(SHARDS).is_dir():
        problems = [(None, p) for p in _stats_counts(doc, target, rows)]
    for line, problem in problems:
        add(shown, line, problem)


def _stats_counts(stats: dict, target: _Target, rows: dict[Path, int]) -> list[Problem]:
    """stats.json states the folder's own counts: rows in the shards, shards, held-out tasks."""
    shards = target.shards
    holdout = target.path.parent / next(iter(FIXED))
    want = {"shards": len(shards), "holdout_tasks": rows.get(holdout, 0)}
    if target.row_schema in ROW_COUNT_KEYS:
        want[ROW_COUNT_KEYS[target.row_schema]] = sum(rows.get(p, 0) for p in shards)
    problems = [Problem("stats_mismatch", f"{key} is {stats.get(key)!r} but the folder holds {n}")
                for key, n in want.items() if stats.get(key) != n]
    size = stats["generator"].get("shard_size")            # the card's "N rows each"
    if size is not None:
        problems += [Problem("stats_mismatch", f"generator.shard_size is {size} but {p.name} holds {rows.get(p, 0)} rows")
                     for p in shards[:-1] if rows.get(p, 0) != size]
        if shards and not 0 < rows.get(shards[-1], 0) <= size:
            problems.append(Problem("stats_mismatch", f"generator.shard_size is {size} but the last shard "
                                    f"{shards[-1].name} holds {rows.get(shards[-1], 0)} rows"))
    return problems


def _merged_difference(merged: Path, shards: tuple[Path, ...]) -> tuple[int, str] | None:
    """(line, message) where the merged view stops being the byte concatenation of the shards, else None."""
    offset = 0          # bytes of the view that match
    with open(merged, "rb") as view:
        for shard in shards:
            with open(shard, "rb") as part:
                for want in iter(lambda: part.read(1 << 20), b""):
                    got = view.read(len(want))
                    if got != want:
                        at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
                        return (_line_at(merged, offset + at),
                                f"differs from the concatenation of {SHARDS}/*.jsonl (at {shard.name})")
                    offset += len(got)
        if view.read(1):
            return _line_at(merged, offset), f"has bytes after the end of the last shard ({shards[-1].name})"
    return None


def _line_at(path: Path, offset: int) -> int:
    """The line holding byte `offset` of `path`: newlines are counted only once a difference is found (counting them
    on the way costs as much as reading the file)."""
    newlines = 0
    with open(path, "rb") as stream:
        while offset > 0:
            block = stream.read(min(1 << 20, offset))
            if not block:
                break
            newlines += block.count(b"\n")
            offset -= len(block)
    return newlines + 1


def _check_document(path: Path, schema: str) -> tuple[dict | None, list[tuple[int | None, Problem]]]:
    """A single JSON document (stats.json): (the document, parse errors with their line, or schema errors)."""
    data = _read_bounded(path, MAX_DOCUMENT_BYTES)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as orjson_error:
        try:
            json.loads(data.decode("utf-8", errors="replace"))
            return None, [(None, Problem("not_json", "not valid JSON (NaN/Infinity or a lone surrogate?)"))]
        except json.JSONDecodeError as exc:
            return None, [(exc.lineno, Problem("not_json", f"{exc.msg.removesuffix(' at')} at column {exc.colno}"))]
        except RecursionError:
            return None, [(None, Problem("not_json", f"nested too deeply to parse ({orjson_error})"))]
    rules = schemas.compiled(schema)
    try:
        if rules.is_valid(doc):
            return doc, []
        return doc, [(None, Problem("schema", f"{where}: {msg}")) for where, msg in rules.errors(doc)]
    except RecursionError:
        return None, [(None, Problem("schema", "nested too deeply to check"))]


MAX_DOCUMENT_BYTES = 64 << 20     # stats.json is a few KB; a bigger one is not read whole


def _read_bounded(path: Path, limit: int) -> bytes:
    with open(path, "rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{_shown(path)}: over {limit >> 20} MB; not a stats document")
    return data


def _progress_bar(total: int, enabled: bool | None):
    """A byte-count tqdm bar on a terminal only (never in logs, CI or the writers' self-check)."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="B", unit_scale=True, desc="validate", file=sys.stderr)


# ---------------------------------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="JSONL files or generated dataset folders")
    parser.add_argument("--schema", choices=schemas.NAMES, help="schema of the JSONL files given (default: by name)")
    parser.add_argument("--no-semantic", dest="semantic", action="store_false", help="skip cross-field rules")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="findings as text or one JSON")
    parser.add_argument("--max-errors", type=int, metavar="N", help="stop after N problems")
    parser.add_argument("--jobs", type=int, default=default_workers(), metavar="N",
                        help="processes for large inputs (default: usable CPUs, at most 8)")
    parser.add_argument("--split", type=Path, metavar="SRC", help="write SRC's valid lines to --good, the rest "
                        "(untouched, with line number and reasons) to --rejects; SRC is never modified")
    parser.add_argument("--good", type=Path, metavar="OUT", help="--split: the valid lines, byte for byte")
    parser.add_argument("--rejects", type=Path, metavar="REJ", help='--split: one JSON per rejected line, '
                        '{"line", "reasons", "raw", "encoding"}; raw is the exact line (base64 if not UTF-8)')
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ("output: one line per problem, PATH:LINE: kind: message, then a summary\n"
                     "exit status: 0 all valid, 1 problems found, 2 usage or I/O error, 130 interrupted\n"
                     "schemas and rules: schema/README.md")


def run(args: argparse.Namespace) -> int:
    try:
        if args.split or args.good or args.rejects:
            return _run_split(args)
        if not args.paths:
            raise InputError("give at least one PATH (or --split SRC --good OUT --rejects REJ)")
        if args.max_errors is not None and args.max_errors < 1:
            raise InputError("--max-errors must be >= 1")
        if args.jobs < 1:
            raise InputError("--jobs must be >= 1")
        out = _Output(args.format == "json")
        report = validate_paths(args.paths, schema=args.schema, semantic=args.semantic, max_errors=args.max_errors,
                                jobs=args.jobs, on_finding=out.finding)
        out.end(report)
    except InputError as exc:
        print(f"validate: {exc}", file=sys.stderr)
        return 2
    return 0 if report.ok else 1


class _Output:
    """Findings printed as they are found (text lines, or the items of the JSON document's `findings` list,
    the totals after them); a closed pipe (`validate ... | head`) silences the rest."""

    def __init__(self, as_json: bool):
        self.as_json = as_json
        self.first = True
        self._write(b'{"findings": [' if as_json else b"")

    def finding(self, finding: Finding) -> None:
        if self.as_json:
            item = {"path": finding.path, "line": finding.line, "kind": finding.kind, "message": finding.message}
            self._write((b"\n  " if self.first else b",\n  ") + orjson.dumps(item))
        else:
            self._write(str(finding).encode("utf-8", "backslashreplace") + b"\n")
        self.first = False

    def end(self, report: Report) -> None:
        if self.as_json:
            totals = orjson.dumps(report.totals(), option=orjson.OPT_INDENT_2)
            self._write(b"\n]," + totals[1:] + b"\n")              # the totals' members after the list
        else:
            self._write(report.summary().encode() + b"\n")
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            self._silence()

    def _write(self, data: bytes) -> None:
        try:
            sys.stdout.buffer.write(data)
        except BrokenPipeError:
            self._silence()

    @staticmethod
    def _silence() -> None:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run_split(args: argparse.Namespace) -> int:
    if not (args.split and args.good and args.rejects) or args.paths:
        raise InputError("--split SRC needs --good OUT and --rejects REJ, and no other PATH")
    result = split_file(args.split, args.good, args.rejects, schema=args.schema, semantic=args.semantic)
    print(f"{args.split}: {result.good:,} good line(s) -> {args.good}, {result.rejected:,} rejected -> {args.rejects}")
    return 0 if result.rejected == 0 else 1
