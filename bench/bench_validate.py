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
from generator.write.writer import default_workers
from generator.check.validate import validate_paths

REPEATS = 3


def add_arguments(parser) -> None:
    g = parser.add_argument_group("validate")
    g.add_argument("--val-dir", type=Path, action="append", help="a generated folder to measure (repeatable); "
                   "default: generate kernelinfer and kernelswarm folders")
    g.add_argument("--val-rows", type=int, help="rows of each generated folder (default: the dataset's default scale)")


def parse_only(files: list[Path]) -> None:
    """Read every line of `files` and parse it with orjson: the reference."""
    for path in files:
        with open(path, "rb", buffering=1 << 20) as stream:
            for line in iter(stream.readline, b""):
                orjson.loads(line)


def validate(paths: list[Path], jobs: int = 1) -> None:
    report = validate_paths(paths, progress=False, jobs=jobs)
    if not report.ok:
        raise SystemExit(f"bench: the benchmark data is not valid: {report.summary()}\n"
                         + "\n".join(map(str, report.findings[:10])))


def timed(fn, *args) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(label: str, targets: list[Path], files: list[Path]) -> None:
    """Parse-only, validate in one process, and validate with the CLI's default --jobs, interleaved REPEATS
    times (best of each), so a busy machine slows all three alike. CPU time is shown for the one-process pair."""
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    jobs = default_workers()
    validate(targets)  # warm: imports, compiled schemas, page cache
    best: dict[str, tuple[float, float]] = {}
    for _ in range(REPEATS):
        for name, fn, args in (("parse", parse_only, (files,)), ("jobs 1", validate, (targets, 1)),
                               (f"jobs {jobs}", validate, (targets, jobs))):
            wall, cpu = timed(fn, *args)
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], wall), min(old[1], cpu))
    parse_wall, parse_cpu = best.pop("parse")
    print(row(f"{label}: orjson parse-only ({size_mb:,.0f} MB)", size_mb / parse_wall, "MB/s"))
    for name, (wall, cpu) in best.items():
        print(row(f"{label}: validate --{name}, semantic rules on", size_mb / wall, "MB/s"))
        print(row(f"{label}: validate --{name} / parse-only, wall", 100 * parse_wall / wall, "%", "target >= 50"))
    wall, cpu = best["jobs 1"]
    print(row(f"{label}: validate --jobs 1 / parse-only, CPU time", 100 * parse_cpu / cpu, "%"))


def _folders(args, workdir: Path) -> list[Path]:
    if args.val_dir:
        return args.val_dir
    folders = []
    for dataset, count_flag in (("kernelinfer", "--sessions"), ("kernelswarm", "--episodes")):
        out = workdir / dataset
        scale = (count_flag, str(args.val_rows)) if args.val_rows else ()
        run_cli(dataset, "--out", str(out), *scale)
        folders.append(out)
    return folders


def _first_half(merged: Path, workdir: Path) -> Path:
    """The merged view's first half of lines, under the same name (the schema comes from it): memory that
    follows the file size would show as the full file needing more than this; memory that follows the longest
    row, the allocator's warm-up or the compiled schemas is paid by both alike (one shard against the merged view
    mixed the warm-up in)."""
    half = workdir / "half" / merged.name
    half.parent.mkdir(exist_ok=True)
    with open(merged, "rb") as src:
        lines = sum(1 for _ in src)
    with open(merged, "rb") as src, open(half, "wb") as dst:
        dst.writelines(line for _, line in zip(range(lines // 2), src))
    return half


def run(args, workdir: Path) -> None:
    for folder in _folders(args, workdir):
        shards = sorted((folder / "batches").glob("*.jsonl"))
        every_jsonl = shards + sorted(folder.glob("*.jsonl"))
        measure(f"{folder.name} shards", shards, shards)
        measure(f"{folder.name} folder", [folder], every_jsonl)
        merged = next(p for p in sorted(folder.glob("*.jsonl")) if p.name != "tasks_holdout.jsonl")
        half = _first_half(merged, workdir)
        small, large = (run_cli("validate", "--jobs", "1", str(path)) for path in (half, merged))
        ratio = large.peak_rss_mb / small.peak_rss_mb
        print(row(f"peak RSS, first half of the merged view ({half.stat().st_size / 1e6:,.0f} MB)",
                  small.peak_rss_mb, "MB"))
        print(row(f"peak RSS, merged view ({merged.stat().st_size / 1e6:,.0f} MB)", large.peak_rss_mb, "MB"))
        print(row("peak RSS ratio merged / first half", ratio, "x", "target <= 1.2 (flat)"))
