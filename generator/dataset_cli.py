"""The generation command shared by both datasets: arguments, the writer, QA, stats, card and validation.

Each dataset supplies a `DatasetSpec` (its row function per shard, holdout rows, stats and id field); this module
wires them to the generic writer (`io.write_dataset`) the same way for both, so the two folders are produced,
checked and summarized identically. The folder only gets its final name when the validator and every QA check
pass.
"""
from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import orjson

from generator import qa
from generator.io import OutputError, default_workers, write_dataset

SHARD_SIZE = 100
HOLDOUT_FILE = "tasks_holdout.jsonl"


@dataclass(frozen=True)
class DatasetSpec:
    name: str                      # "kernelinfer" | "kernelswarm"
    count_flag: str                # "sessions" | "episodes"
    default_rows: int
    default_holdout: int
    merged_name: str               # "sessions.jsonl" | "episodes.jsonl"
    id_field: str                  # "session_id" | "episode_id"
    total_key: str                 # the stats.json count printed in the summary line ("total_steps", ...)
    qa_module: str                 # module registering the dataset's QA checks
    rows_for_shard: Callable[[int, int, int, int], Iterable[dict]]   # (seed, rows, holdout, shard)
    holdout_rows: Callable[[int, int, int], list[dict]]              # (seed, rows, holdout)
    shard_stats: Callable[[list[dict]], dict]
    combine_stats: Callable[..., dict]


INT64_MAX = 2**63 - 1    # options are recorded as JSON ints (orjson, Arrow int64)


def int_at_least(minimum: int, maximum: int = INT64_MAX):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be <= {maximum}")
        return value
    return parse


def add_arguments(spec: DatasetSpec, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="output folder (created; must not hold other data)")
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="master seed (default 0)")
    parser.add_argument(f"--{spec.count_flag}", dest="rows", type=int_at_least(1), default=spec.default_rows,
                        help=f"training {spec.count_flag} (default {spec.default_rows})")
    parser.add_argument("--holdout", type=int_at_least(1), default=spec.default_holdout,
                        help=f"held-out tasks (default {spec.default_holdout}; the holdout config needs one)")
    parser.add_argument("--num-proc", type=int_at_least(1), default=default_workers(),
                        help="processes that make the shards and validate the output (default: usable CPUs, at "
                        "most 8); the bytes do not depend on it")


def task_key(row: dict) -> tuple:
    return row["op"], row["impl"], row["gpu"], row["dtype"], tuple(sorted(row["shape"].items()))


def shard_summary(spec: DatasetSpec, shard: int, rows: list[dict]) -> dict:
    """Runs in the worker: stats, the QA report and the keys for the cross-shard checks."""
    import importlib

    importlib.import_module(spec.qa_module)
    return {"stats": spec.shard_stats(rows),
            "qa": qa.run_checks(spec.name, rows, f"batch_{shard:03d}", id_field=spec.id_field),
            "keys": [task_key(r) for r in rows], "ids": [r[spec.id_field] for r in rows]}


def cross_shard_problems(spec: DatasetSpec, results: list[dict], holdout_rows: list[dict]) -> list[str]:
    """Ids unique across shards; held-out tasks absent from training (and, for sessions, tasks unique)."""
    problems: list[str] = []
    first_id: dict[str, int] = {}
    first_key: dict[tuple, int] = {}
    for shard, res in enumerate(results):
        for row_id in res["ids"]:
            if row_id in first_id:
                problems.append(f"{spec.id_field} {row_id} in batch_{first_id[row_id]:03d} and batch_{shard:03d}")
            first_id.setdefault(row_id, shard)
        for key in res["keys"]:
            first_key.setdefault(key, shard)
    for line, row in enumerate(holdout_rows, 1):
        key = task_key(row)
        if key in first_key:
            problems.append(f"{HOLDOUT_FILE}:{line}: held-out task {key} is also in batch_{first_key[key]:03d}")
    return problems


def _extra_files(spec: DatasetSpec, options: dict, holdout_rows: list[dict], problems: list[str]):
    def build(results: list[dict], data_bytes: int) -> dict[str, bytes]:
        from generator.card import render_card

        problems.extend(cross_shard_problems(spec, results, holdout_rows))
        for res in results:
            problems.extend(qa.failures(res["qa"]))
        summary = spec.combine_stats([r["stats"] for r in results], holdout_tasks=len(holdout_rows),
                                     data_bytes=data_bytes, options=options)
        files = {HOLDOUT_FILE: b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in holdout_rows),
                 "stats.json": orjson.dumps(summary, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)}
        for i, res in enumerate(results):
            files[f"qa_reports/batch_{i:03d}.json"] = orjson.dumps(res["qa"], option=orjson.OPT_INDENT_2)
        files["README.md"] = render_card(spec.name, summary).encode()
        return files
    return build


def _finalize(problems: list[str], jobs: int):
    """The finished folder through the validator, over as many processes as the shards were made with."""
    def check(folder: Path) -> list[str]:
        from generator.validate import validate_paths

        report = validate_paths([folder], jobs=jobs)
        return problems + [f"{f.path}:{f.line}: {f.message}" if f.line else f"{f.path}: {f.message}"
                           for f in report.findings]
    return check


def run(spec: DatasetSpec, args) -> int:
    """Exit 0 written, 1 validation or QA problems (the folder kept at its partial name), 2 usage or I/O error,
    130 interrupted; a finished --out is never taken away (see `generator.outdir`)."""
    partial = args.out.with_name(f".{args.out.name}.partial")
    try:
        return _run(spec, args)
    except KeyboardInterrupt:
        print(f"{spec.name}: interrupted; {args.out} is unchanged, the work so far is in {partial} "
              "(the same command resumes it)", file=sys.stderr)
        return 130
    except OSError as exc:
        where = exc.filename if exc.filename is not None else args.out
        print(f"{spec.name}: {where}: {exc.strerror or exc}; {args.out} is unchanged"
              + (f", the work so far is in {partial}" if partial.exists() else ""), file=sys.stderr)
        return 2


def _run(spec: DatasetSpec, args) -> int:
    options = {"seed": args.seed, spec.count_flag: args.rows, "holdout": args.holdout}
    try:
        holdout_rows = spec.holdout_rows(args.seed, args.rows, args.holdout)
    except ValueError as exc:
        print(f"{spec.name}: {exc}", file=sys.stderr)
        return 2
    problems: list[str] = []
    try:
        summary = write_dataset(
            args.out, rows_for_shard=functools.partial(spec.rows_for_shard, args.seed, args.rows, args.holdout),
            num_rows=args.rows, shard_size=SHARD_SIZE, merged_name=spec.merged_name, num_proc=args.num_proc,
            per_shard=functools.partial(shard_summary, spec), extra_files=_extra_files(spec, options, holdout_rows,
                                                                                        problems),
            finalize=_finalize(problems, args.num_proc), options=options)
    except OutputError as exc:
        print(f"{spec.name}: {exc}", file=sys.stderr)
        return 2
    total = orjson.loads((summary.out_dir / "stats.json").read_bytes())[spec.total_key]
    print(summary.line({spec.total_key.removeprefix("total_"): total}))
    if not summary.ok:
        for p in summary.problems[:50]:
            print(p, file=sys.stderr)
        print(f"{spec.name}: {len(summary.problems)} problems; the folder is left at {summary.out_dir}",
              file=sys.stderr)
        return 1
    return 0
