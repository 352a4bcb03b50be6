"""The folder's Parquet-first layout: load time against pyarrow, and what staging an upload costs.

Load: for every config of the card, the first `load_dataset(folder, config)` with an empty cache (it prepares
every split of the config, so all of them are timed) against `pyarrow.parquet.read_table` of the very files the
card names for it (the floor: decoding the columns, no Arrow cache written), alternated and repeated, best of
each; and the streaming rate over the first STREAM_ROWS rows. Target: ratio <= 1.5. The difference is mostly
`datasets` writing the Arrow cache (the uncompressed columns, ~60x the zstd files for sessions), so it grows with
how loaded the machine's memory bandwidth is.
Staging: `upload --dry-run --stage-dir` in a fresh process (HF_HUB_OFFLINE=1: the plan shows the remote as
unknown), its peak RSS (target <= 500 MB) and the stage's bytes on disk with a hard link counted once, against
the unique data (the JSONL shards once plus every Parquet file; target <= 1.2x), and the bytes staging wrote.
`--layout-dir DIR` measures an existing folder (e.g. the default-scale `out/kernelinfer`); otherwise a small
one is generated.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from common import run_cli

REPEATS = 2
STREAM_ROWS = 2000


def add_arguments(parser) -> None:
    g = parser.add_argument_group("layout")
    g.add_argument("--layout-dir", type=Path, help="a generated folder to measure (default: generate one)")
    g.add_argument("--layout-rows", type=int, default=300, help="sessions of the generated folder (default 300)")


def card_files(folder: Path) -> dict[str, dict[str, list[Path]]]:
    """config -> split -> the files the card's YAML names for it."""
    text = (folder / "README.md").read_text()
    meta = yaml.safe_load(text[4:text.index("\n---", 4)])
    return {c["config_name"]: {f["split"]: sorted(folder.glob(f["path"])) for f in c["data_files"]}
            for c in meta["configs"]}


def first_load(folder: Path, config: str) -> tuple[float, float]:
    """(wall, CPU) seconds of a first load into an empty cache."""
    import datasets

    with tempfile.TemporaryDirectory(prefix="bench_layout_cache_") as cache:
        t, c = time.perf_counter(), time.process_time()
        datasets.load_dataset(str(folder), config, cache_dir=cache)
        return time.perf_counter() - t, time.process_time() - c


def read_table(files: list[Path]) -> tuple[float, float]:
    """(wall, CPU) seconds of pyarrow reading the files (its own threads' CPU included)."""
    t, c = time.perf_counter(), time.process_time()
    for f in files:
        pq.read_table(f)
    return time.perf_counter() - t, time.process_time() - c


def streaming_rate(folder: Path, config: str, split: str) -> float:
    """Rows per second over the first STREAM_ROWS rows of a streaming pass."""
    import datasets

    t = time.perf_counter()
    n = 0
    for _ in datasets.load_dataset(str(folder), config, split=split, streaming=True):
        n += 1
        if n == STREAM_ROWS:
            break
    return n / (time.perf_counter() - t)


def measure_loads(folder: Path) -> None:
    import datasets

    datasets.disable_progress_bars()
    for config, splits in card_files(folder).items():
        files = [f for paths in splits.values() for f in paths]
        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
        loads, reads = [], []
        for _ in range(REPEATS):
            reads.append(read_table(files))
            loads.append(first_load(folder, config))
        mb = sum(f.stat().st_size for f in files) / 1e6
        arrow_mb = sum(pq.ParquetFile(f).metadata.row_group(g).total_byte_size for f in files
                       for g in range(pq.ParquetFile(f).metadata.num_row_groups)) / 1e6
        rate = streaming_rate(folder, config, next(iter(splits)))
        (load, load_cpu), (read, read_cpu) = min(loads), min(reads)
        print(f"  {config} ({', '.join(splits)}): {rows:,} rows, {len(files)} files, {mb:,.1f} MB on disk, "
              f"{arrow_mb:,.0f} MB uncompressed: load_dataset {load:.2f} s, pq.read_table {read:.2f} s, "
              f"ratio {load / read:.2f} (CPU time {load_cpu:.2f} / {read_cpu:.2f} s = {load_cpu / read_cpu:.2f}); "
              f"streaming {rate:,.0f} rows/s")


def disk_bytes(root: Path, seen: set | None = None) -> int:
    """Bytes of the regular files under root, each inode once (a hard link counts once)."""
    seen = set() if seen is None else seen
    total = 0
    for path in root.rglob("*"):
        st = path.lstat()
        if path.is_file() and not path.is_symlink() and (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size
    return total


def measure_stage(folder: Path, workdir: Path) -> None:
    merged = next(name for name in ("sessions.jsonl", "episodes.jsonl") if (folder / name).exists())
    unique = sum(f.stat().st_size for pattern in ("batches/*.jsonl", "data/**/*.parquet", "views/**/*.parquet")
                 for f in folder.glob(pattern))
    for extra in ((), ("--no-merged",)):
        stage = folder.parent / f".bench-stage-{folder.name}"
        shutil.rmtree(stage, ignore_errors=True)
        os.environ["HF_HUB_OFFLINE"] = "1"
        run = run_cli("upload", str(folder), "--repo-id", "bench/layout", "--dry-run", "--stage-dir", str(stage), *extra)
        in_folder: set = set()
        disk_bytes(folder, in_folder)
        staged = disk_bytes(stage)
        written = disk_bytes(stage, set(in_folder))
        shutil.rmtree(stage)
        label = "with " + merged if not extra else "--no-merged"
        print(f"  stage ({label}): rc {run.rc}, {run.wall_s:.1f} s, peak RSS {run.peak_rss_mb:,.0f} MB; on disk "
              f"{staged / 1e6:,.1f} MB (links once) = {staged / unique:.2f}x the unique data ({unique / 1e6:,.1f} MB); "
              f"bytes staging wrote {written / 1e6:,.2f} MB")


def run(args, workdir: Path) -> None:
    folder = args.layout_dir
    if folder is None:
        folder = workdir / "kernelinfer"
        made = run_cli("kernelinfer", "--out", str(folder), "--sessions", str(args.layout_rows), "--holdout", "20")
        if made.rc:
            raise SystemExit("bench: generation failed")
    print(f"  folder {folder}")
    measure_loads(folder)
    measure_stage(folder, workdir)


if __name__ == "__main__":          # `python bench/bench_layout.py [--layout-dir DIR]`, without the other benches
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    with tempfile.TemporaryDirectory(prefix="bench_layout_") as tmp:
        run(parser.parse_args(), Path(tmp))
