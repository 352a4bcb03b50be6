"""validate: throughput against orjson parse-only on the same files in the same run, and flat peak RSS.

The reference is the cheapest honest reading of the data: every line of the files, read in binary and handed
to `orjson.loads`. Validation (lint, compiled schema, number types, semantic rules, cross-file rules) should
keep at least half that speed. Peak RSS is measured in fresh processes on a small and a large input; it must
not grow with the input size. `--val-dir DIR` measures an existing folder; otherwise one is generated.
"""
from __future__ import annotations

import time
from pathlib import Path

import orjson

from common import row, run_cli
from generator.rowscan import usable_cpus
from generator.validate import validate_paths

REPEATS = 3


def add_arguments(parser) -> None:
    g = parser.add_argument_group("validate")
    g.add_argument("--val-dir", type=Path, action="append", help="a generated folder to measure (repeatable); "
                   "default: generate kernelinfer (and kernelswarm when it exists) at --val-rows")
    g.add_argument("--val-rows", type=int, default=1899, help="rows of each generated folder (default 1899)")


def parse_only(files: list[Path]) -> float:
    """Seconds to read every line of `files` and parse it with orjson: the reference speed."""
    t = time.perf_counter()
    for path in files:
        with open(path, "rb", buffering=1 << 20) as stream:
            for line in iter(stream.readline, b""):
                orjson.loads(line)
    return time.perf_counter() - t


def timed_validate(paths: list[Path], jobs: int = 1) -> float:
    t = time.perf_counter()
    report = validate_paths(paths, progress=False, jobs=jobs)
    seconds = time.perf_counter() - t
    if not report.ok:
        raise SystemExit(f"bench: the benchmark data is not valid: {report.summary()}\n"
                         + "\n".join(map(str, report.findings[:10])))
    return seconds


def measure(label: str, targets: list[Path], files: list[Path]) -> None:
    """Best of REPEATS each: parse-only, validate in one process, validate with the CLI's default --jobs."""
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    jobs = min(8, usable_cpus())
    timed_validate(targets)  # warm: imports, compiled schemas, page cache
    parse_s = min(parse_only(files) for _ in range(REPEATS))
    print(row(f"{label}: orjson parse-only ({size_mb:,.0f} MB)", size_mb / parse_s, "MB/s"))
    for n in sorted({1, jobs}):
        check_s = min(timed_validate(targets, n) for _ in range(REPEATS))
        print(row(f"{label}: validate --jobs {n}, semantic rules on", size_mb / check_s, "MB/s"))
        print(row(f"{label}: validate --jobs {n} / parse-only", 100 * parse_s / check_s, "%",
                  "target >= 50" if n == jobs else ""))


def _folders(args, workdir: Path) -> list[Path]:
    if args.val_dir:
        return args.val_dir
    folders = []
    for dataset, count_flag in (("kernelinfer", "--sessions"), ("kernelswarm", "--episodes")):
        try:
            __import__(f"generator.cli_{dataset}")
        except ImportError:
            print(f"  ({dataset} generator not available: skipped)")
            continue
        out = workdir / dataset
        run_cli(dataset, "--out", str(out), count_flag, str(args.val_rows))
        folders.append(out)
    return folders


def run(args, workdir: Path) -> None:
    for folder in _folders(args, workdir):
        shards = sorted((folder / "batches").glob("*.jsonl"))
        every_jsonl = shards + sorted(folder.glob("*.jsonl"))
        measure(f"{folder.name} shards", shards, shards)
        measure(f"{folder.name} folder", [folder], every_jsonl)
        merged = next(p for p in sorted(folder.glob("*.jsonl")) if p.name != "tasks_holdout.jsonl")
        small, large = run_cli("validate", str(shards[0])), run_cli("validate", str(merged))
        ratio = large.peak_rss_mb / small.peak_rss_mb
        print(row(f"peak RSS, one shard ({shards[0].stat().st_size / 1e6:,.0f} MB)", small.peak_rss_mb, "MB"))
        print(row(f"peak RSS, merged view ({merged.stat().st_size / 1e6:,.0f} MB)", large.peak_rss_mb, "MB"))
        print(row("peak RSS ratio merged / one shard", ratio, "x", "target <= 1.2 (flat)"))
