"""The generation bench both datasets run: MB/s per process, the ratio to re-serializing the very same rows
with orjson (the practical limit of a Python writer), the `--num-proc 2` speed-up with a byte-identity check,
and peak RSS at a small and at the full default scale (flat memory keeps the two within 1.5x)."""
from __future__ import annotations

import cProfile
import functools
import os
import pstats
import time
from pathlib import Path
from typing import NamedTuple

import orjson

from common import Run, row, run_cli
from generator.dataset import Dataset
from generator.layout import num_shards, shard_name
from generator.write.writer import write_shard


class Timing(NamedTuple):
    wall_s: float
    cpu_s: float


def _timer() -> Timing:
    return Timing(time.perf_counter(), time.process_time())


def _since(start: Timing) -> Timing:
    return Timing(time.perf_counter() - start.wall_s, time.process_time() - start.cpu_s)


def _generation(spec: Dataset, n: int, workdir: Path, profile: bool) -> tuple[Timing, Timing, float, int]:
    """(wall, CPU) to simulate+serialize+write n rows, (wall, CPU) to re-serialize+write the same rows, seconds to
    serialize them alone (orjson with nothing written), bytes.

    The two passes alternate shard by shard: shard i is generated, read back (untimed), re-serialized and
    written, then shard i+1 is generated. Page-cache write speed depends on the memory state (see README), so
    both passes must write into the same state; run one after the other, generation took the fast memory that
    deleted files had freed and left the slow to the re-serialize pass, which read the ratio low. Dirty pages are
    flushed (untimed) before each timed part, and memory stays that of one shard whatever n is. The CPU-time ratio
    leaves I/O waits out."""
    rows_fn = functools.partial(spec.rows_for_shard, 0, n, spec.default_holdout)
    spec.holdout_rows(0, n, spec.default_holdout)        # the task split is setup, not generation
    prof = cProfile.Profile() if profile else None
    gen = ser = Timing(0.0, 0.0)
    dumps_s, size = 0.0, 0
    shards = num_shards(n)
    for i in range(shards):
        os.sync()
        start = _timer()
        if prof:
            prof.enable()
        size += write_shard(workdir / "gen", i, shards, rows_fn, None)[0]
        if prof:
            prof.disable()
        gen = _plus(gen, _since(start))
        rows = [orjson.loads(line) for line in (workdir / "gen" / shard_name(i, shards=shards)).read_bytes().splitlines()]
        os.sync()
        t = time.perf_counter()
        for r in rows:
            orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE)
        dumps_s += time.perf_counter() - t
        start = _timer()
        write_shard(workdir / "again", i, shards, lambda _i, rows=rows: rows, None)
        ser = _plus(ser, _since(start))
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    return gen, ser, dumps_s, size


def _plus(a: Timing, b: Timing) -> Timing:
    return Timing(a.wall_s + b.wall_s, a.cpu_s + b.cpu_s)


def _cli_pair(spec: Dataset, workdir: Path, count: int) -> tuple[Run, Run]:
    """The CLI at `count` rows with --num-proc 1 and 2: wall times, peak RSS, and the speed-up line (with the byte
    identity of what they wrote)."""
    unit = spec.count_flag
    runs = tuple(run_cli(spec.name, "--out", str(workdir / f"{count}_p{p}"), f"--{unit}", str(count),
                         "--num-proc", str(p)) for p in (1, 2))
    same = all((workdir / f"{count}_p1" / f).read_bytes() == (workdir / f"{count}_p2" / f).read_bytes()
               for f in (spec.merged_file, "stats.json", "README.md", "tasks_holdout.jsonl"))
    for p, run in zip((1, 2), runs, strict=True):
        print(row(f"CLI end to end, {count} {unit}, --num-proc {p}", run.wall_s, "s"))
    print(row(f"speed-up from --num-proc 2, {count} {unit}", runs[0].wall_s / runs[1].wall_s, "x",
              f"(bytes identical: {same})"))
    return runs


def run_bench(spec: Dataset, workdir: Path, *, gen: int, small: int, full: int, profile: bool) -> None:
    unit = spec.count_flag
    gen_t, ser_t, dumps_s, size = _generation(spec, gen, workdir, profile)
    mb = size / 1e6
    print(row(f"generation, 1 process ({gen} {unit}, {mb:.0f} MB)", mb / gen_t.wall_s, "MB/s", "target >= 50"))
    print(row("orjson re-serialize + write of the same rows", mb / ser_t.wall_s, "MB/s"))
    print(row("orjson serialize alone (nothing written)", mb / dumps_s, "MB/s"))
    print(row("generation time / re-serialize time, wall", gen_t.wall_s / ser_t.wall_s, "x", "target <= 3"))
    print(row("generation time / re-serialize time, CPU", gen_t.cpu_s / ser_t.cpu_s, "x"))
    small_run = _cli_pair(spec, workdir, small)[0]
    print(row(f"peak RSS, {small} {unit}", small_run.peak_rss_mb, "MB"))
    if full:
        big = _cli_pair(spec, workdir, full)[0]
        full_mb = (workdir / f"{full}_p1" / spec.merged_file).stat().st_size / 1e6
        print(row(f"CLI end to end throughput, {full} {unit} ({full_mb:.0f} MB)", full_mb / big.wall_s, "MB/s"))
        print(row(f"peak RSS, {full} {unit}", big.peak_rss_mb, "MB"))
        print(row("peak RSS ratio full / small", big.peak_rss_mb / small_run.peak_rss_mb, "x", "target <= 1.5"))
